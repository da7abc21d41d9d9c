import { type Kysely, sql } from 'kysely';

/**
 * A reissue without a completion key looks for the credential's existing replacement, and the page
 * of a reissued credential links it: both read credentials by `reissued_from`. Only replacements
 * carry one, so the index holds those rows alone and costs other issuances nothing.
 */
export function reissuedFromIndexMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('credentials_issuer_reissued_from')
        .on('credentials')
        .columns(['issuer_id', 'reissued_from'])
        .where(sql.ref('reissued_from'), 'is not', null)
        .execute();
    },
  };
}
