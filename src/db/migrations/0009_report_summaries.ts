import { type Kysely, sql } from 'kysely';

/**
 * Analytics over a million credentials and events answered in well under a second on PostgreSQL
 * too: the all-time and distinct counts are read from summaries of closed days instead of raw rows.
 * - `report_credential_days`: credentials per definition per UTC day of creation. Only creation is
 *   summarised (definition and creation time never change); revocation and expiry are counted live.
 * - `report_verified_credentials`: each verified credential's last rolled-up day with a
 *   verification, so the distinct credentials verified in a window that reaches the newest rolled
 *   day are a range count.
 * The rollup of migration 0008 is cleared so that it is rebuilt with these, day by day.
 * The `(issuer_id, credential_id)` event indexes of the first migration are dropped: 0008's
 * `(issuer_id, credential_id, occurred_at)` indexes serve every query they served.
 */
export function reportSummariesMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of ['verification_events', 'engagement_events']) {
        await db.schema.dropIndex(`${table}_credential`).execute();
      }
      await db.schema
        .createTable('report_credential_days')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('credentials', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_credential_days_pk', ['issuer_id', 'day', 'definition_id'])
        .execute();
      await db.schema
        .createTable('report_verified_credentials')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('credential_id', 'text', (c) => c.notNull())
        .addColumn('last_day', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_verified_credentials_pk', ['issuer_id', 'credential_id'])
        .execute();
      await db.schema
        .createIndex('report_verified_credentials_last_day')
        .on('report_verified_credentials')
        .columns(['issuer_id', 'last_day'])
        .execute();
      for (const table of [
        'report_verification_days',
        'report_verification_countries',
        'report_engagement_days',
        'report_rolled_days',
      ]) {
        await sql`delete from ${sql.table(table)}`.execute(db);
      }
    },
  };
}
