import { randomBytes } from 'node:crypto';
import type { Core } from '../../core/context.js';
import { canonicalLanguage } from '../../core/language.js';
import { CLAIM, isLearnerRole, isTeachingRole, LINK_PARAMETER, MESSAGE, PATHS } from './lti.constants.js';
import { CLOCK_SKEW_S, type IdTokenVerifier, LaunchRefused, MAX_TOKEN_AGE_S } from './lti.idtoken.js';
import type { RefusalRecords } from './lti.refusals.js';
import type { LtiRepository } from './lti.repository.js';
import type { Sealer } from './lti.sealed.js';
import type { LtiPlatformsTable } from './lti.tables.js';

/** The login's state cookie lives this long: the platform answers the authentication request at once. */
export const LOGIN_SECONDS = 600;
export const STATE_COOKIE = 'accolade_lti_state';

export interface LoginRequest {
  iss: string;
  login_hint: string;
  target_link_uri: string;
  lti_message_hint?: string;
  lti_deployment_id?: string;
  client_id?: string;
}

interface LoginState {
  state: string;
  nonce: string;
  platformId: string;
}

/** What a verified launch says, in the tool's terms. */
export interface VerifiedLaunch {
  platform: LtiPlatformsTable;
  messageType: string;
  deploymentId: string;
  subject: string | null;
  email: string | null;
  name: string | null;
  teaching: boolean;
  learning: boolean;
  contextId: string | null;
  contextTitle: string | null;
  linkId: string | null;
  lineItemUrl: string | null;
  agsScopes: string[];
  membershipsUrl: string | null;
  deepLinking: { returnUrl: string; data: string | null; acceptLineItem: boolean } | null;
  /** The launch_presentation claim's locale (LTI Core 1.3 §5.4.4), canonical BCP 47; null when none is usable. */
  locale: string | null;
}

