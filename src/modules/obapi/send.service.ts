import * as oidc from 'openid-client';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import type { Executor } from '../../db/types.js';
import type { AuditService } from '../audit/audit.service.js';
import type { BackpackSecrets } from '../backpack/backpack.secrets.js';
import { EARNER_AUDIT_CHAIN } from '../backpack/backpack.service.js';
import type { VcService } from '../vc/vc.service.js';
import type { LookupFn } from '../webhooks/ssrf.js';
import { createObApiRepository } from './obapi.repository.js';
import { SCOPES } from './obapi.scopes.js';
import {
  clientConfiguration,
  composeServerMetadata,
  discoveryUrlOf,
  RemoteRefusal,
  readServiceDescription,
  refusalOf,
  registerClient,
  sendTransport,
} from './send.client.js';
import { createSendRepository, type RemotePlatformRow } from './send.repository.js';
import { sendSealer } from './send.seal.js';

/** The backpack's callback of every send: one redirect URI per registration. */
export const SEND_CALLBACK_PATH = '/backpack/send/callback';
/** RFC 6749 §10.12: an authorization in flight lives ten minutes, as the remote's code does. */
const AUTHORIZATION_MINUTES = 10;
/** Badges one send may carry: each is one upsert at the other platform. */
export const SEND_CREDENTIALS_MAX = 20;
/** Sends an earner may start an hour, and sends every earner together may start to one platform. */
export const SENDS_PER_ACCOUNT_HOUR = 10;
export const SENDS_PER_ORIGIN_HOUR = 60;
const HOUR_MS = 3_600_000;
/** A registration whose secret expires sooner than this is replaced before a send starts. */
const SECRET_MARGIN_S = 15 * 60;
const STATE_LENGTH = 43;
const VERIFIER_LENGTH = 64;

/** A credential of the account: issued here (`slug`, its issuer's) or upserted into it by an app (`slug` null). */
interface OwnCredential {
  id: string;
  slug: string | null;
}

export interface SendOutcome {
  credentialId: string;
  outcome: 'created' | 'replaced' | 'failed';
  reason: string | null;
}

export interface SendSummary {
  host: string;
  name: string;
  results: SendOutcome[];
  revoked: boolean;
}

/**
 * "Send to another platform" (issue 47; OB 3.0 §6 as a Service Consumer (Write)): the backpack
 * reads the other host's Service Description Document, registers with it once per earner (RFC
 * 7591), sends the earner through its authorization (authorization code, PKCE S256, state) and,
 * back at the callback, upserts the chosen credentials and revokes the tokens (RFC 7009). Every
 * outbound call goes through the SSRF guard; every step is in the earners' audit chain.
 */
