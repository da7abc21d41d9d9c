import { createHash, randomBytes } from 'node:crypto';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { AppError, errors } from '../../core/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import { parseTargetUrl, UnsafeTargetError } from '../webhooks/ssrf.js';
import { MESSAGE, PATHS, PLATFORM_CONFIGURATION, SCOPE, TOOL_CONFIGURATION } from './lti.constants.js';
import { PlatformCallError, type PlatformHttp } from './lti.http.js';
import type { LtiRepository } from './lti.repository.js';
import type { LtiPlatformsTable } from './lti.tables.js';

/** A registration URL works once, within this time. */
export const REGISTRATION_TTL_MS = 60 * 60 * 1000;
const TOOL_NAME = 'Accolade badges';

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface PlatformInput {
  name: string;
  platformIssuer: string;
  clientId: string;
  deploymentId: string;
  authLoginUrl: string;
  tokenUrl: string;
  jwksUri: string;
  tokenAudience?: string;
}

/**
 * A platform is named by its (issuer, client id) across the whole service, as its launches name it
 * (LTI Core 1.3 §5.1.2: `iss` and `aud`), so the first issuer to register a pair holds it and every
 * later claim, by this issuer or another, is a 409. Nothing is said of who holds it: another issuer's
 * platform answers like a taken one. docs/decisions.md ("LTI: one holder per (iss, client_id)").
 */
function platformExists(ours: boolean): AppError {
  return new AppError(
    'lti_platform_exists',
    ours
      ? 'This issuer has already registered a platform with this issuer and client id; add a deployment id to it instead.'
      : 'A platform with this issuer and client id is already registered with this Accolade service. Ask the LMS administrator for a new registration (a new client id) for this issuer, or the service operator if this client id is yours.',
  );
}

export class RegistrationFailed extends Error {
  override name = 'RegistrationFailed';
}

/** The tool's own URLs: what Dynamic Registration sends and what an LMS without it is given to paste. */
export function toolUrls(publicBaseUrl: string) {
  return {
    domain: new URL(publicBaseUrl).host,
    loginUrl: `${publicBaseUrl}${PATHS.login}`,
    launchUrl: `${publicBaseUrl}${PATHS.launch}`,
    jwksUrl: `${publicBaseUrl}${PATHS.jwks}`,
    deepLinkingUrl: `${publicBaseUrl}${PATHS.launch}`,
    scopes: [SCOPE.lineItem, SCOPE.resultReadonly, SCOPE.memberships],
    claims: ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'],
  };
}

function platformView(row: LtiPlatformsTable, deployments: string[]) {
  return {
    id: row.id,
    name: row.name,
    platformIssuer: row.platform_issuer,
    clientId: row.client_id,
    deploymentIds: deployments,
    authLoginUrl: row.auth_login_url,
    tokenUrl: row.token_url,
    jwksUri: row.jwks_uri,
    tokenAudience: row.token_audience,
    createdAt: row.created_at,
  };
}

/**
 * LTI-DR 1.0 §3.5.1 "Issuer and OpenID Configuration URL Match": the openid configuration must be
 * served under the issuer it names, or any site could claim to be any platform. "Under" is decided
 * on parsed URLs, never on strings: the same origin (scheme, host and port, exactly; OpenID Connect
 * Discovery 1.0 §4.3 holds the issuer identical to the URL it was discovered from), and the issuer's
 * path a whole-segment prefix of the configuration's path, so `https://lms.example.evil.test` is not
 * under `https://lms.example` and `/tenant10/...` is not under `/tenant1`. The issuer itself is an
 * https URL without query or fragment (OpenID Connect Core 1.0 §2, `iss`).
 */
export function servedUnder(configUrl: URL, issuer: string, allowHttp: boolean): boolean {
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    return false;
  }
  if (issuerUrl.protocol !== 'https:' && !(allowHttp && issuerUrl.protocol === 'http:')) return false;
  if (issuerUrl.search !== '' || issuerUrl.hash !== '' || issuerUrl.username !== '' || issuerUrl.password !== '')
    return false;
  if (issuerUrl.origin !== configUrl.origin) return false;
  const base = issuerUrl.pathname.replace(/\/$/, '');
  return base === '' || configUrl.pathname === base || configUrl.pathname.startsWith(`${base}/`);
}