const str = (value: unknown, max = 2048) =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
const obj = (value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * The OpenID Connect launch of Security Framework 1.0 §5.1.1 "OpenID Connect Launch Flow Overview":
 * the third-party initiated login (§5.1.1.1) answers with the authentication request (§5.1.1.2),
 * state and nonce sealed in a cookie of this browser and nothing written; the authentication
 * response (§5.1.1.3) is checked in full (§5.1.3) before anything is stored, and only then is its
 * nonce recorded as used and the launch dispatched.
 */
export function createLaunches(
  core: Pick<Core, 'config' | 'clock' | 'log'>,
  deps: {
    repo: LtiRepository;
    verifier: IdTokenVerifier;
    sealer: Sealer;
    refusals: Pick<RefusalRecords, 'record'>;
  },
) {
  const { repo, verifier, sealer } = deps;
  const base = core.config.publicBaseUrl;

  async function platformFor(iss: string, clientId: string | undefined): Promise<LtiPlatformsTable> {
    if (clientId) {
      const platform = await repo.platformByClient(iss, clientId);
      if (platform) return platform;
    } else {
      const candidates = await repo.platformsOfIssuerUrl(iss);
      if (candidates.length === 1 && candidates[0]) return candidates[0];
    }
    throw new LaunchRefused('issuer', 'This platform is not registered with Accolade. Ask the issuer to register it.');
  }

  async function refuse(err: LaunchRefused): Promise<never> {
    core.log.info({ action: 'lti.launch_refused', reason: err.reason }, 'LTI launch refused');
    if (err.platform) await deps.refusals.record(err.platform, err.reason);
    throw err;
  }

  return {
    /** §5.1.1.2 "Step 2: Authentication Request": where to send the browser, and the state cookie. */
    async login(request: LoginRequest): Promise<{ location: string; cookie: string }> {
      const target = str(request.target_link_uri);
      if (!target || !(target === `${base}${PATHS.launch}` || target.startsWith(`${base}${PATHS.launch}?`))) {
        throw new LaunchRefused('claims', 'The launch does not target this tool.');
      }
      const platform = await platformFor(request.iss, request.client_id);
      const state = randomBytes(24).toString('base64url');
      const nonce = randomBytes(24).toString('base64url');
      const auth = new URL(platform.auth_login_url);
      const params: Record<string, string> = {
        scope: 'openid',
        response_type: 'id_token',
        response_mode: 'form_post',
        prompt: 'none',
        client_id: platform.client_id,
        redirect_uri: `${base}${PATHS.launch}`,
        login_hint: request.login_hint,
        state,
        nonce,
        ...(request.lti_message_hint ? { lti_message_hint: request.lti_message_hint } : {}),
      };
      for (const [name, value] of Object.entries(params)) auth.searchParams.set(name, value);
      const cookie = sealer.seal<LoginState>('login', { state, nonce, platformId: platform.id }, LOGIN_SECONDS);
      return { location: auth.href, cookie };
    },

    /** §5.1.3 "Authentication Response Validation", then LTI Core 1.3 §5.3's required claims. */
    async verify(form: { id_token?: string; state?: string }, cookie: string | undefined): Promise<VerifiedLaunch> {
      const login = sealer.open<LoginState>('login', cookie);
      if (!login || !form.state || form.state !== login.state) {
        return refuse(
          new LaunchRefused(
            'state',
            'This launch did not start in this browser, or took too long. Open the link again.',
          ),
        );
      }
      const platform = await repo.platformById(login.platformId);
      if (!platform) return refuse(new LaunchRefused('issuer', 'This platform is no longer registered with Accolade.'));
      const known = { id: platform.id, issuerId: platform.issuer_id };
      try {
        const claims = await verifier.verify(form.id_token ?? '', {
          issuer: platform.platform_issuer,
          clientId: platform.client_id,
          jwksUri: platform.jwks_uri,
        });
        if (claims.nonce !== login.nonce) throw new LaunchRefused('nonce', 'The token was not issued for this login.');
        const messageType = str(claims[CLAIM.messageType], 100);
        if (claims[CLAIM.version] !== '1.3.0' || !messageType) {
          throw new LaunchRefused('claims', 'The token is not an LTI 1.3 message.');
        }
        const deploymentId = str(claims[CLAIM.deploymentId], 255);
        if (!deploymentId || !(await repo.hasDeployment(platform.id, deploymentId))) {
          throw new LaunchRefused('deployment', 'This deployment of the tool is not known to Accolade.');
        }
        const roles = Array.isArray(claims[CLAIM.roles])
          ? (claims[CLAIM.roles] as unknown[]).filter((r): r is string => typeof r === 'string')
          : [];
        const context = obj(claims[CLAIM.context]);
        const custom = obj(claims[CLAIM.custom]);
        const ags = obj(claims[CLAIM.agsEndpoint]);
        const nrps = obj(claims[CLAIM.nrps]);
        const settings = obj(claims[CLAIM.deepLinkingSettings]);
        const given = [str(claims.given_name, 200), str(claims.family_name, 200)].filter(Boolean).join(' ');
        const launch: VerifiedLaunch = {
          platform,
          messageType,
          deploymentId,
          subject: str(claims.sub, 255),
          email: str(claims.email, 254),
          name: str(claims.name, 200) ?? (given || null),
          teaching: roles.some(isTeachingRole),
          learning: roles.some(isLearnerRole),
          contextId: str(context.id, 255),
          contextTitle: str(context.title, 200),
          linkId: str(custom[LINK_PARAMETER], 100),
          lineItemUrl: str(ags.lineitem),
          agsScopes: Array.isArray(ags.scope) ? ags.scope.filter((s): s is string => typeof s === 'string') : [],
          membershipsUrl: str(nrps.context_memberships_url),
          deepLinking: null,
          // Moodle sends its language pack name (`fr_ca`): read as the BCP 47 tag it stands for.
          locale:
            canonicalLanguage(str(obj(claims[CLAIM.launchPresentation]).locale, 64)?.replace(/_/g, '-') ?? '') ?? null,
        };
        if (messageType === MESSAGE.deepLinkingRequest) {
          const returnUrl = str(settings.deep_link_return_url);
          if (!returnUrl) throw new LaunchRefused('claims', 'The deep linking request has no return URL.');
          const accept = Array.isArray(settings.accept_types) ? settings.accept_types : [];
          if (accept.length > 0 && !accept.includes('ltiResourceLink')) {
            throw new LaunchRefused('claims', 'The platform does not accept LTI links here.');
          }
          launch.deepLinking = {
            returnUrl,
            data: str(settings.data, 4096),
            acceptLineItem: settings.accept_lineitem !== false,
          };
        } else if (messageType === MESSAGE.resourceLink) {
          if (!str(obj(claims[CLAIM.resourceLink]).id, 255)) {
            throw new LaunchRefused('claims', 'The launch has no resource link id.');
          }
        } else {
          throw new LaunchRefused('claims', `Accolade does not handle ${messageType} messages.`);
        }
        // Only now, the token checked, is anything written: its nonce, used once (kept while the
        // token could still pass the iat and exp checks).
        const until = new Date(core.clock.now().getTime() + (MAX_TOKEN_AGE_S + 2 * CLOCK_SKEW_S) * 1000).toISOString();
        if (!(await repo.consumeNonce(platform.id, login.nonce, until))) {
          throw new LaunchRefused('nonce', 'This launch was already used. Open the link again.');
        }
        return launch;
      } catch (err) {
        if (err instanceof LaunchRefused) return refuse(new LaunchRefused(err.reason, err.message, known));
        throw err;
      }
    },
  };
}

export type Launches = ReturnType<typeof createLaunches>;
