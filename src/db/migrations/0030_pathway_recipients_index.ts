import type { Kysely } from 'kysely';

/**
 * The dashboard over a million credentials (issue 25): a pathway's distinct recipients were counted
 * from 0008's status index, whose recipient hash follows revocation and expiry, so every hash of the
 * stage definitions went through a sort (SQLite's temporary B-tree, PostgreSQL's sort per group):
 * about a second for 300,000 credentials. In an (issuer, definition, recipient) index each stage
 * definition's hashes come in order, and SQLite merges the stages' ordered lists into distinct
 * hashes without sorting anything. The status index loses its recipient column, kept only for
 * that count, so an issuance still updates the same number of indexes.
 */
export function pathwayRecipientsIndexMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('credentials_issuer_definition_recipient')
        .on('credentials')
        .columns(['issuer_id', 'definition_id', 'recipient_hash'])
        .execute();
      await db.schema.dropIndex('credentials_issuer_definition_status').execute();
      await db.schema
        .createIndex('credentials_issuer_definition_status')
        .on('credentials')
        .columns(['issuer_id', 'definition_id', 'revoked_at', 'expires_on'])
        .execute();
    },
  };
}
