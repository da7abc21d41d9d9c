import type { Kysely } from 'kysely';

/**
 * The `credential.expiry_reminder_due` webhook (issue 39 §5): one row per credential announced, so
 * the event is sent once per credential however many sweepers run. The insert is the claim, as for
 * `credential_reminders` (0062), and it is a table of its own so that announcing the event never
 * stands in the way of the reminder email's own claim. No address, no name: ids and a timestamp.
 */
export function reminderDueAnnouncementsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('credential_reminder_announcements')
        .addColumn('credential_id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('announced_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
