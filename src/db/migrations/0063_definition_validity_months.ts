import { type Kysely, sql } from 'kysely';

/**
 * A definition's validity in calendar months (issue 39 §5: a registrar's "24 months" ends on the
 * same day two years on, which no count of days says across leap years). Null when the definition
 * counts days (`expires_after_days`) or has no expiry; the service keeps at most one of the two set.
 *
 * The "Expiring soon" view reads an issuer's unrevoked credentials by expiry time; the partial index
 * holds only those that can expire, so the view reads its window, not every credential issued.
 */
export function definitionValidityMonthsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('definitions').addColumn('expires_after_months', 'integer').execute();
      await db.schema
        .createIndex('credentials_issuer_expiring')
        .on('credentials')
        .columns(['issuer_id', 'expires_on'])
        .where(sql<boolean>`revoked_at is null and expires_on is not null`)
        .execute();
    },
  };
}
