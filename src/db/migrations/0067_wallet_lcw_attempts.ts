import type { Kysely } from 'kysely';

/**
 * The Learner Credential Wallet exchange's failure budget (issue 48.2): presentations checked
 * against an offer's challenge. Each is counted in one conditional increment before its signature
 * is checked, so parallel presentations through any number of replicas check at most the budget;
 * a challenge that has used it is dead (the OpenID4VCI code of the same offer keeps its own count).
 */
export function walletLcwAttemptsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('wallet_offers')
        .addColumn('lcw_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