export function createSendService(
  core: Pick<Core, 'db' | 'clock' | 'config' | 'ids'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    vc: Pick<VcService, 'credential'>;
    secrets: Pick<BackpackSecrets, 'derive'>;
    lookup: LookupFn;
  },
) {
  const repo = createSendRepository(core.db);
  const sealer = sendSealer(deps.secrets);
  const allowPrivate = core.config.webhookAllowPrivate;
  const transport = sendTransport({ allowPrivate, lookup: deps.lookup });
  const callbackUrl = `${core.config.publicBaseUrl}${SEND_CALLBACK_PATH}`;

  const audit = (
    executor: Executor,
    accountId: string,
    action: string,
    targetId: string,
    details: Record<string, unknown>,
  ) =>
    deps.audit.append(executor, {
      issuerId: EARNER_AUDIT_CHAIN,
      actor: `earner:${accountId}`,
      action,
      targetType: 'remote_platform',
      targetId,
      details,
    });

  /** A send the other platform ended (or could not begin): recorded with its reason, then raised. */
  async function refused(
    accountId: string,
    origin: string,
    targetId: string,
    step: 'start' | 'callback',
    error: unknown,
  ): Promise<never> {
    const refusal = refusalOf(new URL(origin).host, error);
    await core.db
      .transaction()
      .execute((trx) =>
        audit(trx, accountId, 'backpack_send.refused', targetId, { origin, step, reason: refusal.message }),
      );
    throw refusal;
  }

  /**
   * The account's credentials, as its OB API lists them: each issued here (with its issuer's slug)
   * and each an app upserted into the backpack, by credential id.
   */
  async function ownCredentials(accountId: string): Promise<Map<string, OwnCredential>> {
    return new Map(
      (await createObApiRepository(core.db).list(accountId, null)).map((c) => [
        c.key,
        c.source === 'issued' ? { id: c.key, slug: c.issuerSlug as string } : { id: c.key, slug: null },
      ]),
    );
  }

  /** The credential as the OB API's GET answers it here: the signed JSON of one issued here, an upserted one as it was sent. */
  async function sentForm(
    accountId: string,
    credential: OwnCredential,
  ): Promise<{ body: string; type: string } | null> {
    if (credential.slug !== null) {
      return {
        body: (await deps.vc.credential(credential.slug, credential.id)).dataIntegrity,
        type: 'application/json',
      };
    }
    const [row] = await createObApiRepository(core.db).upsertedBodies(accountId, [credential.id]);
    if (!row) return null;
    return { body: row.body, type: row.format === 'jws' ? 'text/plain' : 'application/json' };
  }

  /** One start of the account's and the origin's hourly shares, counted in the database; 429 past either. */
  async function spend(accountId: string, origin: string) {
    const now = core.clock.now();
    const used = await repo.attemptsSince(accountId, origin, new Date(now.getTime() - HOUR_MS).toISOString());
    if (used.account >= SENDS_PER_ACCOUNT_HOUR) {
      throw new AppError(
        'rate_limited',
        `A backpack starts at most ${SENDS_PER_ACCOUNT_HOUR} sends an hour; try again later.`,
      );
    }
    if (used.origin >= SENDS_PER_ORIGIN_HOUR) {
      throw new AppError('rate_limited', `Too many sends to ${new URL(origin).host} this hour; try again later.`);
    }
    await repo.addAttempt(accountId, origin, now.toISOString());
  }

  function platformClient(platform: RemotePlatformRow): oidc.Configuration {
    const secret = platform.client_secret_sealed ? sealer.open(platform.client_secret_sealed, platform.id) : null;
    return clientConfiguration(
      JSON.parse(platform.server_metadata) as oidc.ServerMetadata,
      JSON.parse(platform.registration) as oidc.ClientMetadata,
      secret,
      transport,
      allowPrivate,
    );
  }

  /** The account's registration at the platform of `discoveryUrl`: the stored one while its secret lasts, else a new one. */
  async function registration(accountId: string, discoveryUrl: string, host: string): Promise<RemotePlatformRow> {
    const nowS = Math.floor(core.clock.now().getTime() / 1000);
    const stored = await repo.platformByDiscovery(accountId, discoveryUrl);
    const lasts = (row: RemotePlatformRow) =>
      row.client_secret_expires_at === null || Number(row.client_secret_expires_at) > nowS + SECRET_MARGIN_S;
    if (stored && lasts(stored)) return stored;

    const discovered = await transport.get(discoveryUrl);
    if (discovered.status !== 200) {
      throw new RemoteRefusal(
        `${host} has no Open Badges 3.0 discovery document at ${discoveryUrl} (HTTP ${discovered.status}).`,
      );
    }
    const service = readServiceDescription(host, discovered.json, allowPrivate);
    const server = await composeServerMetadata(service, transport);
    // OB 3.0 §6 registration request: the client as the earner will see it on the consent page.
    const client = await registerClient(
      server,
      {
        client_name: `${new URL(core.config.publicBaseUrl).host} backpack`,
        client_uri: core.config.publicBaseUrl,
        redirect_uris: [callbackUrl],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: SCOPES.credentialUpsert,
        software_id: 'accolade-backpack',
        software_version: '3.0',
      },
      transport,
      allowPrivate,
    );
    const id = core.ids.uuid();
    const at = isoNow(core.clock);
    const secret = client.client_secret;
    const kept = Object.fromEntries(
      Object.entries(client).filter(([name]) => name !== 'client_secret' && name !== 'registration_access_token'),
    );
    const row: RemotePlatformRow = {
      id,
      account_id: accountId,
      discovery_url: discoveryUrl,
      origin: new URL(discoveryUrl).origin,
      name: service.name,
      server_metadata: JSON.stringify(server),
      api_base: service.apiBase,
      client_id: client.client_id,
      client_secret_sealed: typeof secret === 'string' ? sealer.seal(secret, id) : null,
      client_secret_expires_at:
        typeof client.client_secret_expires_at === 'number' && client.client_secret_expires_at > 0
          ? String(client.client_secret_expires_at)
          : null,
      registration: JSON.stringify(kept),
      created_at: at,
      last_used_at: at,
    };
    await core.db.transaction().execute(async (trx) => {
      await createSendRepository(trx).savePlatform(row);
      await audit(trx, accountId, 'backpack_send.registered', id, {
        origin: row.origin,
        clientId: row.client_id,
        replaced: stored !== undefined,
      });
    });
    return row;
  }

  return {
    /** The platforms the account registered with, latest first, for the page to offer again. */
    platforms: (accountId: string) => repo.platforms(accountId),

    /**
     * Starts a send: checks the badges are the earner's, prices the start, registers with the
     * platform (or reuses the registration) and keeps the authorization in flight; the answer is
     * the remote authorization URL (code, PKCE S256, state, scope credential.upsert).
     */
    async start(
      session: { accountId: string; tokenHash: string },
      input: { address: string; credentialIds: string[] },
    ): Promise<{ authorizationUrl: string; host: string; name: string }> {
      const ids = [...new Set(input.credentialIds)];
      if (ids.length === 0) throw new AppError('validation_failed', 'Choose at least one badge to send.');
      if (ids.length > SEND_CREDENTIALS_MAX) {
        throw new AppError('validation_failed', `A send carries at most ${SEND_CREDENTIALS_MAX} badges.`);
      }
      const own = await ownCredentials(session.accountId);
      if (ids.some((id) => !own.has(id))) {
        throw new AppError('validation_failed', 'Choose badges of your own backpack to send.');
      }
      const discoveryUrl = discoveryUrlOf(input.address);
      if (!discoveryUrl) {
        throw new AppError('validation_failed', 'Enter the other platform’s address, such as https://badges.example.');
      }
      const { host, origin } = new URL(discoveryUrl);
      await spend(session.accountId, origin);
      let platform: RemotePlatformRow;
      let authorizationUrl: URL;
      const state = core.ids.token(STATE_LENGTH);
      const verifier = core.ids.token(VERIFIER_LENGTH);
      try {
        platform = await registration(session.accountId, discoveryUrl, host);
        authorizationUrl = oidc.buildAuthorizationUrl(platformClient(platform), {
          redirect_uri: callbackUrl,
          scope: SCOPES.credentialUpsert,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
        });
      } catch (error) {
        return refused(session.accountId, origin, discoveryUrl, 'start', error);
      }
      const now = core.clock.now();
      const stateHash = sha256Hex(state);
      await core.db.transaction().execute(async (trx) => {
        await createSendRepository(trx).saveAuthorization({
          state_hash: stateHash,
          account_id: session.accountId,
          session_hash: session.tokenHash,
          platform_id: platform.id,
          code_verifier_sealed: sealer.seal(verifier, stateHash),
          credential_ids: JSON.stringify(ids),
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + AUTHORIZATION_MINUTES * 60_000).toISOString(),
          used_at: null,
        });
        await audit(trx, session.accountId, 'backpack_send.authorization_started', platform.id, {
          origin: platform.origin,
          credentials: ids.length,
        });
      });
      return { authorizationUrl: authorizationUrl.toString(), host, name: platform.name };
    },

    /**
     * The callback of a send: the state taken once, for the session that started it; the code
     * exchanged (with the PKCE verifier); each badge upserted in the form the OB API answers it
     * (the signed JSON); the access token revoked. The outcome per badge is kept in the audit chain.
     */
    async finish(session: { accountId: string; tokenHash: string }, query: string): Promise<SendSummary> {
      const params = new URLSearchParams(query);
      const state = params.get('state');
      const unusable = new AppError(
        'validation_failed',
        'This send is unknown, over or was started in another session; start it again from your backpack.',
      );
      if (!state || state.length > 200) throw unusable;
      const stateHash = sha256Hex(state);
      const taken = await repo.takeAuthorization(session.accountId, session.tokenHash, stateHash, isoNow(core.clock));
      if (!taken) throw unusable;
      const platform = await repo.platform(session.accountId, taken.platform_id);
      const verifier = sealer.open(taken.code_verifier_sealed, stateHash);
      if (!platform || !verifier) throw unusable;
      const host = new URL(platform.origin).host;
      const config = platformClient(platform);
      let tokens: oidc.TokenEndpointResponse;
      try {
        tokens = await oidc.authorizationCodeGrant(config, new URL(`${callbackUrl}?${query}`), {
          pkceCodeVerifier: verifier,
          expectedState: state,
        });
      } catch (error) {
        return refused(session.accountId, platform.origin, platform.id, 'callback', error);
      }

      // Read again: a badge unlinked since the start (the account deleted and made anew) is not sent.
      const own = await ownCredentials(session.accountId);
      const results: SendOutcome[] = [];
      for (const id of JSON.parse(taken.credential_ids) as string[]) {
        const credential = own.get(id);
        const form = credential ? await sentForm(session.accountId, credential) : null;
        results.push(
          form
            ? await upsertOne(config, platform, tokens.access_token, id, form, host)
            : { credentialId: id, outcome: 'failed', reason: 'It is no longer in your backpack.' },
        );
      }
      const revoked = await revoke(config, tokens);
      const count = (outcome: SendOutcome['outcome']) => results.filter((r) => r.outcome === outcome).length;
      await core.db.transaction().execute(async (trx) => {
        await createSendRepository(trx).touchPlatform(session.accountId, platform.id, isoNow(core.clock));
        await audit(trx, session.accountId, 'backpack_send.sent', platform.id, {
          origin: platform.origin,
          created: count('created'),
          replaced: count('replaced'),
          failed: count('failed'),
        });
        await audit(trx, session.accountId, 'backpack_send.tokens_revoked', platform.id, {
          origin: platform.origin,
          revoked,
        });
      });
      return { host, name: platform.name, results, revoked };
    },

    /** Authorizations past their ten minutes and starts past their hour; every replica may run it. */
    async pruneExpired() {
      const now = core.clock.now();
      await repo.pruneExpired(now.toISOString(), new Date(now.getTime() - HOUR_MS).toISOString());
    },

    deleteAccount: (executor: Executor, accountId: string) => createSendRepository(executor).deleteAccount(accountId),
  };

  /** OB 3.0 §6.2.2 upsertCredential at the platform: 201 created, 200 replaced, anything else a failure with its reason. */
  async function upsertOne(
    config: oidc.Configuration,
    platform: RemotePlatformRow,
    accessToken: string,
    credentialId: string,
    form: { body: string; type: string },
    host: string,
  ): Promise<SendOutcome> {
    const failed = (reason: string): SendOutcome => ({ credentialId, outcome: 'failed', reason });
    let response: Response;
    try {
      response = await oidc.fetchProtectedResource(
        config,
        accessToken,
        new URL(`${platform.api_base}/credentials`),
        'POST',
        form.body,
        new Headers({ 'content-type': form.type, accept: 'application/json, text/plain;q=0.9' }),
      );
    } catch (error) {
      if (error instanceof oidc.WWWAuthenticateChallengeError) response = error.response;
      else return failed(refusalOf(host, error).message);
    }
    if (response.status === 201) return { credentialId, outcome: 'created', reason: null };
    if (response.status === 200) return { credentialId, outcome: 'replaced', reason: null };
    let description = '';
    try {
      const body = (await response.json()) as { imsx_description?: unknown };
      if (typeof body.imsx_description === 'string') description = `: ${body.imsx_description.slice(0, 200)}`;
    } catch {
      description = '';
    }
    return failed(`${host} answered HTTP ${response.status}${description}`);
  }

  /** RFC 7009: the tokens of a finished send are revoked, refresh token first; false when the platform names no endpoint or refused. */
  async function revoke(config: oidc.Configuration, tokens: oidc.TokenEndpointResponse): Promise<boolean> {
    if (!config.serverMetadata().revocation_endpoint) return false;
    try {
      if (tokens.refresh_token) {
        await oidc.tokenRevocation(config, tokens.refresh_token, { token_type_hint: 'refresh_token' });
      }
      await oidc.tokenRevocation(config, tokens.access_token, { token_type_hint: 'access_token' });
      return true;
    } catch {
      return false;
    }
  }
}

export type SendService = ReturnType<typeof createSendService>;
