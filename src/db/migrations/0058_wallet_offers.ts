import type { Kysely } from 'kysely';

/**
 * Wallet offers (OpenID4VCI pre-authorized code) and the
 * OpenID4VCI nonces. Every secret is kept as its SHA-256 only: the offer's pre-authorized code, its
 * transaction code and the access token it was redeemed for. An offer is used
 * once: `redeemed_at` is set by the token endpoint.
 */
export function walletOffersMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('wallet_offers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('credential_id', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('code_hash', 'text', (c) => c.notNull().unique())
        .addColumn('tx_code_hash', 'text')
        .addColumn('tx_code_failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('redeemed_at', 'text')
        .addColumn('access_token_hash', 'text', (c) => c.unique())
        .addColumn('access_token_expires_at', 'text')
        .addColumn('issued_formats', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .createIndex('wallet_offers_credential')
        .on('wallet_offers')
        .columns(['issuer_id', 'credential_id'])
        .execute();
      await db.schema
        .createTable('wallet_nonces')
        .addColumn('nonce_hash', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('wallet_nonces_expiry').on('wallet_nonces').column('expires_at').execute();
    },
  };
}