const text = (value: unknown, max = 2048): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;

/**
 * Platforms: LTI Dynamic Registration 1.0 (a single-use registration URL per issuer) and, for an
 * LMS without it, the values pasted by hand; listing, renaming and removing them.
 */
export function createRegistrations(
  core: Pick<Core, 'config' | 'clock' | 'ids' | 'log'>,
  deps: { repo: LtiRepository; http: PlatformHttp; audit: Pick<AuditService, 'append'> },
) {
  const { repo, http, audit } = deps;
  const allowPrivate = core.config.webhookAllowPrivate;
  const urls = toolUrls(core.config.publicBaseUrl);

  /** A platform URL the SSRF guard accepts in form (the address is checked again when called). */
  function platformUrl(field: string, value: string): string {
    try {
      return parseTargetUrl(value, allowPrivate).href;
    } catch (err) {
      const message = err instanceof UnsafeTargetError ? err.message : 'must be an https URL';
      throw errors.validation(`${field} ${message}`, [{ path: `/${field}`, message, code: 'url' }]);
    }
  }

  async function store(
    issuerId: string,
    actor: string,
    row: Omit<LtiPlatformsTable, 'id' | 'created_at' | 'issuer_id' | 'registered_by'>,
    deploymentId: string | null,
    claimToken: string | null,
  ) {
    const existing = await repo.platformByClient(row.platform_issuer, row.client_id);
    if (existing && claimToken !== null && existing.issuer_id === issuerId) {
      return registerAgain(existing, actor, row, deploymentId, claimToken);
    }
    if (existing) throw platformExists(existing.issuer_id === issuerId);
    const full: LtiPlatformsTable = {
      ...row,
      id: core.ids.uuid(),
      issuer_id: issuerId,
      registered_by: actor,
      created_at: isoNow(core.clock),
    };
    await repo.transaction(async (trx) => {
      if (claimToken !== null && !(await repo.claimRegistrationToken(trx, claimToken, full.created_at))) {
        throw new RegistrationFailed('This registration URL has already been used or has expired.');
      }
      // The unique (platform_issuer, client_id) decides a race the lookup above cannot see.
      if (!(await repo.insertPlatform(trx, full, deploymentId))) throw platformExists(false);
      await audit.append(trx, {
        issuerId,
        actor,
        action: 'lti.platform.registered',
        targetType: 'lti_platform',
        targetId: full.id,
        details: { platformIssuer: full.platform_issuer, dynamic: claimToken !== null },
      });
    });
    return platformView(full, deploymentId ? [deploymentId] : []);
  }

  /**
   * A platform that answers a Dynamic Registration with a client id this issuer already holds is
   * the same platform registering the tool again (Moodle 5.1's "Update" of a registered tool does
   * this). LTI-DR 1.0 defines only the registration itself (§3.5.2, §3.6), so the answer is read as
   * what it is: the platform's current values, from an openid configuration just checked to be
   * served under its issuer (§3.5.1), sent in answer to this issuer's single-use registration URL.
   * The endpoints are refreshed, the deployment id added, the name the owner chose kept, and the
   * URL spent; another issuer's pair stays refused (`platformExists`).
   */
  async function registerAgain(
    existing: LtiPlatformsTable,
    actor: string,
    row: Omit<LtiPlatformsTable, 'id' | 'created_at' | 'issuer_id' | 'registered_by'>,
    deploymentId: string | null,
    claimToken: string,
  ) {
    const endpoints = {
      auth_login_url: row.auth_login_url,
      token_url: row.token_url,
      jwks_uri: row.jwks_uri,
      token_audience: row.token_audience,
    };
    const changed = (Object.keys(endpoints) as (keyof typeof endpoints)[]).filter((k) => endpoints[k] !== existing[k]);
    await repo.transaction(async (trx) => {
      const at = isoNow(core.clock);
      if (!(await repo.claimRegistrationToken(trx, claimToken, at))) {
        throw new RegistrationFailed('This registration URL has already been used or has expired.');
      }
      await repo.updatePlatformEndpoints(trx, existing.issuer_id, existing.id, endpoints);
      if (deploymentId !== null) await repo.addDeployment(trx, existing.issuer_id, existing.id, deploymentId, at);
      await audit.append(trx, {
        issuerId: existing.issuer_id,
        actor,
        action: 'lti.platform.updated',
        targetType: 'lti_platform',
        targetId: existing.id,
        details: { fields: changed, dynamic: true, ...(deploymentId !== null ? { deploymentId } : {}) },
      });
    });
    const [view] = (await listPlatforms(existing.issuer_id)).filter((p) => p.id === existing.id);
    if (!view) throw errors.notFound('Platform');
    return view;
  }

  async function listPlatforms(issuerId: string) {
    const rows = await repo.platforms(issuerId);
    const deployments = await repo.deploymentsOf(
      issuerId,
      rows.map((row) => row.id),
    );
    return rows.map((row) =>
      platformView(
        row,
        deployments.filter((d) => d.platform_id === row.id).map((d) => d.deployment_id),
      ),
    );
  }

  return {
    urls,

    async createRegistrationUrl(issuerId: string, actor: string) {
      const token = randomBytes(32).toString('base64url');
      const now = core.clock.now();
      const expiresAt = new Date(now.getTime() + REGISTRATION_TTL_MS).toISOString();
      await repo.transaction(async (trx) => {
        await repo.insertRegistrationToken(trx, {
          token_hash: hashToken(token),
          issuer_id: issuerId,
          created_by: actor,
          created_at: now.toISOString(),
          expires_at: expiresAt,
          used_at: null,
        });
        await audit.append(trx, {
          issuerId,
          actor,
          action: 'lti.registration_url.created',
          targetType: 'lti_registration',
          targetId: hashToken(token).slice(0, 16),
          details: { expiresAt },
        });
      });
      return { registrationUrl: `${core.config.publicBaseUrl}${PATHS.register}/${token}`, expiresAt, ...urls };
    },

    /**
     * LTI-DR 1.0 §3.3-§3.6: reads the platform's openid configuration, registers the tool at its
     * registration endpoint with the registration token, and stores the platform. The URL's token
     * is spent in the same transaction as the platform is stored, so it registers one platform.
     */
    async register(token: string, openidConfiguration: string, registrationToken: string | undefined) {
      const hash = hashToken(token);
      const grant = await repo.findRegistrationToken(hash);
      if (!grant || grant.used_at !== null || grant.expires_at <= isoNow(core.clock)) {
        throw new RegistrationFailed(
          'This registration URL has already been used or has expired. Create a new one in Accolade.',
        );
      }
      try {
        const configUrl = parseTargetUrl(openidConfiguration, allowPrivate);
        const answer = await http.getJson(configUrl.href, 'application/json');
        const config = answer.json as Record<string, unknown> | null;
        if (answer.status !== 200 || !config || typeof config !== 'object') {
          throw new RegistrationFailed('The platform’s openid configuration could not be read.');
        }
        const issuer = text(config.issuer);
        const registrationEndpoint = text(config.registration_endpoint);
        const authorization = text(config.authorization_endpoint);
        const tokenEndpoint = text(config.token_endpoint);
        const jwks = text(config.jwks_uri);
        const platformConfig = config[PLATFORM_CONFIGURATION] as Record<string, unknown> | undefined;
        if (!issuer || !servedUnder(configUrl, issuer, allowPrivate)) {
          throw new RegistrationFailed('The openid configuration is not served under the issuer it names.');
        }
        if (!registrationEndpoint || !authorization || !tokenEndpoint || !jwks || !platformConfig) {
          throw new RegistrationFailed('The openid configuration lacks an endpoint LTI needs.');
        }
        const algs = config.id_token_signing_alg_values_supported;
        if (Array.isArray(algs) && !algs.includes('RS256')) {
          throw new RegistrationFailed('The platform does not sign id_tokens with RS256.');
        }
        for (const url of [registrationEndpoint, authorization, tokenEndpoint, jwks]) parseTargetUrl(url, allowPrivate);
        // LTI-DR 1.0 §3.5.2 "Client Registration Request".
        const registration = await http.postJson(
          registrationEndpoint,
          {
            application_type: 'web',
            response_types: ['id_token'],
            grant_types: ['implicit', 'client_credentials'],
            initiate_login_uri: urls.loginUrl,
            redirect_uris: [urls.launchUrl],
            client_name: TOOL_NAME,
            jwks_uri: urls.jwksUrl,
            token_endpoint_auth_method: 'private_key_jwt',
            scope: urls.scopes.join(' '),
            [TOOL_CONFIGURATION]: {
              domain: urls.domain,
              target_link_uri: urls.launchUrl,
              claims: urls.claims,
              messages: [
                { type: MESSAGE.deepLinkingRequest, target_link_uri: urls.deepLinkingUrl, label: 'Add a badge' },
              ],
            },
          },
          registrationToken,
        );
        const registered = registration.json as Record<string, unknown> | null;
        const clientId = text(registered?.client_id, 255);
        if (registration.status < 200 || registration.status > 299 || !clientId) {
          throw new RegistrationFailed(`The platform refused the registration (HTTP ${registration.status}).`);
        }
        const toolConfig = registered?.[TOOL_CONFIGURATION] as Record<string, unknown> | undefined;
        const deploymentId = text(toolConfig?.deployment_id, 255);
        const family = text(platformConfig.product_family_code, 100);
        return await store(
          grant.issuer_id,
          grant.created_by,
          {
            name: family ? `${family} (${new URL(issuer).host})` : new URL(issuer).host,
            platform_issuer: issuer,
            client_id: clientId,
            auth_login_url: authorization,
            token_url: tokenEndpoint,
            jwks_uri: jwks,
            // LTI-DR 1.0 §3.4.1: the audience of the tool's client assertions, when not the token URL.
            token_audience: text(config.authorization_server),
          },
          deploymentId,
          hash,
        );
      } catch (err) {
        if (err instanceof UnsafeTargetError || err instanceof PlatformCallError)
          throw new RegistrationFailed(err.message);
        if (err instanceof AppError && err.code === 'lti_platform_exists') throw new RegistrationFailed(err.message);
        throw err;
      }
    },

    createPlatform: (issuerId: string, actor: string, input: PlatformInput) =>
      store(
        issuerId,
        actor,
        {
          name: input.name.trim(),
          platform_issuer: input.platformIssuer,
          client_id: input.clientId,
          auth_login_url: platformUrl('authLoginUrl', input.authLoginUrl),
          token_url: platformUrl('tokenUrl', input.tokenUrl),
          jwks_uri: platformUrl('jwksUri', input.jwksUri),
          token_audience: input.tokenAudience ?? null,
        },
        input.deploymentId,
        null,
      ),

    listPlatforms,

    async updatePlatform(issuerId: string, id: string, actor: string, patch: { name?: string; deploymentId?: string }) {
      if (!(await repo.platform(issuerId, id))) throw errors.notFound('Platform');
      await repo.transaction(async (trx) => {
        if (patch.name !== undefined) await repo.renamePlatform(trx, issuerId, id, patch.name.trim());
        if (patch.deploymentId !== undefined) {
          await repo.addDeployment(trx, issuerId, id, patch.deploymentId, isoNow(core.clock));
        }
        await audit.append(trx, {
          issuerId,
          actor,
          action: 'lti.platform.updated',
          targetType: 'lti_platform',
          targetId: id,
          details: { fields: Object.keys(patch) },
        });
      });
      const [view] = (await listPlatforms(issuerId)).filter((p) => p.id === id);
      if (!view) throw errors.notFound('Platform');
      return view;
    },

    async removePlatform(issuerId: string, id: string, actor: string): Promise<void> {
      const removed = await repo.transaction(async (trx) => {
        if (!(await repo.removePlatform(trx, issuerId, id))) return false;
        await audit.append(trx, {
          issuerId,
          actor,
          action: 'lti.platform.removed',
          targetType: 'lti_platform',
          targetId: id,
        });
        return true;
      });
      if (!removed) throw errors.notFound('Platform');
    },
  };
}

export type Registrations = ReturnType<typeof createRegistrations>;
export type PlatformView = ReturnType<typeof platformView>;
