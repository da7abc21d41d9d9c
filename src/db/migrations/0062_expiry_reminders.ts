import type { Kysely } from 'kysely';

/**
 * Expiry reminders (issue 39 §5): the issuer's switch and lead time beside its other notification
 * settings, and one row per credential reminded. The row is the claim: whoever inserts it sends the
 * reminder, so a credential is reminded once however many replicas are asked at once. As with
 * `credential_notifications`, the address is never stored: the row holds the outcome and the hash of
 * the reminder's unsubscribe token.
 */
export function expiryRemindersMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('notification_settings')
        .addColumn('expiry_reminders', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('notification_settings')
        .addColumn('expiry_reminder_days', 'integer', (c) => c.notNull().defaultTo(30))
        .execute();
      await db.schema
        .createTable('credential_reminders')
        .addColumn('credential_id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('unsubscribe_token_hash', 'text', (c) => c.unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
