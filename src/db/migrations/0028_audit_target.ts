import type { Kysely } from 'kysely';

/**
 * `GET /api/v1/audit?targetId=` (one credential's timeline in the console): the records of one
 * target, found without reading the issuer's whole log. A target has a handful of records, so the
 * index ends at target_id and the few it finds are sorted.
 */
export function auditTargetMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('audit_log_issuer_target')
        .on('audit_log')
        .columns(['issuer_id', 'target_id'])
        .execute();
    },
  };
}
