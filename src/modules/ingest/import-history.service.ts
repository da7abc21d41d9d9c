import type { Selectable } from 'kysely';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import type { ImportBatchesTable } from '../../db/schema.js';
import { createImportBatchRepository } from './import-batches.repository.js';
import type { KeptReport } from './import-run.js';

const toBatch = (row: Omit<Selectable<ImportBatchesTable>, 'report'>) => ({
  id: row.id,
  createdAt: row.created_at,
  source: row.source,
  filename: row.filename,
  rows: row.total,
  issued: row.issued,
  skipped: row.skipped,
  errors: row.errored,
});

/** The import history: the batches real imports and connector calls kept, for the console's Issue page. */
export function createImportHistoryService(core: Pick<Core, 'db'>) {
  const repo = createImportBatchRepository(core.db);
  return {
    async list(issuerId: string, limit: number, offset: number) {
      const { total, rows } = await repo.list(issuerId, limit, offset);
      return { total, limit, offset, items: rows.map(toBatch) };
    },

    async get(issuerId: string, id: string) {
      const row = await repo.find(issuerId, id);
      if (!row) throw errors.notFound('Import');
      const kept = row.report === null ? null : (JSON.parse(row.report) as KeptReport);
      return { ...toBatch(row), report: kept?.entries ?? null, reportComplete: kept?.complete ?? false };
    },

    /** Whether the issuer has this batch (another issuer's answers as a missing one). */
    exists: (issuerId: string, id: string) => repo.exists(issuerId, id),

    /** A page of the ids of the credentials the batch issued, in id order after `afterId`. */
    credentialIds: (issuerId: string, batchId: string, afterId: string | null, limit: number) =>
      repo.credentialIds(issuerId, batchId, afterId, limit),
  };
}

export type ImportHistoryService = ReturnType<typeof createImportHistoryService>;
