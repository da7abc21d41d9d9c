import type { Kysely } from 'kysely';

/**
 * Earner accounts and the backpack (issue 47 §1; design.md "Added 2026-12-01"). An account holds
 * a keyed hash of the email (HMAC under a key derived from the service's sealed secret), never the
 * address nor any issuer's salted hash. `earner_credentials` links an issuer's credential to the
 * account that signed in with its address (one account per credential: one address per account).
 * Sign-in links and sessions are stored as SHA-256 hashes of their tokens.
 */
export function earnerAccountsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('earner_accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('earner_sign_in_links')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('email_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema
        .createIndex('earner_sign_in_links_email')
        .on('earner_sign_in_links')
        .columns(['email_hash', 'created_at'])
        .execute();
      await db.schema
        .createTable('earner_sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('earner_sessions_account').on('earner_sessions').column('account_id').execute();
      await db.schema
        .createTable('earner_credentials')
        .addColumn('credential_id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('linked_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('earner_credentials_account')
        .on('earner_credentials')
        .columns(['account_id', 'linked_at'])
        .execute();
    },
  };
}
