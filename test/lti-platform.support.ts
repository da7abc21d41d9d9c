import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import {
  type CryptoKey,
  createLocalJWKSet,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  type JSONWebKeySet,
  type JWK,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';
import { freePort } from './verification.support.js';

/*
 * An LTI 1.3 Advantage platform, written from the 1EdTech specifications (not from the tool's code):
 * - LTI Dynamic Registration 1.0: an openid configuration with the platform configuration, and a
 *   registration endpoint that needs the registration token and answers with a client id and a
 *   deployment id (§3.4-§3.6).
 * - Security Framework 1.0: the OIDC authorization endpoint (§5.1.1.2) that checks the tool's
 *   authentication request and answers with a form_post of a signed id_token (§5.1.1.3); a token
 *   endpoint that accepts only a client_credentials grant with a private_key_jwt assertion signed by
 *   a key of the tool's JWKS (§4.1.1), each assertion once.
 * - Deep Linking 2.0: the return URL verifies the tool's LtiDeepLinkingResponse (§4.5) with the
 *   tool's keys, and makes a line item for a content item that asks for one.
 * - AGS 2.0 results (§3.2) and NRPS 2.0 memberships (§2), paged with Link rel="next".
 */

export const ROLE = {
  learner: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner',
  instructor: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor',
};

export interface SimUser {
  id: string;
  name: string;
  email: string | null;
  roles: string[];
}

export interface PendingLaunch {
  messageType: 'LtiResourceLinkRequest' | 'LtiDeepLinkingRequest';
  user: SimUser;
  custom?: Record<string, string>;
  lineItem?: string;
  /** Claims to set or override (forgeries). */
  claims?: Record<string, unknown>;
}

export interface Platform {
  issuer: string;
  clientId: string | null;
  deploymentId: string;
  contextId: string;
  kid: string;
  users: Map<string, SimUser>;
  /** Scores out of 100 per user id, per line item URL. */
  scores: Map<string, Map<string, number>>;
  lineItems: { url: string; label: string; scoreMaximum: number; resourceId?: string }[];
  deepLinkResponses: Record<string, unknown>[];
  registrations: Record<string, unknown>[];
  tokensIssued: number;
  pageSize: number;
  launches: Map<string, PendingLaunch>;
  registrationToken: string;
  toolJwks: string | null;
  toolLogin: string | null;
  toolLaunch: string | null;
  /** An id_token as the platform would sign it (or forged by `options`). */
  idToken(
    nonce: string,
    launch: PendingLaunch,
    options?: { key?: CryptoKey; kid?: string; alg?: string; secret?: Uint8Array },
  ): Promise<string>;
  /** Signs with a key the JWKS does not publish. */
  strangerKey: CryptoKey;
  rotate(): Promise<void>;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export interface PlatformOptions {
  /** How the platform reads the tool's key set (default: over HTTP at the jwks_uri the tool registered). */
  toolJwks?: () => Promise<JSONWebKeySet>;
  /** The issuer the openid configuration names (default: the platform's own URL); a liar names another. */
  configIssuer?: (issuer: string) => string;
}

export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  let keyPair = await generateKeyPair('RS256', { extractable: true });
  let kid = randomUUID();
  const published: JWK[] = [];
  const publish = async () =>
    published.push({ ...(await exportJWK(keyPair.publicKey)), kid, alg: 'RS256', use: 'sig' });
  await publish();
  const stranger = await generateKeyPair('RS256');
  const accessTokens = new Set<string>();
  const usedJti = new Set<string>();
  let toolKeys: JWTVerifyGetKey | null = null;

  const platform: Platform = {
    issuer,
    clientId: null,
    deploymentId: 'deployment-1',
    contextId: 'course-101',
    kid,
    users: new Map(),
    scores: new Map(),
    lineItems: [],
    deepLinkResponses: [],
    registrations: [],
    tokensIssued: 0,
    pageSize: 2,
    launches: new Map(),
    registrationToken: randomBytes(16).toString('hex'),
    toolJwks: null,
    toolLogin: null,
    toolLaunch: null,
    strangerKey: stranger.privateKey,
    async idToken(nonce, launch, options = {}) {
      const claims: Record<string, unknown> = {
        nonce,
        sub: launch.user.id,
        name: launch.user.name,
        ...(launch.user.email ? { email: launch.user.email } : {}),
        'https://purl.imsglobal.org/spec/lti/claim/message_type': launch.messageType,
        'https://purl.imsglobal.org/spec/lti/claim/version': '1.3.0',
        'https://purl.imsglobal.org/spec/lti/claim/deployment_id': platform.deploymentId,
        'https://purl.imsglobal.org/spec/lti/claim/target_link_uri': platform.toolLaunch,
        'https://purl.imsglobal.org/spec/lti/claim/roles': launch.user.roles,
        'https://purl.imsglobal.org/spec/lti/claim/context': { id: platform.contextId, title: 'Course 101' },
        'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice': {
          context_memberships_url: `${issuer}/contexts/${platform.contextId}/memberships`,
          service_versions: ['2.0'],
        },
      };
      if (launch.messageType === 'LtiResourceLinkRequest') {
        claims['https://purl.imsglobal.org/spec/lti/claim/resource_link'] = {
          id: `rl-${launch.custom?.accolade_link ?? 'x'}`,
        };
        if (launch.custom) claims['https://purl.imsglobal.org/spec/lti/claim/custom'] = launch.custom;
        claims['https://purl.imsglobal.org/spec/lti-ags/claim/endpoint'] = {
          scope: [
            'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
            'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
          ],
          lineitems: `${issuer}/contexts/${platform.contextId}/lineitems`,
          ...(launch.lineItem ? { lineitem: launch.lineItem } : {}),
        };
      } else {
        claims['https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings'] = {
          deep_link_return_url: `${issuer}/deep-link-return`,
          accept_types: ['ltiResourceLink'],
          accept_presentation_document_targets: ['iframe', 'window'],
          accept_lineitem: true,
          data: 'opaque-platform-data',
        };
      }
      const now = Math.floor(Date.now() / 1000);
      Object.assign(claims, { iss: issuer, aud: platform.clientId, iat: now, exp: now + 300 }, launch.claims ?? {});
      const jwt = new SignJWT(claims).setProtectedHeader({
        alg: options.alg ?? 'RS256',
        kid: options.kid ?? kid,
        typ: 'JWT',
      });
      return jwt.sign(options.secret ?? options.key ?? keyPair.privateKey);
    },
    async rotate() {
      keyPair = await generateKeyPair('RS256', { extractable: true });
      kid = randomUUID();
      platform.kid = kid;
      await publish();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function bearerOk(request: IncomingMessage): Promise<boolean> {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    return token !== undefined && accessTokens.has(token);
  }

  function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  }

  /** A page of `items` and the Link header to the next one (AGS §3.2.7, NRPS §2.4.1). */
  function paged<T>(url: URL, items: T[]): { page: T[]; headers: Record<string, string> } {
    const offset = Number(url.searchParams.get('offset') ?? '0');
    const page = items.slice(offset, offset + platform.pageSize);
    if (offset + platform.pageSize >= items.length) return { page, headers: {} };
    const next = new URL(url.href);
    next.searchParams.set('offset', String(offset + platform.pageSize));
    return { page, headers: { link: `<${next.href}>; rel="next"` } };
  }

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    try {
      if (url.pathname === '/.well-known/openid-configuration') {
        return json(response, 200, {
          issuer: options.configIssuer ? options.configIssuer(issuer) : issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          registration_endpoint: `${issuer}/register`,
          scopes_supported: ['openid', 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem'],
          response_types_supported: ['id_token'],
          id_token_signing_alg_values_supported: ['RS256'],
          token_endpoint_auth_methods_supported: ['private_key_jwt'],
          'https://purl.imsglobal.org/spec/lti-platform-configuration': {
            product_family_code: 'simulator',
            version: '1.0',
            messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }],
          },
        });
      }
      if (url.pathname === '/jwks') return json(response, 200, { keys: published });
      if (url.pathname === '/register' && request.method === 'POST') {
        if (request.headers.authorization !== `Bearer ${platform.registrationToken}`)
          return json(response, 401, { error: 'invalid_token' });
        const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
        const config = body['https://purl.imsglobal.org/spec/lti-tool-configuration'] as
          | Record<string, unknown>
          | undefined;
        const required = ['initiate_login_uri', 'redirect_uris', 'jwks_uri', 'client_name'];
        if (
          required.some((k) => !(k in body)) ||
          body.token_endpoint_auth_method !== 'private_key_jwt' ||
          !config?.domain ||
          !config.target_link_uri
        ) {
          return json(response, 400, { error: 'invalid_client_metadata' });
        }
        platform.registrations.push(body);
        platform.clientId = `client-${randomBytes(4).toString('hex')}`;
        platform.toolJwks = String(body.jwks_uri);
        platform.toolLogin = String(body.initiate_login_uri);
        platform.toolLaunch = String((body.redirect_uris as string[])[0]);
        const fetchToolJwks = options.toolJwks;
        toolKeys = fetchToolJwks
          ? async (header, token) => createLocalJWKSet(await fetchToolJwks())(header, token)
          : createRemoteJWKSet(new URL(platform.toolJwks));
        return json(response, 200, {
          ...body,
          client_id: platform.clientId,
          'https://purl.imsglobal.org/spec/lti-tool-configuration': { ...config, deployment_id: platform.deploymentId },
        });
      }
      if (url.pathname === '/auth') {
        // Security Framework 1.0 §5.1.1.2: the authentication request the tool must send.
        const q = url.searchParams;
        const launch = platform.launches.get(q.get('lti_message_hint') ?? '');
        if (
          q.get('scope') !== 'openid' ||
          q.get('response_type') !== 'id_token' ||
          q.get('response_mode') !== 'form_post' ||
          q.get('prompt') !== 'none' ||
          q.get('client_id') !== platform.clientId ||
          q.get('redirect_uri') !== platform.toolLaunch ||
          !q.get('nonce') ||
          !q.get('state') ||
          !launch ||
          q.get('login_hint') !== launch.user.id
        ) {
          response.writeHead(400, { 'content-type': 'text/plain' });
          return response.end('invalid authentication request');
        }
        const token = await platform.idToken(q.get('nonce') ?? '', launch);
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end(`<!doctype html><html><body><form id="f" method="post" action="${escapeHtml(platform.toolLaunch ?? '')}">
<input type="hidden" name="id_token" value="${escapeHtml(token)}"><input type="hidden" name="state" value="${escapeHtml(q.get('state') ?? '')}">
</form><script>document.getElementById('f').submit()</script></body></html>`);
      }
      if (url.pathname === '/deep-link-return' && request.method === 'POST') {
        const form = new URLSearchParams(await readBody(request));
        if (!toolKeys) throw new Error('not registered');
        const { payload } = await jwtVerify(form.get('JWT') ?? '', toolKeys, {
          algorithms: ['RS256'],
          issuer: platform.clientId ?? '',
          audience: issuer,
        });
        if (payload['https://purl.imsglobal.org/spec/lti/claim/message_type'] !== 'LtiDeepLinkingResponse')
          throw new Error('not a response');
        if (payload['https://purl.imsglobal.org/spec/lti/claim/deployment_id'] !== platform.deploymentId)
          throw new Error('deployment');
        if (payload['https://purl.imsglobal.org/spec/lti-dl/claim/data'] !== 'opaque-platform-data')
          throw new Error('data not echoed');
        platform.deepLinkResponses.push(payload as Record<string, unknown>);
        for (const item of (payload['https://purl.imsglobal.org/spec/lti-dl/claim/content_items'] as Record<
          string,
          unknown
        >[]) ?? []) {
          const lineItem = item.lineItem as { label: string; scoreMaximum: number; resourceId?: string } | undefined;
          if (lineItem) {
            const lineUrl = `${issuer}/contexts/${platform.contextId}/lineitems/${platform.lineItems.length + 1}/lineitem`;
            platform.lineItems.push({ url: lineUrl, ...lineItem });
            platform.scores.set(lineUrl, new Map());
          }
        }
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<!doctype html><title>Placed</title><h1>Item placed in the course</h1>');
      }
      if (url.pathname === '/token' && request.method === 'POST') {
        const form = new URLSearchParams(await readBody(request));
        if (form.get('grant_type') !== 'client_credentials')
          return json(response, 400, { error: 'unsupported_grant_type' });
        if (
          form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' ||
          !toolKeys
        ) {
          return json(response, 400, { error: 'invalid_client' });
        }
        try {
          const { payload } = await jwtVerify(form.get('client_assertion') ?? '', toolKeys, {
            algorithms: ['RS256'],
            issuer: platform.clientId ?? '',
            subject: platform.clientId ?? '',
            audience: `${issuer}/token`,
            requiredClaims: ['jti', 'exp', 'iat'],
          });
          if (usedJti.has(String(payload.jti))) return json(response, 400, { error: 'invalid_grant' });
          usedJti.add(String(payload.jti));
        } catch {
          return json(response, 401, { error: 'invalid_client' });
        }
        const access = randomBytes(16).toString('hex');
        accessTokens.add(access);
        platform.tokensIssued++;
        return json(response, 200, {
          access_token: access,
          token_type: 'Bearer',
          expires_in: 3600,
          scope: form.get('scope'),
        });
      }
      const results = /^\/contexts\/[^/]+\/lineitems\/(\d+)\/lineitem\/results$/.exec(url.pathname);
      if (results && request.method === 'GET') {
        if (!(await bearerOk(request))) return json(response, 401, { error: 'unauthorized' });
        if (request.headers.accept !== 'application/vnd.ims.lis.v2.resultcontainer+json')
          return json(response, 406, {});
        const lineUrl = `${issuer}${url.pathname.replace(/\/results$/, '')}`;
        const only = url.searchParams.get('user_id');
        const all = [...(platform.scores.get(lineUrl) ?? new Map()).entries()]
          .filter(([user]) => only === null || user === only)
          .map(([user, score]) => ({
            id: `${lineUrl}/results/${user}`,
            scoreOf: lineUrl,
            userId: user,
            resultScore: score,
            resultMaximum: 100,
          }));
        const { page, headers } = paged(url, all);
        return json(response, 200, page, {
          ...headers,
          'content-type': 'application/vnd.ims.lis.v2.resultcontainer+json',
        });
      }
      if (/^\/contexts\/[^/]+\/memberships$/.test(url.pathname) && request.method === 'GET') {
        if (!(await bearerOk(request))) return json(response, 401, { error: 'unauthorized' });
        const members = [...platform.users.values()].map((u) => ({
          status: 'Active',
          name: u.name,
          user_id: u.id,
          roles: u.roles,
          ...(u.email ? { email: u.email } : {}),
        }));
        const { page, headers } = paged(url, members);
        return json(
          response,
          200,
          { id: url.href, context: { id: platform.contextId }, members: page },
          { ...headers, 'content-type': 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json' },
        );
      }
      json(response, 404, { error: 'not_found' });
    } catch (err) {
      json(response, 400, { error: (err as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return platform;
}

/** How a test reaches the tool: a POST of a form, answered with its status, headers and body. */
export type ToolPost = (
  path: string,
  form: Record<string, string | string[]>,
  cookie?: string,
) => Promise<{ status: number; location: string | null; setCookie: string | null; body: string }>;

export const formField = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';

/**
 * A launch as the browser makes it: the login at the tool, the platform's authorization endpoint
 * (which signs the id_token), the form_post back to the tool with the login's cookie.
 */
export async function authorizeThrough(sim: Platform, post: ToolPost, toolBase: string, pending: PendingLaunch) {
  const hint = randomUUID();
  sim.launches.set(hint, pending);
  const login = await post('/lti/login', {
    iss: sim.issuer,
    login_hint: pending.user.id,
    target_link_uri: `${toolBase}/lti/launch`,
    lti_message_hint: hint,
    client_id: sim.clientId ?? '',
  });
  if (login.status !== 302 || !login.location) throw new Error(`login answered ${login.status}`);
  const cookie = (login.setCookie ?? '').split(';')[0] ?? '';
  const auth = await (await fetch(login.location)).text();
  return {
    token: formField(auth, 'id_token'),
    state: formField(auth, 'state'),
    cookie,
    location: new URL(login.location),
  };
}

export async function launchThrough(sim: Platform, post: ToolPost, toolBase: string, pending: PendingLaunch) {
  const authorized = await authorizeThrough(sim, post, toolBase, pending);
  const launched = await post(
    '/lti/launch',
    { id_token: authorized.token, state: authorized.state },
    authorized.cookie,
  );
  return { status: launched.status, html: launched.body, ...authorized };
}

/** The tool reached in-process (app.inject), for tests that do not listen. */
export function injectPost(app: { inject: FastifyInstance['inject'] }): ToolPost {
  return async (path, form, cookie) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) for (const one of [value].flat()) body.append(name, one);
    const answer = await app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      payload: body.toString(),
    });
    const setCookie = answer.headers['set-cookie'];
    return {
      status: answer.statusCode,
      location: typeof answer.headers.location === 'string' ? answer.headers.location : null,
      setCookie: Array.isArray(setCookie) ? (setCookie[0] ?? null) : (setCookie ?? null),
      body: answer.body,
    };
  };
}

/** Registers the tool with `sim` through a registration URL made for the issuer of `apiKey`. */
export async function registerThrough(
  sim: Platform,
  get: (url: string) => Promise<{ status: number; body: string }>,
  registrationUrl: string,
): Promise<void> {
  const query = new URLSearchParams({
    openid_configuration: `${sim.issuer}/.well-known/openid-configuration`,
    registration_token: sim.registrationToken,
  });
  const answer = await get(`${registrationUrl}?${query}`);
  if (answer.status !== 200) throw new Error(`registration answered ${answer.status}`);
}

/** Places a badge through the deep linking picker; answers the placed link's id. */
export async function placeThrough(
  sim: Platform,
  post: ToolPost,
  toolBase: string,
  instructor: SimUser,
  definitionId: string,
  rule: 'launch' | 'score',
): Promise<string> {
  const picker = await launchThrough(sim, post, toolBase, { messageType: 'LtiDeepLinkingRequest', user: instructor });
  const done = await post('/lti/deep-links', {
    token: formField(picker.html, 'token'),
    definitionId,
    rule,
    minScore: '80',
  });
  const jwt = formField(done.body, 'JWT');
  const before = sim.deepLinkResponses.length;
  await fetch(`${sim.issuer}/deep-link-return`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ JWT: jwt }),
  });
  const response = sim.deepLinkResponses[before];
  const [item] = (response?.['https://purl.imsglobal.org/spec/lti-dl/claim/content_items'] ?? []) as Record<
    string,
    unknown
  >[];
  return (item?.custom as Record<string, string> | undefined)?.accolade_link ?? '';
}
