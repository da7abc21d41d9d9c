import type { Kysely } from 'kysely';

/**
 * The import history shows each batch's report: the entries a real import or connector call did
 * not issue cleanly (skipped, failed, or issued with a note), as JSON. A clean import keeps an
 * empty list; batches recorded before this migration keep none (null).
 */
export function importReportsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('import_batches').addColumn('report', 'text').execute();
    },
  };
}
