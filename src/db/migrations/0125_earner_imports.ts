import type { Kysely } from 'kysely';

/**
 * Credentials an earner imported into the backpack from other hosts (issue 47 §1): an Open Badges
 * 2.0 assertion or an Open Badges 3.0 credential, kept as it was verified (`document`: the JSON, or
 * the compact JWS), with what the backpack shows of it and the outcome of its verification
 * (`status` verified, revoked, expired or unverified, `reason` for anything but verified). One row
 * per credential and account (`credential_key`: the credential's id, or a hash of it without one);
 * importing it again checks it again. `earner_import_attempts` holds one row per check of the last
 * hour (new or again), which are capped per account, so every replica counts the same.
 */
export function earnerImportsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('earner_imports')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('credential_key', 'text', (c) => c.notNull())
        .addColumn('spec', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('source_url', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('issuer_name', 'text', (c) => c.notNull())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('image_url', 'text')
        .addColumn('issued_on', 'text')
        .addColumn('expires_on', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('checked_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('earner_imports_key', ['account_id', 'credential_key'])
        .execute();
      await db.schema
        .createIndex('earner_imports_account_created')
        .on('earner_imports')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('earner_import_attempts')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('attempted_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('earner_import_attempts_account')
        .on('earner_import_attempts')
        .columns(['account_id', 'attempted_at'])
        .execute();
    },
  };
}
