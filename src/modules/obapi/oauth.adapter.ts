import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import { withObApi } from './obapi.tables.js';

/** Models whose rows belong to a grant: revoking the grant (code reuse, RFC 7009) deletes them all. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/** What the service is told of the authorization server's writes, for its audit log. */
export interface OauthWrites {
  saved(model: string, id: string, payload: AdapterPayload): Promise<void>;
  destroyed(model: string, id: string, payload: AdapterPayload | undefined): Promise<void>;
  grantRevoked(grantId: string, accountId: string | undefined): Promise<void>;
}

/**
 * oidc-provider's storage (its Adapter interface) in our database, on both engines: one table of
 * JSON payloads keyed by model and id, with the grant, interaction uid and expiry it looks up by.
 * Every replica reads and writes the same rows, so a flow begun on one finishes on another.
 * Expired rows are never answered, and `oauthPruneJob` deletes them.
 */
export function kyselyAdapter(database: Db, clock: Clock, writes: OauthWrites): new (model: string) => Adapter {
  const db = withObApi(database);
  const now = () => clock.now().toISOString();

  const live = (payload: string | undefined, consumedAt: string | null) => {
    if (payload === undefined) return undefined;
    const parsed = JSON.parse(payload) as AdapterPayload;
    return consumedAt === null ? parsed : { ...parsed, consumed: Math.floor(Date.parse(consumedAt) / 1000) };
  };

  return class KyselyAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      // A registered client lives until its secret expires (RFC 7591 §3.2.1 client_secret_expires_at).
      const secretExpiry = this.model === 'Client' ? Number(payload.client_secret_expires_at ?? 0) : 0;
      const expiresAt = expiresIn
        ? new Date(clock.now().getTime() + expiresIn * 1000).toISOString()
        : secretExpiry > 0
          ? new Date(secretExpiry * 1000).toISOString()
          : null;
      const row = {
        model: this.model,
        id,
        payload: JSON.stringify(payload),
        account_id: payload.accountId ?? null,
        grant_id: GRANTABLE.has(this.model) ? (payload.grantId ?? null) : null,
        uid: payload.uid ?? null,
        user_code: payload.userCode ?? null,
        expires_at: expiresAt,
        consumed_at: null,
      };
      await db
        .insertInto('oauth_payloads')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['model', 'id']).doUpdateSet({
            payload: row.payload,
            account_id: row.account_id,
            grant_id: row.grant_id,
            uid: row.uid,
            user_code: row.user_code,
            expires_at: row.expires_at,
          }),
        )
        .execute();
      await writes.saved(this.model, id, payload);
    }

    private async row(column: 'id' | 'uid' | 'user_code', value: string) {
      const found = await db
        .selectFrom('oauth_payloads')
        .select(['payload', 'consumed_at', 'expires_at'])
        .where('model', '=', this.model)
        .where(column, '=', value)
        .executeTakeFirst();
      if (!found || (found.expires_at !== null && found.expires_at <= now())) return undefined;
      return live(found.payload, found.consumed_at);
    }

    find(id: string) {
      return this.row('id', id);
    }

    findByUid(uid: string) {
      return this.row('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.row('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      await db
        .updateTable('oauth_payloads')
        .set({ consumed_at: now() })
        .where('model', '=', this.model)
        .where('id', '=', id)
        .where('consumed_at', 'is', null)
        .execute();
    }

    async destroy(id: string): Promise<void> {
      const gone = await db
        .deleteFrom('oauth_payloads')
        .where('model', '=', this.model)
        .where('id', '=', id)
        .returning('payload')
        .executeTakeFirst();
      await writes.destroyed(this.model, id, gone ? (JSON.parse(gone.payload) as AdapterPayload) : undefined);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // oidc-provider asks each grantable model's adapter in turn; the first deletes every row of
      // the grant, and only a call that deleted something is reported.
      const gone = await db.deleteFrom('oauth_payloads').where('grant_id', '=', grantId).returning('payload').execute();
      const first = gone[0];
      if (first) await writes.grantRevoked(grantId, (JSON.parse(first.payload) as AdapterPayload).accountId);
    }
  };
}

/** Rows deleted per statement, so pruning a backlog never holds a long write lock. */
const PRUNE_BATCH = 1000;

/**
 * Deletes rows past their expiry, a batch at a time; the adapter never answers them, this keeps the
 * table to live state. Two replicas pruning at once delete disjoint or already-deleted rows: no lock
 * is needed. Returns how many went.
 */
export async function pruneExpired(database: Db, clock: Clock): Promise<number> {
  const db = withObApi(database);
  const now = clock.now().toISOString();
  let total = 0;
  for (;;) {
    const result = await db
      .deleteFrom('oauth_payloads')
      .where((eb) =>
        eb(
          eb.refTuple('model', 'id'),
          'in',
          eb
            .selectFrom('oauth_payloads as expired')
            .select(['expired.model', 'expired.id'])
            .where('expired.expires_at', '<', now)
            .limit(PRUNE_BATCH)
            .$asTuple('model', 'id'),
        ),
      )
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < PRUNE_BATCH) return total;
  }
}
