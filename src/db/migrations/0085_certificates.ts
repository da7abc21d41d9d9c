import type { Kysely } from 'kysely';

/**
 * Certificate designs (issue 44): one row per issuer for its default (`target` 'issuer') and one per
 * definition that has its own (`target` the definition id). `design` is the JSON of the design as
 * the API takes it; `version` counts its changes (the console shows it; the PDF cache keys on the
 * content itself, so a change shows at the next download).
 */
export function certificatesMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('certificate_designs')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('design', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('certificate_designs_pk', ['issuer_id', 'target'])
        .execute();
    },
  };
}
