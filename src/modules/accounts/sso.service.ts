import { LRUCache } from 'lru-cache';
import type { Configuration } from 'openid-client';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { growingLru } from '../../core/growing-lru.js';
import { keyEncryptionKey, open, seal } from '../../core/kek.js';
import { NAME_CONTROL_CHARACTER } from '../../core/schemas.js';
import type { AuditService } from '../audit/audit.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { type LookupFn, parseTargetUrl, systemLookup, UnsafeTargetError } from '../webhooks/ssrf.js';
import type { SignedIn } from './session.types.js';
import { guardedFetch } from './sso.fetch.js';
import { createSsoRepository, type SsoRow } from './sso.repository.js';
import { DOMAIN_PATTERN, PROVIDER_NAME_MAX } from './sso.schemas.js';

/** The short-lived cookie that binds a callback to the browser that started the sign-in. */
export const FLOW_COOKIE = 'accolade_sso';
/** The one redirect URI of every issuer's provider (registered at the provider by the owner). */
export const CALLBACK_PATH = '/sso/callback';
export const START_PATH = '/sso/start';
/** The associated data of a sealed flow cookie: a sealed client secret cannot be passed as one. */
export const FLOW_SEAL_CONTEXT = 'console_sso_flow';
export const FLOW_SECONDS = 600;
const DISCOVERY_TTL_MS = 10 * 60_000;
/** A provider that could not be discovered is not asked again for this long (starts answer `unavailable`). */
const FAILED_DISCOVERY_TTL_MS = 60_000;
/** Used flows remembered per process; beyond this many in 10 minutes the oldest are forgotten first. */
const USED_FLOWS_MAX = 50_000;
/**
 * Failed token exchanges one client address may cause per minute, per process. Every anonymous start +
 * callback pair costs one outbound request to the issuer's provider, so it is priced before the
 * request: the exchange is counted as a failure first and taken back when the provider takes the code. Only
 * failures are counted, so staff behind one office address (one NAT) are never refused for signing
 * in, only for junk sent from their own address.
 */
export const SSO_FAILED_EXCHANGES_PER_ADDRESS = 10;
/**
 * The issuer-wide backstop (issue 48 §7, review of 2026-12-01): failed exchanges per issuer per
 * minute from all addresses together, so many addresses cannot make the service hammer one provider.
 * Only failures spend it, and an address that signed someone in to the issuer in the last day is not
 * held to it, so junk from elsewhere does not keep the issuer's own staff out.
 */
export const SSO_FAILED_EXCHANGES_PER_ISSUER = 120;
/** How long an address that signed someone in stays exempt from the issuer-wide backstop. */
const TRUSTED_ADDRESS_MS = 24 * 60 * 60_000;
const PROVIDER_TIMEOUT_SECONDS = 10;
const secretContext = (issuerId: string) => `console_sso:${issuerId}`;

