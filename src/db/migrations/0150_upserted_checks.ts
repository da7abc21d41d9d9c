import type { Kysely } from 'kysely';

/**
 * What the backpack shows of a credential an app upserted through the Open Badges API (issue 47
 * §1): the app that sent it (`client_id`) and the outcome of the backpack's last check of it, as an
 * import is checked (`status` verified, expired, revoked, suspended or unverified, `reason`,
 * `checked_at`). A credential never checked, or replaced since, has no status and is shown as not
 * verified.
 */
export function upsertedChecksMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const column of ['client_id', 'status', 'reason', 'checked_at']) {
        await db.schema.alterTable('earner_api_credentials').addColumn(column, 'text').execute();
      }
    },
  };
}
