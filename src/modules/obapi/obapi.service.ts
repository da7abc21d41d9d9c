import type Provider from 'oidc-provider';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { type AppError, errors } from '../../core/errors.js';
import { canonicalJson, sha256Hex } from '../../core/hashing.js';
import { requireJsonLdBudget } from '../../core/jsonld-budget.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ImportService } from '../backpack/backpack.import.js';
import { ob3View } from '../backpack/backpack.import.js';
import { EARNER_AUDIT_CHAIN } from '../backpack/backpack.service.js';
import type { ClrService } from '../clr/clr.service.js';
import type { VcService } from '../vc/vc.service.js';
import type { OauthWrites } from './oauth.adapter.js';
import { createObApiRepository, type ListedCredential } from './obapi.repository.js';
import { OAUTH, OB_API, SCOPE_DESCRIPTIONS } from './obapi.scopes.js';

/** An access token the API accepts: live, for this API, and its account and client. */
export interface ApiGrant {
  accountId: string;
  clientId: string;
  scopes: Set<string>;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/;
const OB3_CONTEXT = 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json';

/** A client the earner allowed (issue 47 §1 "connected apps"): its name, the scopes granted and when. */
export interface ConnectedApp {
  clientId: string;
  clientName: string;
  clientUri: string | null;
  scopes: string[];
  grantedAt: string;
}

/** A credential an app upserted, as the backpack lists it: what it says, who sent it, its last check. */
export interface UpsertedBadge {
  key: string;
  name: string;
  issuerName: string;
  issuedOn: string | null;
  format: 'json' | 'jws';
  sentBy: string;
  receivedAt: string;
  /** Null until the backpack checked it (then shown not verified). */
  status: 'verified' | 'expired' | 'revoked' | 'suspended' | 'unverified' | null;
  reason: string | null;
  checkedAt: string | null;
}

/** An upserted credential as the API was given it: JSON (stored as that text) or a compact JWS. */
export type Upsert = { format: 'json'; credential: Record<string, unknown> } | { format: 'jws'; jws: string };

function invalid(message: string): AppError {
  return errors.validation(message, [{ path: '', message, code: 'credential' }]);
}

/** The credential's key for equality (OB 3.0 "credential equality and comparison": its `id`), and when it was issued. */
function identify(credential: Record<string, unknown>): { key: string; issuedAt: string } {
  const types = Array.isArray(credential.type) ? credential.type : [credential.type];
  if (
    !types.includes('VerifiableCredential') ||
    !types.some((t) => t === 'AchievementCredential' || t === 'OpenBadgeCredential')
  ) {
    throw invalid('The credential must be a VerifiableCredential and an AchievementCredential (OpenBadgeCredential).');
  }
  if (typeof credential.credentialSubject !== 'object' || credential.credentialSubject === null) {
    throw invalid('The credential has no credentialSubject.');
  }
  const issued = [credential.validFrom, credential.issuanceDate].find(
    (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)),
  );
  const key =
    typeof credential.id === 'string' && credential.id.length <= 2048
      ? credential.id
      : `sha256:${sha256Hex(canonicalJson(credential))}`;
  return { key, issuedAt: new Date(typeof issued === 'string' ? issued : 0).toISOString() };
}

/** The VC-JWT payload's credential (OB 3.0 §8.2: the claims are the credential itself, or `vc`). */
function jwsCredential(jws: string): Record<string, unknown> {
  if (!COMPACT_JWS.test(jws) || jws.length > 1024 * 1024) throw invalid('The body is not a compact JWS.');
  try {
    const payload = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    const vc =
      typeof payload.vc === 'object' && payload.vc !== null ? (payload.vc as Record<string, unknown>) : payload;
    return { ...vc, ...(typeof payload.jti === 'string' && vc.id === undefined ? { id: payload.jti } : {}) };
  } catch {
    throw invalid('The JWS payload is not a JSON credential.');
  }
}

