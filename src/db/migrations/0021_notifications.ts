import type { Kysely } from 'kysely';

/**
 * Earner notifications. An address is never stored: `credential_notifications` keeps only what
 * happened to the message sent for a credential (and the hash of its unsubscribe token), and
 * `notification_suppressions` the salted recipient hashes that asked to hear no more.
 */
export function notificationsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('notification_settings')
        .addColumn('issuer_id', 'text', (c) => c.primaryKey())
        .addColumn('notify_by_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sender_name', 'text')
        .addColumn('reply_to', 'text')
        .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('credential_notifications')
        .addColumn('credential_id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('unsubscribe_token_hash', 'text', (c) => c.unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('notification_suppressions')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_suppressions_pk', ['issuer_id', 'recipient_hash'])
        .execute();
    },
  };
}
