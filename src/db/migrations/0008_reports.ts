import type { Kysely } from 'kysely';

/**
 * Reports and analytics over a million credentials and events per issuer must answer in well under
 * a second on both engines.
 * - Covering indexes let the all-time status counts and the pathway recipients be read from an
 *   index alone, without a table lookup per row. The distinct verified/shared credentials of a
 *   window come from an index in credential order: one pass, no sort or hash of a million ids.
 * - Per-definition verification and engagement counts need each event's credential; joining a
 *   million events per request is too slow on SQLite. Closed UTC days are therefore rolled up once
 *   per issuer into small daily tables (events are append-only and recorded when they happen, so a
 *   day that is over no longer changes); `report_rolled_days` marks which days are in them.
 */
export function reportsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('credentials_issuer_definition_status')
        .on('credentials')
        .columns(['issuer_id', 'definition_id', 'revoked_at', 'expires_on', 'recipient_hash'])
        .execute();
      for (const table of ['verification_events', 'engagement_events']) {
        await db.schema
          .createIndex(`${table}_issuer_credential_time`)
          .on(table)
          .columns(['issuer_id', 'credential_id', 'occurred_at'])
          .execute();
      }

      await db.schema
        .createTable('report_rolled_days')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('rolled_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_rolled_days_pk', ['issuer_id', 'day'])
        .execute();
      await db.schema
        .createTable('report_verification_days')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('events', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_verification_days_pk', ['issuer_id', 'day', 'definition_id', 'channel'])
        .execute();
      await db.schema
        .createTable('report_verification_countries')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('country', 'text', (c) => c.notNull())
        .addColumn('events', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_verification_countries_pk', ['issuer_id', 'day', 'country'])
        .execute();
      await db.schema
        .createTable('report_engagement_days')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('events', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_engagement_days_pk', ['issuer_id', 'day', 'definition_id', 'action'])
        .execute();
    },
  };
}
