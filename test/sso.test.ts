import { createServer } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyEncryptionKey, open, seal } from '../src/core/kek.js';
import {
  FLOW_COOKIE,
  FLOW_SEAL_CONTEXT,
  SSO_FAILED_EXCHANGES_PER_ADDRESS,
  SSO_FAILED_EXCHANGES_PER_ISSUER,
  type SsoFlow,
} from '../src/modules/accounts/sso.service.js';
import { type ConsoleUser, consoleUser, PASSWORD, sessionCookie } from './console.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  loginAtProvider,
  startProvider,
  startSignIn,
  type TestProvider,
  UNVERIFIED,
} from './sso.support.js';
import { freePort } from './verification.support.js';

const DOMAIN = 'staff.example';
const REDIRECT_URI = 'https://badges.test/sso/callback';

describe.each(dialects)('console sign-in through an OpenID Connect provider on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let owner: ConsoleUser;
  let provider: TestProvider;

  beforeAll(async () => {
    provider = await startProvider(REDIRECT_URI);
    t = await createTestApp(dialect);
    issuer = await t.issuer({ name: 'SSO Academy' });
    owner = await consoleUser(t.app, issuer.id, 'owner');
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  const settings = (extra: Record<string, unknown> = {}) => ({
    providerName: 'Staff Login',
    issuerUrl: provider.issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    allowedDomain: DOMAIN,
    passwordSignIn: true,
    ...extra,
  });
  const put = (payload: object, headers = owner.headers) =>
    t.app.inject({ method: 'PUT', url: '/api/v1/sso/settings', headers, payload });

  /** The whole dance: start at the app, log in at the provider, come back with the flow cookie. */
  async function signInAs(login: string): Promise<LightMyRequestResponse> {
    const { location, cookie } = await startSignIn(t.app, issuer.slug);
    const back = await loginAtProvider(location, login);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    return t.app.inject({ method: 'GET', url: `/sso/callback${back.search}`, headers: { cookie } });
  }

  async function sessionOf(res: LightMyRequestResponse) {
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe('/console/dashboard');
    const cookie = sessionCookie(res);
    const session = await t.app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie } });
    expect(session.statusCode, session.body).toBe(200);
    return session.json().user as { id: string; email: string; role: string };
  }

  function refusedWith(res: LightMyRequestResponse, reason: string): void {
    expect(res.statusCode, res.body).toBe(302);
    const target = new URL(String(res.headers.location), 'https://badges.test');
    expect(target.pathname).toBe('/console/login');
    expect(target.searchParams.get('sso')).toBe(reason);
    const cookies = [res.headers['set-cookie'] ?? []].flat();
    expect(cookies.some((line) => line.startsWith('accolade_session='))).toBe(false);
  }

  it('lets an owner set the provider up: discovered at once, secret sealed and never returned, audited', async () => {
    const created = await put(settings());
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toEqual({
      providerName: 'Staff Login',
      issuerUrl: provider.issuer,
      clientId: CLIENT_ID,
      allowedDomain: DOMAIN,
      passwordSignIn: true,
      redirectUri: REDIRECT_URI,
      signInUrl: `https://badges.test/console/login?issuer=${issuer.slug}`,
      updatedAt: expect.any(String),
    });
    const read = await t.app.inject({ method: 'GET', url: '/api/v1/sso/settings', headers: owner.headers });
    expect(read.json()).toEqual(created.json());
    expect(read.body).not.toContain(CLIENT_SECRET);
    const row = await t.database.db
      .selectFrom('console_sso')
      .selectAll()
      .where('issuer_id', '=', issuer.id)
      .executeTakeFirstOrThrow();
    expect(row.client_secret_sealed).not.toContain(CLIENT_SECRET);
    expect(open(keyEncryptionKey(t.config), row.client_secret_sealed, `console_sso:${issuer.id}`)).toBe(CLIENT_SECRET);

    // A change without the secret keeps it.
    const { clientSecret: _, ...withoutSecret } = settings({ providerName: 'Staff Login' });
    expect((await put(withoutSecret)).statusCode).toBe(200);
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('issuer_id', '=', issuer.id)
      .where('target_type', '=', 'console_sso')
      .orderBy('seq')
      .execute();
    expect(audit).toEqual([
      { actor: `user:${owner.userId}`, action: 'console_sso.configured' },
      { actor: `user:${owner.userId}`, action: 'console_sso.updated' },
    ]);

    const options = await t.app.inject({ method: 'GET', url: `/api/v1/sso/issuers/${issuer.slug}` });
    expect(options.json()).toEqual({
      providerName: 'Staff Login',
      passwordSignIn: true,
      startUrl: `/sso/start/${issuer.slug}`,
    });
  });

  it('refuses bad settings with 400, other roles with 403, API keys with 403', async () => {
    const other = await t.issuer();
    const otherOwner = await consoleUser(t.app, other.id, 'owner');
    expectErrorBody(
      await put(settings({ issuerUrl: 'ftp://127.0.0.1/' }), otherOwner.headers),
      400,
      'validation_failed',
    );
    expectErrorBody(await put(settings({ allowedDomain: '@x' }), otherOwner.headers), 400, 'validation_failed');
    expectErrorBody(await put(settings({ extra: 1 }), otherOwner.headers), 400, 'validation_failed');
    // Not an OpenID Connect provider: nothing is stored.
    const notOidc = await put(settings({ issuerUrl: 'http://127.0.0.1:9/' }), otherOwner.headers);
    expectErrorBody(notOidc, 400, 'validation_failed');
    const { clientSecret: _, ...withoutSecret } = settings();
    expectErrorBody(await put(withoutSecret, otherOwner.headers), 400, 'validation_failed');
    expectErrorBody(
      await t.app.inject({ method: 'GET', url: '/api/v1/sso/settings', headers: otherOwner.headers }),
      404,
      'not_found',
    );

    const viewer = await consoleUser(t.app, other.id, 'viewer');
    expectErrorBody(await put(settings(), viewer.headers), 403, 'forbidden');
    expectErrorBody(await put(settings(), auth(other.key)), 403, 'forbidden');
    // An unknown issuer and an issuer without a provider look the same.
    const none = await t.app.inject({ method: 'GET', url: `/api/v1/sso/issuers/${other.slug}` });
    const unknown = await t.app.inject({ method: 'GET', url: '/api/v1/sso/issuers/no-such-issuer' });
    expectErrorBody(none, 404, 'not_found');
    expect(unknown.body).toBe(none.body);
    const start = await t.app.inject({ method: 'GET', url: `/sso/start/${other.slug}` });
    expect(start.headers.location).toBe(`/console/login?issuer=${other.slug}&sso=unavailable`);
  });

  it('signs an invited user in with their role, audited with the user as actor and the method', async () => {
    const invited = await t.app.services.accounts.invite(issuer.id, 'Editor@Staff.example', 'issuer', 'system');
    const user = await sessionOf(await signInAs('editor@staff.example'));
    expect(user).toMatchObject({ id: invited.user.id, role: 'issuer' });
    const record = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'details'])
      .where('action', '=', 'console_user.signed_in')
      .where('target_id', '=', invited.user.id)
      .executeTakeFirstOrThrow();
    expect(record.actor).toBe(`user:${invited.user.id}`);
    expect(JSON.parse(String(record.details))).toEqual({ method: 'sso' });
    const team = await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: owner.headers });
    expect(team.json().items.find((m: { id: string }) => m.id === invited.user.id).status).toBe('active');
  });

  it('lets a verified address of the allowed domain in as a viewer, once', async () => {
    const first = await sessionOf(await signInAs(`newcomer@${DOMAIN}`));
    expect(first.role).toBe('viewer');
    const again = await sessionOf(await signInAs(`newcomer@${DOMAIN}`));
    expect(again.id).toBe(first.id);
    const joined = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('target_id', '=', first.id)
      .where('action', '=', 'console_user.joined')
      .execute();
    expect(joined).toEqual([{ actor: `user:${first.id}`, action: 'console_user.joined' }]);
  });

  it('refuses other addresses, unverified ones and look-alike domains', async () => {
    refusedWith(await signInAs('stranger@elsewhere.example'), 'not_allowed');
    refusedWith(await signInAs(`someone@evil${DOMAIN}`), 'not_allowed');
    refusedWith(await signInAs(`${UNVERIFIED}person@${DOMAIN}`), 'unverified');
    const users = await t.database.db
      .selectFrom('console_users')
      .select('email')
      .where('issuer_id', '=', issuer.id)
      .execute();
    expect(users.map((u) => u.email)).not.toContain('stranger@elsewhere.example');
  });

  it('compares addresses as the invite path does: the Kelvin sign is not a k (issue 48 §5)', async () => {
    const kate = await t.app.services.accounts.invite(issuer.id, `kate@${DOMAIN}`, 'owner', 'system');
    refusedWith(await signInAs(`\u212Aate@${DOMAIN}`), 'not_allowed');
    refusedWith(await signInAs(`KATE\u0130@${DOMAIN}`), 'not_allowed');
    // ASCII case still folds, as an invite stores it.
    expect((await sessionOf(await signInAs(`KaTe@${DOMAIN.toUpperCase()}`))).id).toBe(kate.user.id);
  });

  it('refuses what an invite refuses when an address of the allowed domain joins (issue 48 §6)', async () => {
    const before = await t.database.db
      .selectFrom('console_users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('issuer_id', '=', issuer.id)
      .executeTakeFirstOrThrow();
    for (const login of [
      `a@b@${DOMAIN}`,
      `nul\u0000byte@${DOMAIN}`,
      `carriage\r\nreturn@${DOMAIN}`,
      `${'a'.repeat(4_980)}@${DOMAIN}`,
      `${'l'.repeat(65)}@${DOMAIN}`,
      `spaced out@${DOMAIN}`,
    ]) {
      refusedWith(await signInAs(login), 'not_allowed');
      expectErrorBody(
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/users',
          headers: owner.headers,
          payload: { email: login, role: 'viewer' },
        }),
        400,
        'validation_failed',
      );
    }
    const after = await t.database.db
      .selectFrom('console_users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('issuer_id', '=', issuer.id)
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('refuses a callback without its cookie, with another flow’s state, and with a wrong nonce', async () => {
    await t.app.services.accounts.invite(issuer.id, `flows@${DOMAIN}`, 'issuer', 'system');
    // No cookie: a login CSRF (someone else's code sent to this browser) finds no flow.
    const a = await startSignIn(t.app, issuer.slug);
    const backA = await loginAtProvider(a.location, `flows@${DOMAIN}`);
    refusedWith(await t.app.inject({ method: 'GET', url: `/sso/callback${backA.search}` }), 'expired');

    // Another flow's cookie: the state does not match.
    const b = await startSignIn(t.app, issuer.slug);
    const c = await startSignIn(t.app, issuer.slug);
    const backB = await loginAtProvider(b.location, `flows@${DOMAIN}`);
    const crossed = await t.app.inject({
      method: 'GET',
      url: `/sso/callback${backB.search}`,
      headers: { cookie: c.cookie },
    });
    refusedWith(crossed, 'failed');

    // The right state with a different nonce (a flow sealed with the server's key): the ID token is refused.
    const d = await startSignIn(t.app, issuer.slug);
    const kek = keyEncryptionKey(t.config);
    const flow = JSON.parse(open(kek, d.cookie.slice(FLOW_COOKIE.length + 1), FLOW_SEAL_CONTEXT)) as SsoFlow;
    const forged = seal(kek, JSON.stringify({ ...flow, nonce: 'not-the-nonce-sent' }), FLOW_SEAL_CONTEXT);
    const backD = await loginAtProvider(d.location, `flows@${DOMAIN}`);
    const wrongNonce = await t.app.inject({
      method: 'GET',
      url: `/sso/callback${backD.search}`,
      headers: { cookie: `${FLOW_COOKIE}=${forged}` },
    });
    refusedWith(wrongNonce, 'failed');

    // A tampered cookie is no flow at all.
    const e = await startSignIn(t.app, issuer.slug);
    const backE = await loginAtProvider(e.location, `flows@${DOMAIN}`);
    const tampered = await t.app.inject({
      method: 'GET',
      url: `/sso/callback${backE.search}`,
      headers: { cookie: `${e.cookie.slice(0, -2)}xx` },
    });
    refusedWith(tampered, 'expired');
  });

  it('uses a flow once: a replayed callback is refused before the provider is asked again', async () => {
    await t.app.services.accounts.invite(issuer.id, `once@${DOMAIN}`, 'issuer', 'system');
    const { location, cookie } = await startSignIn(t.app, issuer.slug);
    const back = await loginAtProvider(location, `once@${DOMAIN}`);
    const callback = () => t.app.inject({ method: 'GET', url: `/sso/callback${back.search}`, headers: { cookie } });
    await sessionOf(await callback());
    // The provider would refuse the used code (failed); the app refuses the used flow first.
    refusedWith(await callback(), 'expired');
  });

  it('refuses a callback that repeats a parameter with a redirect to the login page, not a 400 page', async () => {
    const { location, cookie } = await startSignIn(t.app, issuer.slug);
    const back = await loginAtProvider(location, `repeated@${DOMAIN}`);
    const query = new URLSearchParams(back.search);
    query.append('code', 'another-code');
    query.append('session_state', 'a-parameter-of-the-provider');
    const res = await t.app.inject({ method: 'GET', url: `/sso/callback?${query}`, headers: { cookie } });
    refusedWith(res, 'failed');
    expect(res.headers.location).toBe(`/console/login?issuer=${issuer.slug}&sso=failed`);
  });

  it('remembers a provider that cannot be discovered for a while: two starts make one request to it', async () => {
    const other = await t.issuer();
    const otherOwner = await consoleUser(t.app, other.id, 'owner');
    expect((await put(settings(), otherOwner.headers)).statusCode).toBe(200);
    // The provider goes down: its address now answers 503 to everything, counting the requests.
    let requests = 0;
    const down = createServer((_req, res) => {
      requests++;
      res.writeHead(503).end();
    });
    const port = await freePort();
    await new Promise<void>((resolve) => down.listen(port, '127.0.0.1', resolve));
    try {
      await t.database.db
        .updateTable('console_sso')
        .set({ issuer_url: `http://127.0.0.1:${port}`, updated_at: '2001-01-01T00:00:00.000Z' })
        .where('issuer_id', '=', other.id)
        .execute();
      for (let attempt = 0; attempt < 2; attempt++) {
        const start = await t.app.inject({ method: 'GET', url: `/sso/start/${other.slug}` });
        expect(start.headers.location).toBe(`/console/login?issuer=${other.slug}&sso=unavailable`);
      }
      expect(requests).toBe(1);
    } finally {
      await new Promise<void>((resolve) => down.close(() => resolve()));
    }
  });

  it('turns password sign-in off: the right password is told to use the provider, a wrong one is not', async () => {
    const staff = await consoleUser(t.app, issuer.id, 'issuer', `password-user@${DOMAIN}`);
    const invited = await t.app.services.accounts.invite(issuer.id, `later@${DOMAIN}`, 'viewer', 'system');
    expect((await put(settings({ passwordSignIn: false }))).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/sso/issuers/${issuer.slug}` })).json()).toMatchObject({
      passwordSignIn: false,
    });

    const signIn = (password: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/session', payload: { email: staff.email, password } });
    const right = expectErrorBody(await signIn(PASSWORD), 401, 'unauthorized');
    expect(right.message).toContain('its own login');
    const wrong = expectErrorBody(await signIn('not the password at all'), 401, 'unauthorized');
    expect(wrong.message).toBe('Email or password is incorrect.');
    const accept = await t.app.inject({
      method: 'POST',
      url: `/api/v1/invites/${invited.inviteUrl.split('/').pop()}/accept`,
      payload: { password: PASSWORD },
    });
    expectErrorBody(accept, 403, 'forbidden');

    // The provider still lets them in.
    expect((await sessionOf(await signInAs(staff.email))).id).toBe(staff.userId);
  });

  it('ends the password sessions when password sign-in is turned off, and keeps those opened through the provider (issue 48 §7)', async () => {
    // The test before turned password sign-in off, which ended the owner's password session: the
    // owner comes back through the provider.
    expectErrorBody(await put(settings({ passwordSignIn: true })), 401, 'unauthorized');
    const back = await signInAs(owner.email);
    const cookie = sessionCookie(back);
    const csrf = (await t.app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie } })).json().csrfToken;
    owner = { ...owner, cookie, csrf, headers: { cookie, 'x-csrf-token': csrf } };
    expect((await put(settings({ passwordSignIn: true }))).statusCode).toBe(200);
    const byPassword = await consoleUser(t.app, issuer.id, 'issuer', `by-password@${DOMAIN}`);
    const viaProvider = await signInAs(`by-provider@${DOMAIN}`);
    const providerCookie = sessionCookie(viaProvider);
    const alive = async (cookie: string) =>
      (await t.app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie } })).statusCode;
    expect(await alive(byPassword.cookie)).toBe(200);
    expect(await alive(providerCookie)).toBe(200);

    const off = await put(settings({ passwordSignIn: false }));
    expect(off.statusCode, off.body).toBe(200);
    expect(await alive(byPassword.cookie)).toBe(401);
    expect(await alive(providerCookie)).toBe(200);
    expect(await alive(owner.cookie)).toBe(200);
    const record = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'details'])
      .where('issuer_id', '=', issuer.id)
      .where('action', '=', 'console_sso.updated')
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(record.actor).toBe(`user:${owner.userId}`);
    expect(JSON.parse(String(record.details)).passwordSessionsEnded).toBe(1);
  });

  it('removes the provider: audited, and password sign-in works again', async () => {
    const removed = await t.app.inject({ method: 'DELETE', url: '/api/v1/sso/settings', headers: owner.headers });
    expect(removed.statusCode, removed.body).toBe(204);
    expectErrorBody(
      await t.app.inject({ method: 'DELETE', url: '/api/v1/sso/settings', headers: owner.headers }),
      404,
      'not_found',
    );
    expectErrorBody(await t.app.inject({ method: 'GET', url: `/api/v1/sso/issuers/${issuer.slug}` }), 404, 'not_found');
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { email: `password-user@${DOMAIN}`, password: PASSWORD },
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const record = await t.database.db
      .selectFrom('audit_log')
      .select('actor')
      .where('action', '=', 'console_sso.removed')
      .executeTakeFirstOrThrow();
    expect(record.actor).toBe(`user:${owner.userId}`);
  });
});

describe.each(dialects)(
  'failed token exchanges are bounded per address and per issuer, and never refuse a sign-in on %s (issue 48 §7, review)',
  (dialect) => {
    const clock = manualClock('2026-12-01T09:00:00.000Z');
    const OFFICE = '203.0.113.7';
    let t: TestApp;
    let provider: TestProvider;

    beforeAll(async () => {
      provider = await startProvider(REDIRECT_URI);
      t = await createTestApp(dialect, { clock });
    });
    afterAll(async () => {
      await t?.close();
      await provider?.close();
    });

    async function configured(): Promise<TestIssuer> {
      const issuer = await t.issuer();
      const owner = await consoleUser(t.app, issuer.id, 'owner');
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/sso/settings',
        headers: owner.headers,
        payload: {
          providerName: 'Staff Login',
          issuerUrl: provider.issuer,
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
          allowedDomain: DOMAIN,
          passwordSignIn: true,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      return issuer;
    }

    const reasonOf = (res: LightMyRequestResponse) => {
      expect(res.statusCode).toBe(302);
      const target = new URL(String(res.headers.location), 'https://badges.test');
      return target.pathname === '/console/dashboard' ? 'signed-in' : target.searchParams.get('sso');
    };

    /** An anonymous start and a callback with a made-up code from `address`: the reason it is refused for. */
    async function junk(issuer: TestIssuer, address: string): Promise<string | null> {
      const { location, cookie } = await startSignIn(t.app, issuer.slug);
      const state = new URL(location).searchParams.get('state') ?? '';
      return reasonOf(
        await t.app.inject({
          method: 'GET',
          url: `/sso/callback?code=made-up&state=${state}`,
          headers: { cookie },
          remoteAddress: address,
        }),
      );
    }

    /** A real member of staff signing in through the provider from `address`. */
    async function staff(issuer: TestIssuer, login: string, address: string): Promise<string | null> {
      const { location, cookie } = await startSignIn(t.app, issuer.slug);
      const back = await loginAtProvider(location, login);
      return reasonOf(
        await t.app.inject({
          method: 'GET',
          url: `/sso/callback${back.search}`,
          headers: { cookie },
          remoteAddress: address,
        }),
      );
    }

    it(`refuses an address past ${SSO_FAILED_EXCHANGES_PER_ADDRESS} failures a minute without asking the provider; others and sign-ins go on`, async () => {
      const issuer = await configured();
      const reasons: (string | null)[] = [];
      for (let i = 0; i < SSO_FAILED_EXCHANGES_PER_ADDRESS; i++) reasons.push(await junk(issuer, '198.51.100.9'));
      expect(new Set(reasons)).toEqual(new Set(['failed']));
      expect(await junk(issuer, '198.51.100.9')).toBe('unavailable');
      // Another address has its own count.
      expect(await junk(issuer, '198.51.100.10')).toBe('failed');
      // A whole office behind one address signs in, more often than the failure budget: only failures count.
      for (let i = 0; i < SSO_FAILED_EXCHANGES_PER_ADDRESS + 5; i++) {
        expect(await staff(issuer, `teacher${i}@${DOMAIN}`, OFFICE)).toBe('signed-in');
      }
      clock.advance(60_000);
      expect(await junk(issuer, '198.51.100.9')).toBe('failed');
    }, 180_000);

    it('counts an exchange before it is made: parallel junk from one address passes only its budget', async () => {
      const issuer = await configured();
      const reasons = await Promise.all(
        Array.from({ length: 3 * SSO_FAILED_EXCHANGES_PER_ADDRESS }, () => junk(issuer, '198.51.100.77')),
      );
      expect(reasons.filter((r) => r === 'failed')).toHaveLength(SSO_FAILED_EXCHANGES_PER_ADDRESS);
      expect(reasons.filter((r) => r === 'unavailable')).toHaveLength(2 * SSO_FAILED_EXCHANGES_PER_ADDRESS);
      clock.advance(60_000);
    }, 120_000);

    it('counts an IPv6 client by its /64', async () => {
      const issuer = await configured();
      for (let i = 0; i < SSO_FAILED_EXCHANGES_PER_ADDRESS; i++) {
        expect(await junk(issuer, `2001:db8:1:2::${(i + 1).toString(16)}`)).toBe('failed');
      }
      expect(await junk(issuer, '2001:db8:1:2:ffff::1')).toBe('unavailable');
      expect(await junk(issuer, '2001:db8:1:3::1')).toBe('failed');
      clock.advance(60_000);
    }, 120_000);

    it(`stops junk from many addresses at ${SSO_FAILED_EXCHANGES_PER_ISSUER} failures a minute, and still lets staff in from an address that signed in before`, async () => {
      const issuer = await configured();
      const other = await configured();
      expect(await staff(issuer, `registrar@${DOMAIN}`, OFFICE)).toBe('signed-in');
      const reasons: (string | null)[] = [];
      for (let i = 0; i < SSO_FAILED_EXCHANGES_PER_ISSUER; i++) {
        reasons.push(await junk(issuer, `192.0.2.${Math.floor(i / SSO_FAILED_EXCHANGES_PER_ADDRESS)}`));
      }
      expect(new Set(reasons)).toEqual(new Set(['failed']));
      // The backstop is spent: a fresh address is not heard, the office that signed in before is.
      expect(await junk(issuer, '192.0.2.200')).toBe('unavailable');
      expect(await staff(issuer, `registrar@${DOMAIN}`, OFFICE)).toBe('signed-in');
      expect(await staff(issuer, `new-teacher@${DOMAIN}`, OFFICE)).toBe('signed-in');
      // Another issuer's budget is its own.
      expect(await junk(other, '192.0.2.200')).toBe('failed');
      clock.advance(60_000);
      expect(await junk(issuer, '192.0.2.200')).toBe('failed');
    }, 300_000);
  },
);

describe('the provider must be https and public outside development', () => {
  let t: TestApp;
  let owner: ConsoleUser;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    const issuer = await t.issuer();
    owner = await consoleUser(t.app, issuer.id, 'owner');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses http and private addresses before any request', async () => {
    for (const issuerUrl of [
      'http://login.example.com/',
      'https://127.0.0.1/',
      'https://localhost/',
      'https://10.0.0.1/',
    ]) {
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/sso/settings',
        headers: owner.headers,
        payload: {
          providerName: 'Login',
          issuerUrl,
          clientId: 'c',
          clientSecret: 's',
          allowedDomain: null,
          passwordSignIn: true,
        },
      });
      expectErrorBody(res, 400, 'validation_failed');
    }
  });
});