/**
 * The Open Badges API's resource side (OB 3.0 §6): the signed-in earner's credentials (every
 * issuer's credential linked to the account, in the signed Data Integrity form, and what clients
 * upserted, as they sent it), their upserts and their Profile. Every change is audited in the
 * earners' chain, naming the earner and the client acting for them.
 */
export function createObApiService(
  core: Pick<Core, 'db' | 'clock' | 'config'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    vc: Pick<VcService, 'credential'>;
    clr: Pick<ClrService, 'signedForAccount'>;
    imports: Pick<ImportService, 'checkHeld'>;
    provider: () => Promise<Provider>;
  },
) {
  const repo = createObApiRepository(core.db);
  const resource = `${core.config.publicBaseUrl}${OB_API}`;

  async function record(
    actor: string,
    action: string,
    targetType: string,
    targetId: string,
    details: Record<string, unknown>,
  ) {
    await core.db
      .transaction()
      .execute((trx) =>
        deps.audit.append(trx, { issuerId: EARNER_AUDIT_CHAIN, actor, action, targetType, targetId, details }),
      );
  }

  /** The authorization server's writes worth a record: registrations, tokens issued and revoked, grants revoked. */
  const writes: OauthWrites = {
    async saved(model, id, payload) {
      if (model === 'Client') {
        await record('anonymous', 'oauth_client.registered', 'oauth_client', id, {
          clientName: payload.client_name ?? null,
        });
      } else if (model === 'AccessToken' && payload.accountId) {
        await record(`earner:${payload.accountId}`, 'oauth_token.issued', 'oauth_grant', String(payload.grantId), {
          clientId: payload.clientId,
          scope: payload.scope ?? null,
        });
      }
    },
    async destroyed(model, _id, payload) {
      if ((model === 'AccessToken' || model === 'RefreshToken') && payload?.accountId) {
        await record(`earner:${payload.accountId}`, 'oauth_token.revoked', 'oauth_grant', String(payload.grantId), {
          clientId: payload.clientId,
          token: model,
        });
      }
    },
    async grantRevoked(grantId, accountId) {
      await record(accountId ? `earner:${accountId}` : 'system', 'oauth_grant.revoked', 'oauth_grant', grantId, {});
    },
  };

  return {
    writes,
    resource,

    /**
     * The Service Description Document (OB 3.0 §6.3; ServiceDescriptionDocument): an OpenAPI 3.0
     * document whose OAuth2ACG security scheme names the registration, authorization, token and
     * refresh URLs and the four scopes.
     */
    serviceDescription() {
      const base = core.config.publicBaseUrl;
      const trust = `${base}/api/v1/trust/controls`;
      return {
        openapi: '3.0.1',
        info: {
          title: 'Accolade Open Badges API',
          version: '3.0',
          description:
            'The Open Badges API (1EdTech Open Badges 3.0 §6) of this service: an earner’s credentials and profile. A client registers without an initial access token; its secret expires after 30 days (client_secret_expires_at in the registration response), and it then registers again.',
          termsOfService: trust,
          'x-imssf-privacyPolicyUrl': trust,
        },
        servers: [{ url: `${base}${OB_API}` }],
        paths: {
          '/credentials': {
            get: { operationId: 'getCredentials', security: [{ OAuth2ACG: [Object.keys(SCOPE_DESCRIPTIONS)[0]] }] },
            post: { operationId: 'upsertCredential', security: [{ OAuth2ACG: [Object.keys(SCOPE_DESCRIPTIONS)[1]] }] },
          },
          '/profile': {
            get: { operationId: 'getProfile', security: [{ OAuth2ACG: [Object.keys(SCOPE_DESCRIPTIONS)[2]] }] },
            put: { operationId: 'putProfile', security: [{ OAuth2ACG: [Object.keys(SCOPE_DESCRIPTIONS)[3]] }] },
          },
          '/discovery': { get: { operationId: 'getServiceDescription' } },
        },
        components: {
          securitySchemes: {
            OAuth2ACG: {
              type: 'oauth2',
              description: 'OAuth 2.0 Authorization Code Grant authorization',
              'x-imssf-name': 'Accolade',
              'x-imssf-privacyPolicyUrl': trust,
              'x-imssf-registrationUrl': `${base}${OAUTH}/register`,
              'x-imssf-termsOfServiceUrl': trust,
              flows: {
                authorizationCode: {
                  tokenUrl: `${base}${OAUTH}/token`,
                  authorizationUrl: `${base}${OAUTH}/authorize`,
                  refreshUrl: `${base}${OAUTH}/token`,
                  scopes: SCOPE_DESCRIPTIONS,
                },
              },
            },
          },
          schemas: {},
        },
      };
    },

    /** The earner allowed a client the scopes: the grant is saved, and recorded. */
    async consentGranted(accountId: string, grantId: string, clientId: string, scopes: string[]) {
      await record(`earner:${accountId}`, 'oauth.consent_granted', 'oauth_grant', grantId, {
        clientId,
        scope: scopes.join(' '),
      });
    },

    /** The grant an `Authorization: Bearer` access token carries, or null (unknown, expired, another resource's). */
    async grantOf(token: string | null): Promise<ApiGrant | null> {
      if (!token || token.length > 200) return null;
      const found = await (await deps.provider()).AccessToken.find(token);
      if (!found || found.isExpired || !found.accountId || found.aud !== resource) return null;
      return {
        accountId: found.accountId,
        clientId: found.clientId ?? '',
        scopes: new Set((found.scope ?? '').split(' ')),
      };
    },

    /** A page of the account's credentials and how many there are (OB 3.0 §6.2.1 getCredentials). */
    async credentials(accountId: string, page: { limit: number; offset: number; since: string | null }) {
      // The account's CLR 2.0 ClrCredentials are its credentials too (issue 47 §3), in the same order.
      const [listed, records] = await Promise.all([
        repo.list(accountId, page.since),
        deps.clr.signedForAccount(accountId, page.since),
      ]);
      const clrs = new Map(records.map((r) => [r.id, r.credential]));
      const all: (Omit<ListedCredential, 'source'> & { source: ListedCredential['source'] | 'clr' })[] = [
        ...listed,
        ...records.map((r) => ({ source: 'clr' as const, key: r.id, issuerSlug: null, issuedAt: r.issuedAt })),
      ].sort((x, y) => (x.issuedAt === y.issuedAt ? (x.key < y.key ? -1 : 1) : x.issuedAt < y.issuedAt ? -1 : 1));
      const slice = all.slice(page.offset, page.offset + page.limit);
      const upserted = new Map(
        (
          await repo.upsertedBodies(
            accountId,
            slice.filter((c) => c.source === 'upserted').map((c) => c.key),
          )
        ).map((r) => [r.credential_key, r]),
      );
      const credential: Record<string, unknown>[] = [];
      const compactJwsString: string[] = [];
      for (const item of slice) {
        const clr = item.source === 'clr' ? clrs.get(item.key) : undefined;
        if (clr) {
          credential.push(clr);
          continue;
        }
        if (item.source === 'issued') {
          const signed = await deps.vc.credential(item.issuerSlug as string, item.key);
          credential.push(JSON.parse(signed.dataIntegrity) as Record<string, unknown>);
          continue;
        }
        const row = upserted.get(item.key);
        if (row?.format === 'jws') compactJwsString.push(row.body);
        else if (row) credential.push(JSON.parse(row.body) as Record<string, unknown>);
      }
      return { total: all.length, credential, compactJwsString };
    },

    /** OB 3.0 §6.2.2 upsertCredential: created (true) or replaced (false), keyed by the credential's id. */
    async upsert(grant: ApiGrant, input: Upsert): Promise<{ created: boolean }> {
      const credential = input.format === 'jws' ? jwsCredential(input.jws) : input.credential;
      requireJsonLdBudget(credential);
      const { key, issuedAt } = identify(credential);
      const body = input.format === 'jws' ? input.jws : JSON.stringify(input.credential);
      const now = isoNow(core.clock);
      const created = !(await repo.findUpserted(grant.accountId, key));
      await core.db.transaction().execute(async (trx) => {
        await createObApiRepository(trx).saveUpserted({
          account_id: grant.accountId,
          credential_key: key,
          format: input.format,
          body,
          issued_at: issuedAt,
          created_at: now,
          updated_at: now,
          client_id: grant.clientId,
        });
        await deps.audit.append(trx, {
          issuerId: EARNER_AUDIT_CHAIN,
          actor: `earner:${grant.accountId}`,
          action: 'obapi.credential_upserted',
          targetType: 'earner_account',
          targetId: grant.accountId,
          details: { clientId: grant.clientId, created, format: input.format },
        });
      });
      return { created };
    },

    /** OB 3.0 §6.2.3 getProfile: as last PUT, else the account's bare Profile. */
    async profile(accountId: string): Promise<Record<string, unknown>> {
      const stored = await repo.profile(accountId);
      if (stored) return JSON.parse(stored.profile) as Record<string, unknown>;
      return { '@context': [OB3_CONTEXT], type: ['Profile'], id: `urn:uuid:${accountId}` };
    },

    /** OB 3.0 §6.2.4 putProfile: the whole Profile, kept as sent. */
    async putProfile(grant: ApiGrant, profile: Record<string, unknown>): Promise<Record<string, unknown>> {
      requireJsonLdBudget(profile);
      const types = Array.isArray(profile.type) ? profile.type : [profile.type];
      if (!types.includes('Profile')) throw invalid('The body must be a Profile (type Profile).');
      const now = isoNow(core.clock);
      await core.db.transaction().execute(async (trx) => {
        await createObApiRepository(trx).saveProfile(grant.accountId, JSON.stringify(profile), now);
        await deps.audit.append(trx, {
          issuerId: EARNER_AUDIT_CHAIN,
          actor: `earner:${grant.accountId}`,
          action: 'obapi.profile_updated',
          targetType: 'earner_account',
          targetId: grant.accountId,
          details: { clientId: grant.clientId },
        });
      });
      return profile;
    },

    /**
     * What apps upserted into the account (issue 47 §1), for the backpack page: each with the name
     * of the app that sent it (its RFC 7591 client_name, or its id once the registration is gone)
     * and the outcome of its last check; never checked is null, which the page shows as not verified.
     */
    async upsertedForAccount(accountId: string): Promise<UpsertedBadge[]> {
      const rows = await repo.upserted(accountId);
      const ids = [...new Set(rows.map((row) => row.client_id).filter((id): id is string => id !== null))];
      const names = new Map(
        (await repo.clients(ids)).map((row) => [
          row.id,
          (JSON.parse(row.payload) as { client_name?: string }).client_name,
        ]),
      );
      return rows.map((row) => {
        let view: ReturnType<typeof ob3View> | null;
        try {
          view = ob3View(
            row.format === 'jws' ? jwsCredential(row.body) : (JSON.parse(row.body) as Record<string, unknown>),
          );
        } catch {
          view = null;
        }
        return {
          key: row.credential_key,
          name: view?.name ?? 'Open Badges 3.0 badge',
          issuerName: view?.issuerName ?? 'Unknown issuer',
          issuedOn: view?.issuedOn ?? null,
          format: row.format,
          sentBy: row.client_id ? (names.get(row.client_id) ?? row.client_id) : 'an app',
          receivedAt: row.updated_at,
          status: row.status as UpsertedBadge['status'],
          reason: row.reason,
          checkedAt: row.checked_at,
        };
      });
    },

    /**
     * Checks an upserted credential as an import is checked (its proof, issuer DID, status list and
     * recipient against the signed-in address), from the account's hourly share of checks, and
     * keeps the outcome; audited. False when the account holds no such credential.
     */
    async checkUpserted(accountId: string, address: string | null, key: string): Promise<boolean> {
      const row = await repo.upsertedBody(accountId, key);
      if (!row) return false;
      const outcome = await deps.imports.checkHeld(accountId, address, row.body);
      const at = isoNow(core.clock);
      await core.db.transaction().execute(async (trx) => {
        await createObApiRepository(trx).saveCheck(accountId, key, row.updated_at, { ...outcome, checked_at: at });
        await deps.audit.append(trx, {
          issuerId: EARNER_AUDIT_CHAIN,
          actor: `earner:${accountId}`,
          action: 'obapi.credential_checked',
          targetType: 'earner_account',
          targetId: accountId,
          details: { status: outcome.status },
        });
      });
      return true;
    },

    /**
     * The clients the account has granted (its live `Grant` rows), each with the union of the
     * scopes of its grants and the first time one was given, oldest first.
     */
    async connectedApps(accountId: string): Promise<ConnectedApp[]> {
      const grants = await repo.grants(accountId, isoNow(core.clock));
      const byClient = new Map<string, { scopes: Set<string>; iat: number }>();
      for (const row of grants) {
        const grant = JSON.parse(row.payload) as {
          clientId?: string;
          iat?: number;
          resources?: Record<string, string>;
        };
        if (typeof grant.clientId !== 'string') continue;
        const entry = byClient.get(grant.clientId) ?? { scopes: new Set<string>(), iat: grant.iat ?? 0 };
        for (const scope of Object.values(grant.resources ?? {}).flatMap((s) => s.split(' '))) {
          if (scope) entry.scopes.add(scope);
        }
        entry.iat = Math.min(entry.iat, grant.iat ?? entry.iat);
        byClient.set(grant.clientId, entry);
      }
      const clients = new Map(
        (await repo.clients([...byClient.keys()])).map((row) => [
          row.id,
          JSON.parse(row.payload) as { client_name?: string; client_uri?: string },
        ]),
      );
      return [...byClient.entries()]
        .map(([clientId, entry]) => ({
          clientId,
          clientName: clients.get(clientId)?.client_name ?? clientId,
          clientUri: clients.get(clientId)?.client_uri ?? null,
          scopes: [...entry.scopes].sort(),
          grantedAt: new Date(entry.iat * 1000).toISOString(),
        }))
        .sort((x, y) =>
          x.grantedAt === y.grantedAt ? (x.clientId < y.clientId ? -1 : 1) : x.grantedAt < y.grantedAt ? -1 : 1,
        );
    },

    /**
     * "Revoke access" (issue 47 §1): every grant the account gave the client ends, through the
     * authorization server's own models and so our adapter: the grant's tokens and codes
     * (`revokeByGrantId`, as RFC 7009 revocation does) and the Grant itself. The client's access
     * and refresh tokens are refused from then on. Recorded in the earners' chain; false when the
     * account had granted the client nothing.
     */
    async revokeApp(accountId: string, clientId: string): Promise<boolean> {
      const provider = await deps.provider();
      const grants = (await repo.grants(accountId, isoNow(core.clock))).filter(
        (row) => (JSON.parse(row.payload) as { clientId?: string }).clientId === clientId,
      );
      if (grants.length === 0) return false;
      for (const row of grants) {
        await provider.AccessToken.adapter.revokeByGrantId(row.id);
        const grant = await provider.Grant.find(row.id);
        await grant?.destroy();
      }
      await record(`earner:${accountId}`, 'oauth_client.access_revoked', 'oauth_client', clientId, {
        grants: grants.map((row) => row.id),
      });
      return true;
    },

    /**
     * Ends the authorization server's login sessions of the account (its `Session` rows), so a
     * backpack sign-out is one from the authorization server too; grants and tokens stay, as the
     * earner gave them (connected apps end them).
     */
    endLoginSessions: (executor: Parameters<typeof createObApiRepository>[0], accountId: string) =>
      createObApiRepository(executor).deleteLoginSessions(accountId),

    deleteAccountData: (executor: Parameters<typeof createObApiRepository>[0], accountId: string) =>
      createObApiRepository(executor).deleteAccountData(accountId),
  };
}

export type ObApiService = ReturnType<typeof createObApiService>;
