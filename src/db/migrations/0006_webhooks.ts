import { type Kysely, sql } from 'kysely';

/**
 * The expiry sweeper looks for expired, unrevoked, unannounced credentials every interval. A partial
 * index holds only those still to be announced, so each pass reads a handful of entries instead of
 * scanning every credential ever issued.
 */
export function webhooksMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('credentials_expiry_unannounced')
        .on('credentials')
        .column('expires_on')
        .where(sql<boolean>`expiry_announced_at is null and revoked_at is null and expires_on is not null`)
        .execute();
    },
  };
}
