import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { ReceivedMail } from '../scripts/reliability/lib/smtp-receiver.js';
import type { EarnerSignInLinksTable } from '../src/modules/backpack/backpack.tables.js';

export const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** Every cookie a response sets, as one Cookie header (the session and its sealed address). */
export function cookiesOf(setCookie: string | string[] | undefined): string {
  return [setCookie ?? []]
    .flat()
    .map((c) => c.split(';')[0] as string)
    .join('; ');
}

/**
 * Follows a sign-in link as a browser does: opens its page (which sets the pre-session cookie and
 * puts its binding in the form), then presses Sign in.
 */
export async function followLink(app: FastifyInstance, path: string, headers: Record<string, string> = {}) {
  const page = await app.inject({ method: 'GET', url: path });
  const binding = /name="binding" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return app.inject({
    method: 'POST',
    url: path,
    headers: { ...form, cookie: cookiesOf(page.headers['set-cookie']), ...headers },
    payload: new URLSearchParams({ binding }).toString(),
  });
}

/** The sign-in link of the latest message to `to`, as the path the app answers. */
export function signInLinkFrom(messages: ReceivedMail[], to: string, base: string): string {
  const mail = messages.filter((m) => m.to.includes(to.toLowerCase())).at(-1);
  const link = /(https?:\/\/[^\s"<>]+\/backpack\/sign-in\/[A-Za-z0-9_.-]+(?:\?next=[^\s"<>]+)?)/.exec(
    mail?.decoded.replace(/=\r?\n/g, '') ?? '',
  )?.[1];
  if (!link) throw new Error(`no sign-in link was mailed to ${to}`);
  return link.replace(base, '').replaceAll('&amp;', '&');
}

/** Asks for a link, follows it and confirms: the backpack session cookie and the page's CSRF token. */
export async function signInToBackpack(app: FastifyInstance, messages: ReceivedMail[], email: string, base: string) {
  const asked = await app.inject({
    method: 'POST',
    url: '/backpack/sign-in',
    headers: form,
    payload: new URLSearchParams({ email }).toString(),
  });
  expect(asked.statusCode, asked.body).toBe(200);
  const path = signInLinkFrom(messages, email, base);
  const confirmed = await followLink(app, path);
  expect(confirmed.statusCode, confirmed.body).toBe(303);
  const cookie = cookiesOf(confirmed.headers['set-cookie'])
    .split('; ')
    .filter((c) => !c.startsWith('accolade_backpack_sign_in='))
    .join('; ');
  const page = await app.inject({ method: 'GET', url: '/backpack', headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
  return { cookie, csrf, page, path };
}

/**
 * A backpack session for `email` without a mailbox: a sign-in link made as the service makes one
 * (its token's hash stored, the address sealed to the token), then followed. For tests whose app
 * sends no email.
 */
export async function earnerSession(app: FastifyInstance, email: string) {
  const { secrets } = app.services.backpack;
  const token = randomBytes(32).toString('base64url');
  const now = Date.now();
  await app.core.db
    .withTables<{ earner_sign_in_links: EarnerSignInLinksTable }>()
    .insertInto('earner_sign_in_links')
    .values({
      token_hash: createHash('sha256').update(token).digest('hex'),
      email_hash: secrets.emailHash(email),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 600_000).toISOString(),
      used_at: null,
    })
    .execute();
  const confirmed = await followLink(app, `/backpack/sign-in/${token}.${secrets.sealEmail(email, token)}`);
  expect(confirmed.statusCode, confirmed.body).toBe(303);
  const cookie = cookiesOf(confirmed.headers['set-cookie'])
    .split('; ')
    .filter((c) => !c.startsWith('accolade_backpack_sign_in='))
    .join('; ');
  const page = await app.inject({ method: 'GET', url: '/backpack', headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
  const account = await app.core.db
    .withTables<{ earner_accounts: { id: string; email_hash: string } }>()
    .selectFrom('earner_accounts')
    .select('id')
    .where('email_hash', '=', secrets.emailHash(email))
    .executeTakeFirstOrThrow();
  return {
    cookie,
    csrf,
    accountId: account.id,
    page,
    form: (fields: Record<string, string> = {}) => new URLSearchParams({ csrf, ...fields }).toString(),
  };
}

/** A cookie jar by name (paths ignored: every cookie goes to the one origin under test). */
function absorb(jar: Map<string, string>, response: Response) {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const at = pair.indexOf('=');
    const name = pair.slice(0, at);
    const value = pair.slice(at + 1);
    if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

/**
 * Runs an authorization request of the Open Badges API as the earner's browser would, over HTTP:
 * follows the authorization server's redirects with its cookies and the earner's backpack cookie,
 * presses "Allow" (or "Deny") on the consent page, and returns the redirect back to the client (its URL).
 */
export async function allowOverHttp(
  authorizationUrl: URL,
  backpackCookie: string,
  redirectUri: string,
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  const jar = new Map<string, string>(
    backpackCookie
      .split('; ')
      .map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)] as [string, string]),
  );
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let url = authorizationUrl.toString();
  for (let hop = 0; hop < 12; hop++) {
    if (url.startsWith(redirectUri)) return new URL(url);
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: cookie() } });
    absorb(jar, response);
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url).toString();
      continue;
    }
    const body = await response.text();
    const action = /<form method="post" action="([^"]+\/confirm)">/.exec(body)?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
    if (!action || !csrf) throw new Error(`no consent form at ${url} (${response.status}): ${body.slice(0, 300)}`);
    const confirmed = await fetch(new URL(action, url), {
      method: 'POST',
      redirect: 'manual',
      headers: { ...form, cookie: cookie() },
      body: new URLSearchParams({ csrf, decision }).toString(),
    });
    absorb(jar, confirmed);
    const next = confirmed.headers.get('location');
    if (!next) throw new Error(`consent was not accepted (${confirmed.status}): ${await confirmed.text()}`);
    url = new URL(next, url).toString();
  }
  throw new Error('the authorization did not come back to the client');
}
