import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { type SendTables, withSend } from './send.tables.js';

export type RemotePlatformRow = SendTables['earner_remote_platforms'];
export type SendAuthorizationRow = SendTables['earner_send_authorizations'];

/** The SQL of "Send to another platform"; every lookup takes the earner account first. */
export function createSendRepository(root: Kysely<DB>) {
  const db = withSend(root);
  return {
    platformByDiscovery: (accountId: string, discoveryUrl: string) =>
      db
        .selectFrom('earner_remote_platforms')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('discovery_url', '=', discoveryUrl)
        .executeTakeFirst(),

    platform: (accountId: string, id: string) =>
      db
        .selectFrom('earner_remote_platforms')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst(),

    platforms: (accountId: string) =>
      db
        .selectFrom('earner_remote_platforms')
        .select(['id', 'name', 'origin', 'discovery_url', 'last_used_at'])
        .where('account_id', '=', accountId)
        .orderBy('last_used_at', 'desc')
        .execute(),

    /** A registration replaces the account's earlier one of the same discovery URL (an expired secret). */
    async savePlatform(row: RemotePlatformRow) {
      await db
        .deleteFrom('earner_remote_platforms')
        .where('account_id', '=', row.account_id)
        .where('discovery_url', '=', row.discovery_url)
        .execute();
      await db.insertInto('earner_remote_platforms').values(row).execute();
    },

    touchPlatform: (accountId: string, id: string, at: string) =>
      db
        .updateTable('earner_remote_platforms')
        .set({ last_used_at: at })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .execute(),

    saveAuthorization: (row: SendAuthorizationRow) => db.insertInto('earner_send_authorizations').values(row).execute(),

    /**
     * Takes the authorization of `stateHash` for the account's session, once: the one UPDATE that
     * sets `used_at` decides between two callbacks racing on two replicas. Null when it is unknown,
     * another session's, expired or already used.
     */
    async takeAuthorization(
      accountId: string,
      sessionHash: string,
      stateHash: string,
      now: string,
    ): Promise<SendAuthorizationRow | null> {
      const taken = await db
        .updateTable('earner_send_authorizations')
        .set({ used_at: now })
        .where('state_hash', '=', stateHash)
        .where('account_id', '=', accountId)
        .where('session_hash', '=', sessionHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return null;
      return (
        (await db
          .selectFrom('earner_send_authorizations')
          .selectAll()
          .where('state_hash', '=', stateHash)
          .where('account_id', '=', accountId)
          .executeTakeFirst()) ?? null
      );
    },

    /** Counts the starts of the last hour by the account and to the origin, after dropping older ones. */
    async attemptsSince(accountId: string, origin: string, since: string) {
      await db.deleteFrom('earner_send_attempts').where('attempted_at', '<=', since).execute();
      const count = async (column: 'account_id' | 'origin', value: string) =>
        Number(
          (
            await db
              .selectFrom('earner_send_attempts')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where(column, '=', value)
              .executeTakeFirst()
          )?.n ?? 0,
        );
      return { account: await count('account_id', accountId), origin: await count('origin', origin) };
    },

    addAttempt: (accountId: string, origin: string, at: string) =>
      db.insertInto('earner_send_attempts').values({ account_id: accountId, origin, attempted_at: at }).execute(),

    /** Authorizations past their expiry (used or not) and attempts past their hour. */
    async pruneExpired(now: string, hourAgo: string) {
      await db.deleteFrom('earner_send_authorizations').where('expires_at', '<=', now).execute();
      await db.deleteFrom('earner_send_attempts').where('attempted_at', '<=', hourAgo).execute();
    },

    async deleteAccount(accountId: string) {
      await db.deleteFrom('earner_send_authorizations').where('account_id', '=', accountId).execute();
      await db.deleteFrom('earner_send_attempts').where('account_id', '=', accountId).execute();
      await db.deleteFrom('earner_remote_platforms').where('account_id', '=', accountId).execute();
    },
  };
}