/** What a sign-in keeps between the redirect to the provider and the callback (sealed in its cookie). */
export interface SsoFlow {
  issuerId: string;
  slug: string;
  state: string;
  nonce: string;
  verifier: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface SsoSettingsInput {
  providerName: string;
  issuerUrl: string;
  clientId: string;
  /** Required when the provider is first set up; left out, the stored secret is kept. */
  clientSecret?: string | undefined;
  allowedDomain: string | null;
  passwordSignIn: boolean;
}

/** Why a sign-in through the provider did not open a session (the login page words each one). */
export type SsoRefusal = 'not_allowed' | 'unverified' | 'failed' | 'expired' | 'unavailable';

export type SsoOutcome = { signedIn: SignedIn } | { refused: SsoRefusal; slug: string | null };

/** Signs the verified email in to the issuer: its account, or a new viewer of the allowed domain. */
export type SsoSignIn = (issuerId: string, email: string, allowedDomain: string | null) => Promise<SignedIn | null>;

const DOMAIN = new RegExp(DOMAIN_PATTERN);

/** The checks of the PUT body's schema, for the CLI, which calls the service directly. */
function checkInput(input: SsoSettingsInput): void {
  const name = input.providerName.trim();
  if (name === '' || name.length > PROVIDER_NAME_MAX || NAME_CONTROL_CHARACTER.test(name)) {
    throw errors.validation(`The provider name must be 1 to ${PROVIDER_NAME_MAX} characters, without line breaks.`);
  }
  if (input.clientId.trim() === '') throw errors.validation('The client id is required.');
  if (input.allowedDomain !== null && !DOMAIN.test(input.allowedDomain.trim())) {
    throw errors.validation('The allowed domain must be a domain name such as example.edu.');
  }
}

/**
 * The key a client address is counted under: an IPv4 address (also IPv4-mapped) as it is, an IPv6
 * address by its /64, the smallest block one site is given (RFC 6177), so one host cannot take a
 * fresh budget from each address of its own prefix.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.toLowerCase().split('%')[0]?.split('::') ?? [];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

function isUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/**
 * Console sign-in through an issuer's own OpenID Connect provider (issue 39 §8): the owner's
 * settings (client secret sealed like the signing keys), and the authorization code flow with PKCE,
 * state and nonce through `openid-client`, which validates the ID token. Every request to the
 * provider goes through the webhooks' SSRF guard.
 */
export function createSsoService(
  core: Pick<Core, 'db' | 'clock' | 'config' | 'log'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    issuers: Pick<IssuerService, 'getIssuer' | 'getIssuerBySlug'>;
    signIn: SsoSignIn;
  },
  options: { lookup?: LookupFn } = {},
) {
  const repo = createSsoRepository(core.db);
  const allowPrivate = core.config.webhookAllowPrivate;
  const fetcher = guardedFetch(allowPrivate, options.lookup ?? systemLookup);
  const redirectUri = `${core.config.publicBaseUrl}${CALLBACK_PATH}`;
  let kek: Buffer | null = null;
  const kekOnce = () => {
    kek ??= keyEncryptionKey(core.config);
    return kek;
  };
  const configurations = new LRUCache<string, Promise<Configuration>>({ max: 200, ttl: DISCOVERY_TTL_MS });
  /** The states of flows whose callback has come (a replayed callback is refused before any request). */
  const usedStates = growingLru<string, true>(USED_FLOWS_MAX);
  /** Failed (or still running) token exchanges in the current minute, per address and per issuer. */
  const failures = growingLru<string, { minute: number; used: number }>(50_000);
  /** `issuer|address` pairs that signed someone in lately (exempt from the issuer-wide backstop). */
  const trustedAddresses = growingLru<string, true>(50_000, { ttl: TRUSTED_ADDRESS_MS });
  const failuresIn = (key: string, minute: number) => {
    const window = failures.get(key);
    return window && window.minute === minute ? window.used : 0;
  };
  const addFailures = (key: string, minute: number, units: number) => {
    failures.set(key, { minute, used: Math.max(0, failuresIn(key, minute) + units) });
  };

  /**
   * Counts a token exchange as failed before it is made (synchronously, so parallel callbacks cannot
   * all pass one check): null when the address, or the issuer for an address it does not trust, has
   * no failures left this minute. A code the provider takes is not a failure (it cost a real login
   * at the provider): `exchanged` takes the count back, and `signedIn` trusts the address.
   */
  function reserveExchange(issuerId: string, address: string): { exchanged(): void; signedIn(): void } | null {
    const minute = Math.floor(core.clock.now().getTime() / 60_000);
    const byAddress = `address|${issuerId}|${address}`;
    const byIssuer = `issuer|${issuerId}`;
    const pair = `${issuerId}|${address}`;
    if (failuresIn(byAddress, minute) >= SSO_FAILED_EXCHANGES_PER_ADDRESS) return null;
    if (!trustedAddresses.has(pair) && failuresIn(byIssuer, minute) >= SSO_FAILED_EXCHANGES_PER_ISSUER) return null;
    addFailures(byAddress, minute, 1);
    addFailures(byIssuer, minute, 1);
    return {
      exchanged: () => {
        addFailures(byAddress, minute, -1);
        addFailures(byIssuer, minute, -1);
      },
      signedIn: () => trustedAddresses.set(pair, true),
    };
  }

  function checkedIssuerUrl(raw: string): URL {
    try {
      return parseTargetUrl(raw, allowPrivate);
    } catch (err) {
      if (!(err instanceof UnsafeTargetError)) throw err;
      throw errors.validation('The issuer URL must be an https URL of a public host.', [
        { path: '/issuerUrl', message: 'body/issuerUrl must be an https URL of a public host', code: 'format' },
      ]);
    }
  }

  async function discover(issuerUrl: URL, clientId: string, clientSecret: string): Promise<Configuration> {
    const oidc = await import('openid-client');
    return oidc.discovery(issuerUrl, clientId, clientSecret, oidc.ClientSecretBasic(), {
      [oidc.customFetch]: fetcher,
      timeout: PROVIDER_TIMEOUT_SECONDS,
      execute: issuerUrl.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
    });
  }

  /**
   * The provider's discovered configuration, kept for a few minutes per stored version of the
   * settings. A failed discovery is kept for a minute, so anonymous starts for a provider that is
   * down do not each make a request to it; a change of the settings asks again at once.
   */
  function configurationOf(row: SsoRow): Promise<Configuration> {
    const key = `${row.issuer_id}|${row.updated_at}`;
    let found = configurations.get(key);
    if (!found) {
      const secret = open(kekOnce(), row.client_secret_sealed, secretContext(row.issuer_id));
      const discovering = discover(checkedIssuerUrl(row.issuer_url), row.client_id, secret);
      configurations.set(key, discovering);
      discovering.catch(() => {
        if (configurations.get(key) === discovering) {
          configurations.set(key, discovering, { ttl: FAILED_DISCOVERY_TTL_MS });
        }
      });
      found = discovering;
    }
    return found;
  }

  /** What the owner registers at the provider and shares with staff; the same before any provider is set up. */
  async function links(issuerId: string) {
    const issuer = await deps.issuers.getIssuer(issuerId);
    return {
      redirectUri,
      signInUrl: `${core.config.publicBaseUrl}/console/login?issuer=${encodeURIComponent(issuer.slug)}`,
    };
  }

  async function view(row: SsoRow) {
    return {
      providerName: row.provider_name,
      issuerUrl: row.issuer_url,
      clientId: row.client_id,
      allowedDomain: row.allowed_domain,
      passwordSignIn: row.password_sign_in === 1,
      ...(await links(row.issuer_id)),
      updatedAt: row.updated_at,
    };
  }

  async function rowOfSlug(slug: string): Promise<SsoRow> {
    const issuer = await deps.issuers.getIssuerBySlug(slug).catch(() => null);
    const row = issuer ? await repo.get(issuer.id) : undefined;
    if (!row) throw errors.notFound('Sign-in provider');
    return row;
  }

  function readFlow(cookie: string | undefined): SsoFlow | null {
    if (!cookie) return null;
    try {
      const flow = JSON.parse(open(kekOnce(), cookie, FLOW_SEAL_CONTEXT)) as SsoFlow;
      return flow.expiresAt > core.clock.now().getTime() ? flow : null;
    } catch {
      return null;
    }
  }

  return {
    redirectUri,
    links,

    async settings(issuerId: string) {
      const row = await repo.get(issuerId);
      if (!row) throw errors.notFound('Sign-in provider');
      return view(row);
    },

    /**
     * Sets the issuer's provider. The issuer URL must pass the SSRF guard and the provider must be
     * discoverable there (OpenID Connect Discovery, issuer checked), so a typo is caught here and
     * not at the next sign-in.
     */
    async configure(issuerId: string, input: SsoSettingsInput, actor: string) {
      checkInput(input);
      const issuerUrl = checkedIssuerUrl(input.issuerUrl);
      const existing = await repo.get(issuerId);
      const clientSecret =
        input.clientSecret ??
        (existing ? open(kekOnce(), existing.client_secret_sealed, secretContext(issuerId)) : undefined);
      if (clientSecret === undefined) {
        throw errors.validation('The client secret is required to set up a sign-in provider.', [
          { path: '/clientSecret', message: 'body must have property clientSecret', code: 'required' },
        ]);
      }
      try {
        await discover(issuerUrl, input.clientId, clientSecret);
      } catch (err) {
        core.log.info({ action: 'console_sso.discovery_failed', err: (err as Error).name }, 'provider not discovered');
        throw errors.validation(
          `No OpenID Connect provider was found at ${issuerUrl.href} (its /.well-known/openid-configuration must name this issuer).`,
          [{ path: '/issuerUrl', message: 'body/issuerUrl must be an OpenID Connect issuer', code: 'format' }],
        );
      }
      const row: SsoRow = {
        issuer_id: issuerId,
        provider_name: input.providerName.trim(),
        issuer_url: input.issuerUrl,
        client_id: input.clientId,
        client_secret_sealed: seal(kekOnce(), clientSecret, secretContext(issuerId)),
        allowed_domain: input.allowedDomain === null ? null : input.allowedDomain.trim().toLowerCase(),
        password_sign_in: input.passwordSignIn ? 1 : 0,
        updated_at: isoNow(core.clock),
      };
      await core.db.transaction().execute(async (trx) => {
        const settings = createSsoRepository(trx);
        await settings.upsert(row);
        // Password sign-in off ends the sessions opened with a password (the acting user's too):
        // otherwise they would last their whole lifetime after the owner shut that door.
        const passwordSessionsEnded = input.passwordSignIn ? 0 : await settings.endPasswordSessions(issuerId);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: existing ? 'console_sso.updated' : 'console_sso.configured',
          targetType: 'console_sso',
          targetId: issuerId,
          details: {
            passwordSignIn: input.passwordSignIn,
            domainSignIn: row.allowed_domain !== null,
            secretChanged: input.clientSecret !== undefined,
            passwordSessionsEnded,
          },
        });
      });
      return view(row);
    },

    async remove(issuerId: string, actor: string): Promise<void> {
      await core.db.transaction().execute(async (trx) => {
        if (!(await createSsoRepository(trx).remove(issuerId))) throw errors.notFound('Sign-in provider');
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'console_sso.removed',
          targetType: 'console_sso',
          targetId: issuerId,
        });
      });
    },

    /** What the login page of an issuer (by slug) shows; an unknown issuer and one without a provider are the same 404. */
    async loginOptions(slug: string) {
      const row = await rowOfSlug(slug);
      return {
        providerName: row.provider_name,
        passwordSignIn: row.password_sign_in === 1,
        startUrl: `${START_PATH}/${encodeURIComponent(slug)}`,
      };
    },

    /** The provider's authorization URL for a new sign-in, and the sealed flow for its cookie. */
    async start(slug: string): Promise<{ location: string; flowCookie: string }> {
      const row = await rowOfSlug(slug);
      const oidc = await import('openid-client');
      const configuration = await configurationOf(row);
      const flow: SsoFlow = {
        issuerId: row.issuer_id,
        slug,
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        verifier: oidc.randomPKCECodeVerifier(),
        expiresAt: core.clock.now().getTime() + FLOW_SECONDS * 1000,
      };
      const location = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUri,
        scope: 'openid email',
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      });
      return { location: location.href, flowCookie: seal(kekOnce(), JSON.stringify(flow), FLOW_SEAL_CONTEXT) };
    },

    /**
     * The callback: the flow from its cookie (missing, forged, older than 10 minutes or used
     * already: expired), the code exchanged with PKCE, state and nonce checked and the ID token validated by
     * openid-client; the email (from the ID token, or the user info endpoint when the token has
     * none) must be verified by the provider.
     */
    async finish(search: string, flowCookie: string | undefined, client: string): Promise<SsoOutcome> {
      const flow = readFlow(flowCookie);
      if (!flow) return { refused: 'expired', slug: null };
      // Single use: a cookie replayed (by whoever started the flow) makes no second token request.
      if (usedStates.has(flow.state)) return { refused: 'expired', slug: flow.slug };
      usedStates.set(flow.state, true, { ttl: flow.expiresAt - core.clock.now().getTime() });
      const row = await repo.get(flow.issuerId);
      if (!row) return { refused: 'unavailable', slug: flow.slug };
      const exchange = reserveExchange(flow.issuerId, addressKey(client));
      if (!exchange) {
        core.log.warn({ action: 'console_sso.budget_spent', issuerId: flow.issuerId }, 'sign-in failure budget spent');
        return { refused: 'unavailable', slug: flow.slug };
      }
      const oidc = await import('openid-client');
      let email: unknown;
      let verified: unknown;
      try {
        const configuration = await configurationOf(row);
        const currentUrl = isUrl(`${redirectUri}${search}`);
        if (!currentUrl) return { refused: 'failed', slug: flow.slug };
        const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        exchange.exchanged();
        const claims = tokens.claims();
        if (!claims) return { refused: 'failed', slug: flow.slug };
        ({ email, email_verified: verified } = claims);
        if (email === undefined) {
          ({ email, email_verified: verified } = await oidc.fetchUserInfo(
            configuration,
            tokens.access_token,
            claims.sub,
          ));
        }
      } catch (err) {
        const { name, code } = err as { name?: string; code?: string };
        core.log.warn(
          { action: 'console_sso.failed', err: code ?? name },
          'console sign-in through the provider failed',
        );
        return { refused: 'failed', slug: flow.slug };
      }
      if (typeof email !== 'string' || verified !== true) return { refused: 'unverified', slug: flow.slug };
      const signedIn = await deps.signIn(flow.issuerId, email, row.allowed_domain);
      if (!signedIn) return { refused: 'not_allowed', slug: flow.slug };
      exchange.signedIn();
      return { signedIn };
    },
  };
}

export type SsoService = ReturnType<typeof createSsoService>;
