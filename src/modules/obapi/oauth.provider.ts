import { createPrivateKey } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import type { Config } from '../../config.js';
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { BackpackSecrets } from '../backpack/backpack.secrets.js';
import { kyselyAdapter, type OauthWrites } from './oauth.adapter.js';
import { ALL_SCOPES, OAUTH, OB_API } from './obapi.scopes.js';

/**
 * How long the secret of a client registered without an initial access token lasts (RFC 7591
 * §3.2.1 client_secret_expires_at): anyone may register, so no registration lives for ever. The
 * client's row expires with it (oauth.adapter.ts) and is pruned; a client registers again.
 */
export const CLIENT_SECRET_TTL_S = 30 * 86_400;

/** PKCS #8 DER before a raw 32-byte Ed25519 seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The provider's signing key (it signs nothing the API needs, but oidc-provider wants one), the same on every replica. */
function signingJwk(secrets: BackpackSecrets) {
  const seed = secrets.derive('accolade/obapi/oauth-signing-key/v1');
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return { ...key.export({ format: 'jwk' }), kid: 'obapi-1', alg: 'EdDSA', use: 'sig' };
}

/** RFC 7591 registrations take https redirect URIs only; WEBHOOK_ALLOW_PRIVATE also lets loopback http through. */
function redirectUrisAllowed(uris: unknown, allowPrivate: boolean): boolean {
  if (!Array.isArray(uris) || uris.length === 0) return false;
  return uris.every((uri) => {
    try {
      const url = new URL(String(uri));
      if (url.protocol === 'https:') return true;
      return allowPrivate && url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    } catch {
      return false;
    }
  });
}

/**
 * The authorization server of the Open Badges API (OB 3.0 §6 and its security section): panva's
 * oidc-provider, configured for the authorization code grant with PKCE S256 required, RFC 7591
 * registration without an initial access token, refresh tokens that rotate, RFC 7009 revocation and
 * the RFC 8414 metadata; its state in our database (kyselyAdapter), its keys derived from the
 * sealed key store. Access tokens are opaque, for the API as their one resource (RFC 8707).
 * oidc-provider (with Koa beneath it, some 25 MiB resident) is imported here, at the first OAuth
 * request, not when the server starts: most replicas' traffic is issuance and verification.
 */
export async function createOauthProvider(
  config: Pick<Config, 'publicBaseUrl' | 'webhookAllowPrivate'>,
  database: Db,
  clock: Clock,
  secrets: BackpackSecrets,
  writes: OauthWrites,
): Promise<Provider> {
  const { default: OidcProvider, errors } = await import('oidc-provider');
  const resource = `${config.publicBaseUrl}${OB_API}`;
  const configuration: Configuration = {
    adapter: kyselyAdapter(database, clock, writes),
    clients: [],
    // The API's scopes, so that RFC 7591 registrations may name them (their `scope` metadata) and
    // the RFC 8414 metadata lists them; tokens carry them for the API as its resource (below).
    scopes: ['openid', 'offline_access', ...ALL_SCOPES],
    jwks: { keys: [signingJwk(secrets)] },
    cookies: {
      keys: [secrets.derive('accolade/obapi/oauth-cookies/v1').toString('base64url')],
      long: { sameSite: 'lax' },
      short: { sameSite: 'lax' },
    },
    routes: {
      authorization: `${OAUTH}/authorize`,
      token: `${OAUTH}/token`,
      registration: `${OAUTH}/register`,
      revocation: `${OAUTH}/revoke`,
      jwks: `${OAUTH}/jwks`,
      end_session: `${OAUTH}/session/end`,
      userinfo: `${OAUTH}/userinfo`,
      introspection: `${OAUTH}/introspect`,
      pushed_authorization_request: `${OAUTH}/par`,
      code_verification: `${OAUTH}/device`,
      device_authorization: `${OAUTH}/device/auth`,
      backchannel_authentication: `${OAUTH}/backchannel`,
    },
    interactions: { url: (_ctx, interaction) => `${OAUTH}/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return { scope: ALL_SCOPES.join(' '), audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: 3600 };
        },
      },
    },
    // OB 3.0 security: PKCE is required of every client (only S256 exists in oidc-provider 9).
    pkce: { required: () => true },
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'EdDSA',
    },
    enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] },
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator(_ctx, key, _value, metadata) {
        if (key !== 'software_id') return;
        if (!redirectUrisAllowed(metadata.redirect_uris, config.webhookAllowPrivate)) {
          throw new errors.InvalidRedirectUri('redirect_uris must be https URLs');
        }
        // Set at registration from the issue time, so a client read back from storage keeps its expiry.
        const issued = metadata.client_id_issued_at;
        if (!metadata.client_secret_expires_at && metadata.client_secret && typeof issued === 'number') {
          metadata.client_secret_expires_at = issued + CLIENT_SECRET_TTL_S;
        }
      },
    },
    // A refresh token for every client that registered the grant (OB 3.0 names a refresh URL), rotated at each use.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AuthorizationCode: 600,
      AccessToken: 3600,
      RefreshToken: 30 * 86_400,
      Interaction: 3600,
      Session: 8 * 3600,
      Grant: 30 * 86_400,
    },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    renderError: async (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
  };
  const provider = new OidcProvider(config.publicBaseUrl, configuration);
  // Every URL it builds comes from the forwarded host and protocol, which the routes always set to
  // PUBLIC_BASE_URL's (never a client's): its endpoints are the public ones on every replica.
  provider.proxy = true;
  return provider;
}
