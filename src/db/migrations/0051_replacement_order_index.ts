import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * The newest replacement of a credential (its verification page, and a reissue without a completion
 * key) is read by `reissued_from`, newest `created_at` first. With only (issuer_id, reissued_from)
 * indexed, SQLite without statistics walked the issuer's credentials newest first through
 * `credentials_issuer_created` to find the rare replacement: 0.8 ms a page at 2,000 credentials,
 * growing with the issuer, most of the page's CPU (docs/decisions.md). Ending the partial index in
 * the order read makes it the only fitting plan, and a covering one, on both engines.
 */
export function replacementOrderIndexMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('credentials_issuer_reissued_from_created')
        .on('credentials')
        .columns(['issuer_id', 'reissued_from', 'created_at', 'id'])
        .where(sql.ref('reissued_from'), 'is not', null)
        .execute();
      await db.schema.dropIndex('credentials_issuer_reissued_from').execute();
    },
  };
}
