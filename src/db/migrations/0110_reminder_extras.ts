import type { Kysely } from 'kysely';

/**
 * The expiry reminder's extras (issue 46): the issuer's own text and a renewal or re-enrolment link,
 * both optional, both shown in every reminder the issuer sends.
 */
export function reminderExtrasMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('notification_settings').addColumn('reminder_note', 'text').execute();
      await db.schema.alterTable('notification_settings').addColumn('reminder_link', 'text').execute();
    },
  };
}
