import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ImportBatchesTable } from '../../db/schema.js';

export type ImportBatchRow = Insertable<ImportBatchesTable>;

/** Import batches: one row per real CSV import or connector call, read by the reports and the import history. */
export function createImportBatchRepository(db: Executor) {
  return {
    async insert(row: ImportBatchRow): Promise<void> {
      await db.insertInto('import_batches').values(row).execute();
    },

    /** The issuer's batches newest first (index import_batches_issuer_created), without their reports. */
    async list(
      issuerId: string,
      limit: number,
      offset: number,
    ): Promise<{ total: number; rows: Omit<Selectable<ImportBatchesTable>, 'report'>[] }> {
      const [count, rows] = await Promise.all([
        db
          .selectFrom('import_batches')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('issuer_id', '=', issuerId)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('import_batches')
          .select(['id', 'issuer_id', 'source', 'filename', 'total', 'issued', 'skipped', 'errored', 'created_at'])
          .where('issuer_id', '=', issuerId)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
      ]);
      return { total: Number(count.n), rows };
    },

    async find(issuerId: string, id: string): Promise<Selectable<ImportBatchesTable> | undefined> {
      return db
        .selectFrom('import_batches')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async exists(issuerId: string, id: string): Promise<boolean> {
      const row = await db
        .selectFrom('import_batches')
        .select('id')
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Ids of the credentials the batch issued, in id order after `afterId` (index
     * credentials_issuer_import_batch, migration 0145): a page at a time, however large the batch.
     */
    async credentialIds(issuerId: string, batchId: string, afterId: string | null, limit: number): Promise<string[]> {
      let query = db
        .selectFrom('credentials')
        .select('id')
        .where('issuer_id', '=', issuerId)
        .where('import_batch_id', '=', batchId);
      if (afterId !== null) query = query.where('id', '>', afterId);
      const rows = await query.orderBy('id').limit(limit).execute();
      return rows.map((r) => r.id);
    },
  };
}
