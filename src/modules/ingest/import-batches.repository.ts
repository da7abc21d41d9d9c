import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ImportBatchesTable } from '../../db/schema.js';

export type ImportBatchRow = Insertable<ImportBatchesTable>;

/** Import batches: one row per real CSV import or connector call, read by the issuance reports. */
export function createImportBatchRepository(db: Executor) {
  return {
    async insert(row: ImportBatchRow): Promise<void> {
      await db.insertInto('import_batches').values(row).execute();
    },
  };
}
