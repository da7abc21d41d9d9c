import type { WalletOffersTable } from '../../db/schema.js';
import type { Executor } from '../../db/types.js';

export type WalletOfferRow = Omit<WalletOffersTable, 'tx_code_failures' | 'lcw_attempts' | 'issued_formats'> & {
  tx_code_failures: number;
  lcw_attempts: number;
  issued_formats: string;
};

/** The counts an offer keeps of what was checked against it, each with its budget. */
export type AttemptCount = 'tx_code_failures' | 'lcw_attempts';

/**
 * Wallet offers and OpenID4VCI nonces. Every lookup is scoped by the issuer named in the URL, and
 * finds a row by the SHA-256 of the secret the wallet presents. Each change that spends something
 * (the offer, a nonce, a format of an access token) is one conditional statement, so two requests
 * racing for it cannot both win.
 */
export function createWalletRepository(db: Executor) {
  const offers = () => db.selectFrom('wallet_offers').selectAll();
  return {
    async insertOffer(
      row: Omit<WalletOfferRow, 'tx_code_failures' | 'lcw_attempts' | 'issued_formats'>,
    ): Promise<void> {
      await db.insertInto('wallet_offers').values(row).execute();
    },
    async findByCode(issuerId: string, codeHash: string): Promise<WalletOfferRow | undefined> {
      return offers().where('issuer_id', '=', issuerId).where('code_hash', '=', codeHash).executeTakeFirst();
    },
    async findByChallenge(issuerId: string, challengeHash: string): Promise<WalletOfferRow | undefined> {
      return offers().where('issuer_id', '=', issuerId).where('challenge_hash', '=', challengeHash).executeTakeFirst();
    },
    async findByAccessToken(issuerId: string, tokenHash: string): Promise<WalletOfferRow | undefined> {
      return offers().where('issuer_id', '=', issuerId).where('access_token_hash', '=', tokenHash).executeTakeFirst();
    },
    /**
     * Counts one attempt (a transaction code or an LCW presentation about to be checked) against
     * the offer, in one conditional increment: true when it was within `budget` and the offer is
     * not spent. Taken before the check, so parallel attempts through any number of replicas check
     * at most `budget` between them (PostgreSQL's row lock orders the increments).
     */
    async takeAttempt(issuerId: string, id: string, count: AttemptCount, budget: number): Promise<boolean> {
      const result = await db
        .updateTable('wallet_offers')
        .set((eb) =>
          count === 'tx_code_failures'
            ? { tx_code_failures: eb('tx_code_failures', '+', 1) }
            : { lcw_attempts: eb('lcw_attempts', '+', 1) },
        )
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .where(count, '<', budget)
        .where('redeemed_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
    /** Gives back an attempt `takeAttempt` counted, once its code proved right: the count is of failures. */
    async giveBackAttempt(issuerId: string, id: string, count: AttemptCount): Promise<void> {
      await db
        .updateTable('wallet_offers')
        .set((eb) =>
          count === 'tx_code_failures'
            ? { tx_code_failures: eb('tx_code_failures', '-', 1) }
            : { lcw_attempts: eb('lcw_attempts', '-', 1) },
        )
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .where(count, '>', 0)
        .execute();
    },
    /** Spends the offer; false when another request spent it first. */
    async redeem(
      issuerId: string,
      id: string,
      at: string,
      accessToken: { hash: string; expiresAt: string } | null,
    ): Promise<boolean> {
      const result = await db
        .updateTable('wallet_offers')
        .set({
          redeemed_at: at,
          access_token_hash: accessToken?.hash ?? null,
          access_token_expires_at: accessToken?.expiresAt ?? null,
        })
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .where('redeemed_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
    /** Records that the access token received `format`; false when it already had. */
    async markIssued(issuerId: string, id: string, before: string, format: string): Promise<boolean> {
      const after = before === '' ? format : `${before},${format}`;
      const result = await db
        .updateTable('wallet_offers')
        .set({ issued_formats: after })
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .where('issued_formats', '=', before)
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
    /** Stores a nonce and drops the expired ones, so the table holds only live nonces. */
    async insertNonce(nonceHash: string, expiresAt: string, now: string): Promise<void> {
      await db.deleteFrom('wallet_nonces').where('expires_at', '<=', now).execute();
      await db.insertInto('wallet_nonces').values({ nonce_hash: nonceHash, expires_at: expiresAt }).execute();
    },
    /** Spends a nonce: true when it existed and had not expired. */
    async takeNonce(nonceHash: string, now: string): Promise<boolean> {
      const result = await db
        .deleteFrom('wallet_nonces')
        .where('nonce_hash', '=', nonceHash)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return result.numDeletedRows === 1n;
    },
  };
}
