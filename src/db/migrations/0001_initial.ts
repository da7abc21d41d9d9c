import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';
import { appendOnlyGuards } from './append-only.js';

/** Every table of the service. Later issues only add columns and indexes in new migrations. */
export function initialMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const autoId =
        dialect === 'sqlite'
          ? sql`integer primary key autoincrement`
          : sql`bigint generated always as identity primary key`;

      await db.schema
        .createTable('plans')
        .addColumn('code', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('issuance_quota', 'integer')
        .addColumn('premium_verification', 'integer', (c) => c.notNull())
        .addColumn('requests_per_minute', 'integer', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('issuers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('slug', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('image_url', 'text')
        .addColumn('brand_primary_color', 'text')
        .addColumn('brand_logo_url', 'text')
        .addColumn('plan_code', 'text', (c) => c.notNull().references('plans.code'))
        .addColumn('recipient_salt', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('label', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_issuer').on('api_keys').column('issuer_id').execute();

      await db.schema
        .createTable('definitions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('criteria_narrative', 'text')
        .addColumn('criteria_url', 'text')
        .addColumn('image_url', 'text')
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('skills', 'text', (c) => c.notNull())
        .addColumn('expires_after_days', 'integer')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('definitions_issuer_slug', ['issuer_id', 'slug'])
        .execute();

      await db.schema
        .createTable('credentials')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('definition_id', 'text', (c) => c.notNull().references('definitions.id'))
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addColumn('display_name', 'text')
        .addColumn('completion_key', 'text', (c) => c.notNull())
        .addColumn('issued_on', 'text', (c) => c.notNull())
        .addColumn('expires_on', 'text')
        .addColumn('revoked_at', 'text')
        .addColumn('revoked_reason', 'text')
        .addColumn('evidence_url', 'text')
        .addColumn('reissued_from', 'text')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('expiry_announced_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('credentials_issuer_completion_key', ['issuer_id', 'completion_key'])
        .execute();
      await db.schema
        .createIndex('credentials_issuer_definition')
        .on('credentials')
        .columns(['issuer_id', 'definition_id'])
        .execute();
      await db.schema
        .createIndex('credentials_issuer_recipient')
        .on('credentials')
        .columns(['issuer_id', 'recipient_hash'])
        .execute();
      await db.schema
        .createIndex('credentials_issuer_issued_on')
        .on('credentials')
        .columns(['issuer_id', 'issued_on'])
        .execute();
      await db.schema
        .createIndex('credentials_issuer_created')
        .on('credentials')
        .columns(['issuer_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('usage_counters')
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('stripe', 'integer', (c) => c.notNull())
        .addColumn('issuance', 'integer', (c) => c.notNull())
        .addColumn('premium_verification', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_counters_pk', ['issuer_id', 'period', 'stripe'])
        .execute();

      await db.schema
        .createTable('import_batches')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('filename', 'text')
        .addColumn('total', 'integer', (c) => c.notNull())
        .addColumn('issued', 'integer', (c) => c.notNull())
        .addColumn('skipped', 'integer', (c) => c.notNull())
        .addColumn('errored', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('import_batches_issuer_created')
        .on('import_batches')
        .columns(['issuer_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('stripe', 'integer', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('occurred_at', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target_type', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('details', 'text', (c) => c.notNull())
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addUniqueConstraint('audit_log_issuer_stripe_seq', ['issuer_id', 'stripe', 'seq'])
        .execute();

      await db.schema
        .createTable('audit_heads')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('stripe', 'integer', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('audit_heads_pk', ['issuer_id', 'stripe'])
        .execute();

      for (const [table, kind] of [
        ['verification_events', 'channel'],
        ['engagement_events', 'action'],
      ] as const) {
        await db.schema
          .createTable(table)
          .addColumn('id', sql`${autoId}` as never)
          .addColumn('issuer_id', 'text', (c) => c.notNull())
          .addColumn('credential_id', 'text', (c) => c.notNull())
          .addColumn(kind, 'text', (c) => c.notNull())
          .addColumn('country', 'text', (c) => c.notNull())
          .addColumn('occurred_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex(`${table}_issuer_time`).on(table).columns(['issuer_id', 'occurred_at']).execute();
        await db.schema.createIndex(`${table}_credential`).on(table).columns(['issuer_id', 'credential_id']).execute();
      }

      await db.schema
        .createTable('profiles')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('profiles_issuer_recipient')
        .on('profiles')
        .columns(['issuer_id', 'recipient_hash'])
        .execute();

      await db.schema
        .createTable('pathways')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('pathways_issuer_slug', ['issuer_id', 'slug'])
        .execute();

      await db.schema
        .createTable('pathway_stages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('pathway_id', 'text', (c) => c.notNull().references('pathways.id'))
        .addColumn('definition_id', 'text', (c) => c.notNull().references('definitions.id'))
        .addColumn('step_order', 'integer', (c) => c.notNull())
        .addColumn('required', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('pathway_stages_pathway_definition', ['pathway_id', 'definition_id'])
        .execute();

      await db.schema
        .createTable('endorsements')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('target_type', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('endorser_name', 'text', (c) => c.notNull())
        .addColumn('endorser_url', 'text')
        .addColumn('claim', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('endorsements_target')
        .on('endorsements')
        .columns(['issuer_id', 'target_type', 'target_id'])
        .execute();

      await db.schema
        .createTable('alignments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('definition_id', 'text', (c) => c.notNull().references('definitions.id'))
        .addColumn('target_name', 'text', (c) => c.notNull())
        .addColumn('target_url', 'text', (c) => c.notNull())
        .addColumn('target_framework', 'text')
        .addColumn('target_code', 'text')
        .addColumn('target_description', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('alignments_definition')
        .on('alignments')
        .columns(['issuer_id', 'definition_id'])
        .execute();

      await db.schema
        .createTable('webhook_subscriptions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema
        .createIndex('webhook_subscriptions_issuer')
        .on('webhook_subscriptions')
        .column('issuer_id')
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('subscription_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id'))
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('delivered_at', 'text')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_subscription')
        .on('webhook_deliveries')
        .columns(['subscription_id', 'created_at'])
        .execute();

      for (const table of ['audit_log', 'verification_events', 'engagement_events']) {
        for (const statement of appendOnlyGuards(dialect, table)) await sql.raw(statement).execute(db);
      }

      await sql`insert into plans (code, name, issuance_quota, premium_verification, requests_per_minute) values
        ('free', 'Free', 100, 0, 120),
        ('starter', 'Starter', 1000, 0, 600),
        ('growth', 'Growth', 10000, 1, 1200),
        ('enterprise', 'Enterprise', null, 1, 6000)`.execute(db);
    },
  };
}
