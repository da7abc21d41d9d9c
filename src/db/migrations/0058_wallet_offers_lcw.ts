import type { Kysely } from 'kysely';

/**
 * The Learner Credential Wallet's challenge of each wallet offer, as its SHA-256 (the same offer is
 * redeemed once, by OpenID4VCI or by the LCW exchange). Offers made before have none.
 */
export function walletOffersLcwMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('wallet_offers').addColumn('challenge_hash', 'text').execute();
      await db.schema
        .createIndex('wallet_offers_challenge')
        .unique()
        .on('wallet_offers')
        .column('challenge_hash')
        .execute();
    },
  };
}
