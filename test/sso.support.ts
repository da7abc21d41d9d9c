import type { Server } from 'node:http';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { expect } from 'vitest';
import { freePort } from './verification.support.js';

export const CLIENT_ID = 'accolade-console';
export const CLIENT_SECRET = 'a-client-secret-of-the-test-provider';

/** A login at the test provider whose name starts with this gets `email_verified: false`. */
export const UNVERIFIED = 'unverified.';

export interface TestProvider {
  issuer: string;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (`oidc-provider`, the certified implementation) on a loopback port,
 * with its development login form: any login name is an account whose email is that name, verified
 * unless it starts with UNVERIFIED. Consent is granted by the provider itself (openid email), so the
 * dance is one login form. PKCE is required, as by default. `host` `localhost` puts the provider on
 * another site than an app on 127.0.0.1, as a real provider is (cookies' SameSite rules apply).
 */
export async function startProvider(redirectUri: string, host = '127.0.0.1'): Promise<TestProvider> {
  const port = await freePort();
  const issuer = `http://${host}:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    cookies: { keys: ['test-provider-cookie-key'] },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: id, email_verified: !id.startsWith(UNVERIFIED) }),
    }),
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (!accountId || !clientId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
  });
  const server: Server = provider.listen(port);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  // A provider left open by a test that stops early does not keep the worker alive.
  server.unref();
  return {
    issuer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The `name=value` pairs a response sets, added to (or replacing those of) a jar. */
function keep(jar: Map<string, string>, setCookies: string[]): void {
  for (const line of setCookies) {
    const pair = line.split(';')[0] ?? '';
    const at = pair.indexOf('=');
    jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
}

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/**
 * Logs `login` in at the provider from `authorizationUrl`, following its redirects with its own
 * cookies, and returns where it sends the browser back (the redirect URI with code and state).
 */
export async function loginAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  let method = 'GET';
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: cookieHeader(jar) },
      ...(body ? { body } : {}),
    });
    keep(jar, response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider answered ${response.status} at ${url.pathname}`);
    const next = new URL(location, url);
    if (next.origin !== url.origin) return next;
    if (next.pathname.startsWith('/interaction/')) {
      method = 'POST';
      body = new URLSearchParams({ prompt: 'login', login, password: 'any' });
    } else {
      method = 'GET';
      body = undefined;
    }
    url = next;
  }
  throw new Error('too many redirects at the provider');
}

/** The `accolade_sso=<sealed flow>` pair set by the start of a sign-in. */
export function flowCookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const line = (Array.isArray(header) ? header : [header ?? '']).find((l) => l.startsWith('accolade_sso='));
  expect(line).toBeDefined();
  return line?.split(';')[0] ?? '';
}

/** Starts a sign-in at the app: the provider's authorization URL and the flow cookie. */
export async function startSignIn(app: FastifyInstance, slug: string): Promise<{ location: string; cookie: string }> {
  const res = await app.inject({ method: 'GET', url: `/sso/start/${slug}` });
  expect(res.statusCode, res.body).toBe(302);
  return { location: String(res.headers.location), cookie: flowCookieOf(res) };
}
