import type { Kysely } from 'kysely';
import { forUpdateSkipLocked } from '../../db/dialect.js';
import type { Db, Dialect, Executor } from '../../db/types.js';
import type {
  LtiLinkContextsTable,
  LtiLinksTable,
  LtiPlatformsTable,
  LtiRegistrationTokensTable,
  LtiTables,
  LtiToolKeysTable,
} from './lti.tables.js';

type LtiDb = Kysely<LtiTables>;
const lti = (db: Db | Executor): LtiDb => db.withTables<LtiTables>() as unknown as LtiDb;

/**
 * The LTI tables. Tenant data is read with the issuer id first; the two lookups without one are how
 * a platform names itself (a launch's `iss` and `aud`, or the platform id the login sealed into the
 * browser's cookie), as an API key names its issuer.
 */
export function createLtiRepository(db: Db, dialect: Dialect) {
  return {
    transaction: <T>(work: (trx: Executor) => Promise<T>) => db.transaction().execute(work),

    /** The holder's live keys, newest first (null: the service's own). */
    liveToolKeys: (issuerId: string | null, executor: Db | Executor = db) => {
      const live = lti(executor).selectFrom('lti_tool_keys').selectAll().where('retired_at', 'is', null);
      return (issuerId === null ? live.where('issuer_id', 'is', null) : live.where('issuer_id', '=', issuerId))
        .orderBy('created_at', 'desc')
        .orderBy('kid', 'desc')
        .execute();
    },
    /** Every key of the JWKS: live, or retired after `retiredAfter`. */
    publishedToolKeys: (retiredAfter: string) =>
      lti(db)
        .selectFrom('lti_tool_keys')
        .selectAll()
        .where((w) => w.or([w('retired_at', 'is', null), w('retired_at', '>', retiredAfter)]))
        .orderBy('created_at', 'desc')
        .execute(),
    insertToolKey: (trx: Executor, row: LtiToolKeysTable) => lti(trx).insertInto('lti_tool_keys').values(row).execute(),
    retireToolKeys: (trx: Executor, issuerId: string | null, exceptKid: string, at: string) => {
      const update = lti(trx)
        .updateTable('lti_tool_keys')
        .set({ retired_at: at })
        .where('kid', '!=', exceptKid)
        .where('retired_at', 'is', null);
      return (
        issuerId === null ? update.where('issuer_id', 'is', null) : update.where('issuer_id', '=', issuerId)
      ).execute();
    },
    /** Forgets the holder's retired keys beyond the `keep` most recently retired. */
    async pruneToolKeys(trx: Executor, issuerId: string | null, keep: number): Promise<void> {
      const retired = lti(trx).selectFrom('lti_tool_keys').select('kid').where('retired_at', 'is not', null);
      const rows = await (issuerId === null
        ? retired.where('issuer_id', 'is', null)
        : retired.where('issuer_id', '=', issuerId)
      )
        .orderBy('retired_at', 'desc')
        .orderBy('kid', 'desc')
        .execute();
      const gone = rows.slice(keep).map((row) => row.kid);
      if (gone.length > 0) await lti(trx).deleteFrom('lti_tool_keys').where('kid', 'in', gone).execute();
    },

    insertRegistrationToken: (trx: Executor, row: LtiRegistrationTokensTable) =>
      lti(trx).insertInto('lti_registration_tokens').values(row).execute(),
    /** Spends a registration token once: the first caller gets its row, every later one nothing. */
    async claimRegistrationToken(
      trx: Executor,
      tokenHash: string,
      now: string,
    ): Promise<LtiRegistrationTokensTable | undefined> {
      return lti(trx)
        .updateTable('lti_registration_tokens')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
    },
    findRegistrationToken: (tokenHash: string) =>
      lti(db).selectFrom('lti_registration_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),

    /** False, with nothing written, when the (platform issuer, client id) pair is held already. */
    async insertPlatform(trx: Executor, row: LtiPlatformsTable, deploymentId: string | null): Promise<boolean> {
      const inserted = await lti(trx)
        .insertInto('lti_platforms')
        .values(row)
        .onConflict((c) => c.columns(['platform_issuer', 'client_id']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      if (deploymentId !== null) {
        await lti(trx)
          .insertInto('lti_deployments')
          .values({
            platform_id: row.id,
            deployment_id: deploymentId,
            issuer_id: row.issuer_id,
            created_at: row.created_at,
          })
          .execute();
      }
      return true;
    },
    platformByClient: (platformIssuer: string, clientId: string) =>
      lti(db)
        .selectFrom('lti_platforms')
        .selectAll()
        .where('platform_issuer', '=', platformIssuer)
        .where('client_id', '=', clientId)
        .executeTakeFirst(),
    platformsOfIssuerUrl: (platformIssuer: string) =>
      lti(db).selectFrom('lti_platforms').selectAll().where('platform_issuer', '=', platformIssuer).limit(2).execute(),
    platformById: (id: string) =>
      lti(db).selectFrom('lti_platforms').selectAll().where('id', '=', id).executeTakeFirst(),
    platform: (issuerId: string, id: string) =>
      lti(db)
        .selectFrom('lti_platforms')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst(),
    platforms: (issuerId: string) =>
      lti(db)
        .selectFrom('lti_platforms')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute(),
    deploymentsOf: (issuerId: string, platformIds: string[]) =>
      platformIds.length === 0
        ? Promise.resolve([])
        : lti(db)
            .selectFrom('lti_deployments')
            .select(['platform_id', 'deployment_id'])
            .where('issuer_id', '=', issuerId)
            .where('platform_id', 'in', platformIds)
            .orderBy('created_at', 'asc')
            .execute(),
    async renamePlatform(trx: Executor, issuerId: string, id: string, name: string): Promise<boolean> {
      const result = await lti(trx)
        .updateTable('lti_platforms')
        .set({ name })
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async updatePlatformEndpoints(
      trx: Executor,
      issuerId: string,
      id: string,
      endpoints: Pick<LtiPlatformsTable, 'auth_login_url' | 'token_url' | 'jwks_uri' | 'token_audience'>,
    ): Promise<boolean> {
      const result = await lti(trx)
        .updateTable('lti_platforms')
        .set(endpoints)
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async removePlatform(trx: Executor, issuerId: string, id: string): Promise<boolean> {
      const result = await lti(trx)
        .deleteFrom('lti_platforms')
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      for (const table of ['lti_deployments', 'lti_link_contexts', 'lti_links'] as const) {
        await lti(trx).deleteFrom(table).where('issuer_id', '=', issuerId).where('platform_id', '=', id).execute();
      }
      await lti(trx).deleteFrom('lti_nonces').where('platform_id', '=', id).execute();
      return true;
    },
    async addDeployment(trx: Executor, issuerId: string, platformId: string, deploymentId: string, at: string) {
      await lti(trx)
        .insertInto('lti_deployments')
        .values({ platform_id: platformId, deployment_id: deploymentId, issuer_id: issuerId, created_at: at })
        .onConflict((c) => c.columns(['platform_id', 'deployment_id']).doNothing())
        .execute();
    },
    hasDeployment: async (platformId: string, deploymentId: string) =>
      (await lti(db)
        .selectFrom('lti_deployments')
        .select('deployment_id')
        .where('platform_id', '=', platformId)
        .where('deployment_id', '=', deploymentId)
        .executeTakeFirst()) !== undefined,

    /** Records a nonce as used; false when it already was (a replayed id_token). */
    async consumeNonce(platformId: string, nonce: string, expiresAt: string): Promise<boolean> {
      const result = await lti(db)
        .insertInto('lti_nonces')
        .values({ platform_id: platformId, nonce, expires_at: expiresAt })
        .onConflict((c) => c.columns(['platform_id', 'nonce']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    pruneNonces: (now: string) => lti(db).deleteFrom('lti_nonces').where('expires_at', '<', now).execute(),

    insertLink: (trx: Executor, row: LtiLinksTable) => lti(trx).insertInto('lti_links').values(row).execute(),
    link: (issuerId: string, platformId: string, id: string) =>
      lti(db)
        .selectFrom('lti_links')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('platform_id', '=', platformId)
        .where('id', '=', id)
        .executeTakeFirst(),

    /** What a launch tells of the link's context: its line item and roster URLs, kept fresh. */
    async recordContext(row: LtiLinkContextsTable): Promise<void> {
      await lti(db)
        .insertInto('lti_link_contexts')
        .values(row)
        .onConflict((c) =>
          c.columns(['link_id', 'deployment_id', 'context_id']).doUpdateSet({
            lineitem_url: row.lineitem_url,
            memberships_url: row.memberships_url,
          }),
        )
        .execute();
    },
    context: (issuerId: string, linkId: string, deploymentId: string, contextId: string) =>
      lti(db)
        .selectFrom('lti_link_contexts')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('link_id', '=', linkId)
        .where('deployment_id', '=', deploymentId)
        .where('context_id', '=', contextId)
        .executeTakeFirst(),

    /**
     * Claims the score-rule contexts due for a sync and moves their next sync `nextAt`, in one short
     * transaction: on PostgreSQL with FOR UPDATE SKIP LOCKED, so replicas never claim the same context
     * and each is read once per interval across them all.
     */
    async claimDueContexts(now: string, nextAt: string, limit: number): Promise<LtiLinkContextsTable[]> {
      return db.transaction().execute(async (trx) => {
        const due = await forUpdateSkipLocked(
          dialect,
          lti(trx)
            .selectFrom('lti_link_contexts')
            .selectAll()
            .where('next_sync_at', '<=', now)
            .where('lineitem_url', 'is not', null)
            .orderBy('next_sync_at', 'asc')
            .limit(limit),
        ).execute();
        for (const row of due) {
          await lti(trx)
            .updateTable('lti_link_contexts')
            .set({ next_sync_at: nextAt, last_synced_at: now })
            .where('link_id', '=', row.link_id)
            .where('deployment_id', '=', row.deployment_id)
            .where('context_id', '=', row.context_id)
            .execute();
        }
        return due;
      });
    },
  };
}

export type LtiRepository = ReturnType<typeof createLtiRepository>;
