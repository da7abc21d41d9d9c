import type { Kysely } from 'kysely';

/**
 * CLR 2.0 credentials (issue 47 §3): each ClrCredential an issuer signed for a recipient who
 * completed one of its pathways, stored as signed (the JSON text), so every later read serves the
 * same bytes. The recipient is the issuer's salted email hash, as on its credentials: the earner's
 * backpack and the Open Badges API find a CLR through the account's linked credentials of the same
 * issuer and hash, so no new identifier of the earner exists. `credential_ids` (the member
 * credentials, sorted and comma-joined) lets a repeated request return the CLR it already made.
 */
export function clrCredentialsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('clr_credentials')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('pathway_id', 'text', (c) => c.notNull())
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addColumn('credential_ids', 'text', (c) => c.notNull())
        .addColumn('key_version', 'integer', (c) => c.notNull())
        .addColumn('credential', 'text', (c) => c.notNull())
        .addColumn('valid_from', 'text', (c) => c.notNull())
        .addColumn('valid_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('clr_credentials_recipient')
        .on('clr_credentials')
        .columns(['issuer_id', 'recipient_hash', 'pathway_id'])
        .execute();
    },
  };
}
