import { type Kysely, sql } from 'kysely';

/**
 * `credentials.import_batch_id`: the import batch (CSV import or connector call) that issued a
 * credential, null for every other channel and for credentials issued before this migration. The
 * batch's certificate ZIP (issue 44) reads a batch's credentials in id order, a page at a time, so
 * the index holds issuer, batch and id; only batch-issued rows carry one, so other issuances pay nothing.
 */
export function credentialImportBatchMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('credentials').addColumn('import_batch_id', 'text').execute();
      await db.schema
        .createIndex('credentials_issuer_import_batch')
        .on('credentials')
        .columns(['issuer_id', 'import_batch_id', 'id'])
        .where(sql.ref('import_batch_id'), 'is not', null)
        .execute();
    },
  };
}
