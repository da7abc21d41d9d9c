import { type Kysely, sql } from 'kysely';

/**
 * Recording a verification writes only time-ordered index entries. The verification events'
 * `(issuer_id, credential_id, occurred_at)` index of migration 0008, keyed by a random credential
 * id, cost each event a random index page: 30–66 µs a row on SQLite against 9–19 µs without it.
 * The time index becomes `(issuer_id, occurred_at, credential_id)`, so the credentials verified in a
 * time range (the rollup's, and a window's raw edges) are read from the index alone.
 * Its one reader, the distinct credentials verified in a window that ends before the newest rolled
 * day, now reads `report_verified_credential_days`: each credential verified on a closed day, one
 * row per credential and day, written by the daily rollup in credential order. It is filled here
 * for the days already rolled up.
 */
export function verifiedCredentialDaysMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('report_verified_credential_days')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('credential_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_verified_credential_days_pk', ['issuer_id', 'credential_id', 'day'])
        .execute();
      await sql`insert into report_verified_credential_days (issuer_id, credential_id, day)
        select distinct e.issuer_id, e.credential_id, substr(e.occurred_at, 1, 10)
        from verification_events e
        where exists (
          select 1 from report_rolled_days r
          where r.issuer_id = e.issuer_id and r.day = substr(e.occurred_at, 1, 10)
        )`.execute(db);
      await db.schema.dropIndex('verification_events_issuer_credential_time').execute();
      await db.schema
        .createIndex('verification_events_issuer_time_credential')
        .on('verification_events')
        .columns(['issuer_id', 'occurred_at', 'credential_id'])
        .execute();
      await db.schema.dropIndex('verification_events_issuer_time').execute();
    },
  };
}
