import { createServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { generateKeyPair, SignJWT } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { buildApp } from '../src/app.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { RemoteRefusal, readServiceDescription } from '../src/modules/obapi/send.client.js';
import { allowOverHttp, earnerSession, form, signInToBackpack } from './backpack.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { freePort, launchChromium } from './verification.support.js';

const EMAIL = 'Sam.Sender@Example.TEST';
const UPSERT = 'https://purl.imsglobal.org/spec/ob/v3p0/scope/credential.upsert';
const unescapeHtml = (text: string) => text.replaceAll('&amp;', '&');

/** Another platform: a second Accolade on SQLite, on its own origin and mailbox, where the earner has a backpack too. */
async function remotePlatform() {
  const smtp = await startSmtpServer(() => 'accept');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const host = await createTestApp('sqlite', {
    env: {
      PUBLIC_BASE_URL: base,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'badges@remote.test',
      SIGNING_KEY_SECRET: 'remote-platform-signing-secret-0123456789',
    },
  });
  await host.app.listen({ port, host: '127.0.0.1' });
  const rows = <T>(table: string) =>
    host.database.db
      .selectFrom(table as never)
      .selectAll()
      .execute() as Promise<T[]>;
  return {
    host,
    base,
    smtp,
    clients: async () => (await rows<{ model: string }>('oauth_payloads')).filter((r) => r.model === 'Client'),
    accessTokens: async () =>
      (await rows<{ model: string }>('oauth_payloads')).filter((r) => r.model === 'AccessToken'),
    received: () =>
      rows<{ account_id: string; credential_key: string; format: string; body: string }>('earner_api_credentials'),
    async close() {
      await host.close();
      await smtp.close();
    },
  };
}

/** A Service Description Document as OB 3.0 §6.3 shapes it, its URLs on `base`. */
function serviceDescription(base: string) {
  return {
    info: { title: 'Elsewhere' },
    servers: [{ url: `${base}/ims/ob/v3p0` }],
    components: {
      securitySchemes: {
        OAuth2ACG: {
          type: 'oauth2',
          'x-imssf-registrationUrl': `${base}/register`,
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}/authorize`,
              tokenUrl: `${base}/token`,
              scopes: { [UPSERT]: 'Add badges' },
            },
          },
        },
      },
    },
  };
}

describe('reading another platform’s Service Description Document', () => {
  it('takes its https endpoints, and http ones only where loopback is allowed (WEBHOOK_ALLOW_PRIVATE)', () => {
    expect(readServiceDescription('badges.example', serviceDescription('https://badges.example'), false)).toEqual({
      name: 'Elsewhere',
      apiBase: 'https://badges.example/ims/ob/v3p0',
      registrationUrl: 'https://badges.example/register',
      authorizationUrl: 'https://badges.example/authorize',
      tokenUrl: 'https://badges.example/token',
    });
    const plain = serviceDescription('http://127.0.0.1:9');
    expect(readServiceDescription('127.0.0.1:9', plain, true).authorizationUrl).toBe('http://127.0.0.1:9/authorize');
    expect(() => readServiceDescription('127.0.0.1:9', plain, false)).toThrow(RemoteRefusal);
  });

  it('refuses a document whose sign-in page (opened by the earner’s browser, which no guard sees) is not https', () => {
    const document = serviceDescription('https://badges.example');
    document.components.securitySchemes.OAuth2ACG.flows.authorizationCode.authorizationUrl =
      'http://badges.example/authorize';
    expect(() => readServiceDescription('badges.example', document, false)).toThrow(
      'badges.example does not describe an Open Badges 3.0 API that accepts badges (no https authorizationUrl and tokenUrl).',
    );
    document.components.securitySchemes.OAuth2ACG.flows.authorizationCode.authorizationUrl = 'javascript:alert(1)';
    expect(() => readServiceDescription('badges.example', document, true)).toThrow(RemoteRefusal);
  });
});

describe.each(dialects)('sending badges to another platform (OB 3.0 API as a consumer) on %s', (dialect) => {
  let t: TestApp;
  let remote: Awaited<ReturnType<typeof remotePlatform>>;
  let issuer: TestIssuer;
  let aBase: string;
  let callback: string;
  let earner: Awaited<ReturnType<typeof earnerSession>>;
  let atRemote: { cookie: string };
  const credentials: string[] = [];
  let firstCallback = '';

  // The earner starts ten sends in this file: the hourly cap of an account (SENDS_PER_ACCOUNT_HOUR), checked on another app below.
  const start = (fields: Record<string, string | string[]>, session = earner) => {
    const body = new URLSearchParams({ csrf: session.csrf });
    for (const [name, value] of Object.entries(fields)) {
      for (const one of [value].flat()) body.append(name, one);
    }
    return t.app.inject({
      method: 'POST',
      url: '/backpack/send',
      headers: { ...form, cookie: session.cookie },
      payload: body.toString(),
    });
  };
  const continueLink = (page: string) => unescapeHtml(/<a id="continue" href="([^"]+)"/.exec(page)?.[1] ?? '');
  /** A second replica of this service on the same database: a send started on one finishes on the other. */
  let replica: { app: FastifyInstance; database: Database };
  const finish = (url: URL | string, cookie = earner.cookie, app = t.app) => {
    const at = new URL(url, aBase);
    return app.inject({ method: 'GET', url: `${at.pathname}${at.search}`, headers: { cookie } });
  };
  const signed = async (id: string) =>
    JSON.parse((await t.app.services.vc.credentials.credential(issuer.slug, id)).dataIntegrity) as Record<
      string,
      unknown
    >;
  const auditActions = async () =>
    (
      await t.database.db
        .selectFrom('audit_log')
        .select(['action', 'actor', 'details'])
        .where('issuer_id', '=', 'earners')
        .where('action', 'like', 'backpack_send.%')
        .orderBy('id')
        .execute()
    ).map((r) => ({ ...r, details: typeof r.details === 'string' ? JSON.parse(r.details) : r.details }));

  beforeAll(async () => {
    remote = await remotePlatform();
    // This service on `localhost`, the other on 127.0.0.1: a browser keeps their backpack cookies apart.
    const aPort = await freePort();
    aBase = `http://localhost:${aPort}`;
    callback = `${aBase}/backpack/send/callback`;
    t = await createTestApp(dialect, { env: { PUBLIC_BASE_URL: aBase } });
    await t.app.listen({ port: aPort, host: '127.0.0.1' });
    issuer = await t.issuer({ name: 'Sending School' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Portable Skill', description: 'A badge that travels' },
    });
    for (const key of ['send:1', 'send:2', 'send:3']) {
      const issued = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(issuer.key),
        payload: { definitionId: definition.json().id, recipientEmail: EMAIL, completionKey: key },
      });
      expect(issued.statusCode, issued.body).toBe(201);
      credentials.push(issued.json().credentialId as string);
    }
    const database = createDatabase(t.config.database);
    replica = { app: await buildApp({ config: t.config, database, logger: false }), database };
    earner = await earnerSession(t.app, EMAIL);
    // At the other platform the earner signs in by the link its mail server received.
    atRemote = await signInToBackpack(remote.host.app, remote.smtp.messages, EMAIL, remote.base);
  }, 90_000);
  afterAll(async () => {
    await replica.app.close();
    await replica.database.close();
    await t.close();
    await remote.close();
  });

  it('registers at the other platform, runs its consent and upserts the two chosen badges there, as this service signed them', async () => {
    const formPage = await t.app.inject({ method: 'GET', url: '/backpack/send', headers: { cookie: earner.cookie } });
    expect(formPage.statusCode).toBe(200);
    for (const id of credentials) expect(formPage.body).toContain(`name="credential" value="${id}"`);
    const french = await t.app.inject({
      method: 'GET',
      url: '/backpack/send?lang=fr',
      headers: { cookie: earner.cookie },
    });
    expect(french.body).toContain('<h1>Envoyer des badges vers une autre plateforme</h1>');
    expect(french.headers['content-language']).toBe('fr');
    const home = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: earner.cookie } });
    expect(home.body).toContain('href="/backpack/send"');

    const chosen = credentials.slice(0, 2);
    const started = await start({ address: remote.base, credential: chosen });
    expect(started.statusCode, started.body).toBe(200);
    const authorization = new URL(continueLink(started.body));
    expect(authorization.origin + authorization.pathname).toBe(`${remote.base}/ims/ob/v3p0/oauth/authorize`);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorization.searchParams.get('scope')).toBe(UPSERT);
    expect(authorization.searchParams.get('redirect_uri')).toBe(callback);
    const state = authorization.searchParams.get('state') as string;
    expect(state.length).toBeGreaterThanOrEqual(32);

    // RFC 7591 at the other platform; its secret is kept sealed here, the state and verifier only hashed or sealed.
    const clients = await remote.clients();
    expect(clients).toHaveLength(1);
    const registered = JSON.parse((clients[0] as unknown as { payload: string }).payload) as Record<string, string>;
    expect(registered.redirect_uris).toEqual([callback]);
    const platforms = await t.database.db
      .selectFrom('earner_remote_platforms' as never)
      .selectAll()
      .execute();
    expect(platforms).toHaveLength(1);
    const stored = JSON.stringify(platforms);
    expect(stored).toContain(registered.client_id);
    expect(stored).not.toContain(registered.client_secret);
    const pending = JSON.stringify(
      await t.database.db
        .selectFrom('earner_send_authorizations' as never)
        .selectAll()
        .execute(),
    );
    expect(pending).not.toContain(state);

    const redirected = await allowOverHttp(authorization, atRemote.cookie, callback);
    expect(redirected.searchParams.get('state')).toBe(state);
    firstCallback = redirected.toString();
    const sent = await finish(redirected);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.body.match(/class="send-result send-created"/g)).toHaveLength(2);
    expect(sent.body).toContain(`is revoked`);
    expect(sent.body).not.toContain(redirected.searchParams.get('code') as string);

    const received = await remote.received();
    expect(received).toHaveLength(2);
    for (const id of chosen) {
      const mine = await signed(id);
      const theirs = received.find((r) => r.credential_key === mine.id);
      expect(theirs?.format).toBe('json');
      expect(JSON.parse(theirs?.body ?? 'null')).toEqual(mine);
    }
    const backpackThere = await remote.host.app.inject({
      method: 'GET',
      url: '/backpack',
      headers: { cookie: atRemote.cookie },
    });
    expect(backpackThere.body).toContain(`Sent by ${new URL(aBase).host} backpack`);
    // RFC 7009: the access token the send used is gone at the other platform.
    expect(await remote.accessTokens()).toHaveLength(0);

    // The sent and revoked records share one transaction (and may share a millisecond): read by action.
    const actions = await auditActions();
    expect(actions.map((r) => r.action).sort()).toEqual([
      'backpack_send.authorization_started',
      'backpack_send.registered',
      'backpack_send.sent',
      'backpack_send.tokens_revoked',
    ]);
    expect(actions.every((r) => r.actor === `earner:${earner.accountId}`)).toBe(true);
    const details = (action: string) => actions.find((r) => r.action === action)?.details;
    expect(details('backpack_send.sent')).toMatchObject({ created: 2, replaced: 0, failed: 0 });
    expect(details('backpack_send.tokens_revoked')).toMatchObject({ revoked: true });
  }, 60_000);

  it('sends again with the same registration, finished on another replica: the badge already there is replaced (200), the new one added (201)', async () => {
    const started = await start({
      address: `${remote.base}/ims/ob/v3p0/discovery`,
      credential: [credentials[0] as string, credentials[2] as string],
    });
    expect(started.statusCode, started.body).toBe(200);
    const redirected = await allowOverHttp(new URL(continueLink(started.body)), atRemote.cookie, callback);
    // Finished by the other replica: the authorization in flight and the registration are in the database.
    const sent = await finish(redirected, earner.cookie, replica.app);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.body.match(/class="send-result send-replaced"/g)).toHaveLength(1);
    expect(sent.body.match(/class="send-result send-created"/g)).toHaveLength(1);
    expect(await remote.clients()).toHaveLength(1);
    expect(
      await t.database.db
        .selectFrom('earner_remote_platforms' as never)
        .selectAll()
        .execute(),
    ).toHaveLength(1);
    expect(await remote.received()).toHaveLength(3);
    const registrations = (await auditActions()).filter((r) => r.action === 'backpack_send.registered');
    expect(registrations).toHaveLength(1);
  }, 60_000);

  it('refuses a replayed state, a forged one and one of another session, without a 500', async () => {
    const replayed = await finish(firstCallback);
    expect(replayed.statusCode).toBe(400);
    expect(replayed.body).toContain('start it again');
    const forged = await finish(`/backpack/send/callback?code=made-up&state=${'x'.repeat(43)}`);
    expect(forged.statusCode).toBe(400);
    const missing = await finish('/backpack/send/callback?code=made-up');
    expect(missing.statusCode).toBe(400);

    const started = await start({ address: remote.base, credential: [credentials[1] as string] });
    const redirected = await allowOverHttp(new URL(continueLink(started.body)), atRemote.cookie, callback);
    const other = await earnerSession(t.app, EMAIL);
    const elsewhere = await finish(redirected, other.cookie);
    expect(elsewhere.statusCode).toBe(400);
    // Refused for the other session only: the session that started it still finishes it, once.
    const own = await finish(redirected);
    expect(own.statusCode, own.body).toBe(200);
    expect(own.body).toContain('send-replaced');
    expect((await finish(redirected)).statusCode).toBe(400);
    const anonymous = await finish(redirected, '');
    expect(anonymous.statusCode).toBe(401);
  }, 60_000);

  it('answers a clear error for a wrong address, a platform that cannot be reached and badges not the earner’s', async () => {
    const wrong = await start({ address: `${remote.base}/nothing-here/`, credential: [credentials[0] as string] });
    expect(wrong.statusCode).toBe(502);
    expect(wrong.body).toContain('has no Open Badges 3.0 discovery document');
    const notJson = await start({
      address: `${remote.base}/ims/ob/v3p0/oauth/jwks`,
      credential: [credentials[0] as string],
    });
    expect(notJson.statusCode).toBe(502);
    const unreachable = await start({
      address: `http://127.0.0.1:${await freePort()}`,
      credential: [credentials[0] as string],
    });
    expect(unreachable.statusCode).toBe(502);
    expect(unreachable.body).toContain('could not be reached');
    const refusals = (await auditActions()).filter((r) => r.action === 'backpack_send.refused');
    expect(refusals.map((r) => r.details.step)).toEqual(['start', 'start', 'start']);
    expect(refusals[0]?.details.reason).toContain('has no Open Badges 3.0 discovery document');
    const notAnAddress = await start({ address: 'not a url', credential: [credentials[0] as string] });
    expect(notAnAddress.statusCode).toBe(400);
    const none = await start({ address: remote.base });
    expect(none.statusCode).toBe(400);
    const notMine = await start({ address: remote.base, credential: ['00000000-0000-4000-8000-000000000000'] });
    expect(notMine.statusCode).toBe(400);
    expect(notMine.body).toContain('Choose badges of your own backpack');
    const noCsrf = await start(
      { address: remote.base, credential: [credentials[0] as string] },
      { ...earner, csrf: 'stale' },
    );
    expect(noCsrf.statusCode).toBe(403);
  }, 60_000);

  it('does not reach a private address without WEBHOOK_ALLOW_PRIVATE, and caps the starts of an hour', async () => {
    const strict = await createTestApp(dialect, { env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    try {
      const id = credentials[0] as string;
      const sameAccount = await earnerSession(strict.app, 'strict.sender@example.test');
      const refused = await strict.app.inject({
        method: 'POST',
        url: '/backpack/send',
        headers: { ...form, cookie: sameAccount.cookie },
        payload: sameAccount.form({ address: remote.base, credential: id }),
      });
      // The badge is not this account's here: the check of ownership comes before any fetch.
      expect(refused.statusCode).toBe(400);
      const strictIssuer = await strict.issuer({ name: 'Strict School' });
      const definition = await strict.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: auth(strictIssuer.key),
        payload: { name: 'Local', description: 'Stays here' },
      });
      const issued = await strict.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(strictIssuer.key),
        payload: {
          definitionId: definition.json().id,
          recipientEmail: 'strict.sender@example.test',
          completionKey: 'strict:1',
        },
      });
      const own = issued.json().credentialId as string;
      const post = () =>
        strict.app.inject({
          method: 'POST',
          url: '/backpack/send',
          headers: { ...form, cookie: sameAccount.cookie },
          payload: sameAccount.form({ address: remote.base, credential: own }),
        });
      const loopback = await post();
      expect(loopback.statusCode).toBe(502);
      expect(loopback.body).toContain('is not an address the backpack fetches');
      expect(await remote.clients()).toHaveLength(1);
      for (let i = 2; i <= 10; i++) expect((await post()).statusCode).toBe(502);
      const capped = await post();
      expect(capped.statusCode).toBe(429);
      expect(capped.body).toContain('at most 10 sends an hour');

      // The platform's own share: 60 starts an hour to one origin, whichever accounts make them.
      // This account's 10 and 49 of others' leave one: the next start is counted, the one after refused.
      const origin = new URL(remote.base).origin;
      const now = new Date().toISOString();
      for (let i = 0; i < 49; i++) {
        await sql`insert into earner_send_attempts (account_id, origin, attempted_at) values (${`other-${i}`}, ${origin}, ${now})`.execute(
          strict.database.db,
        );
      }
      const secondIssued = await strict.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(strictIssuer.key),
        payload: {
          definitionId: definition.json().id,
          recipientEmail: 'second.sender@example.test',
          completionKey: 'strict:2',
        },
      });
      const secondBadge = secondIssued.json().credentialId as string;
      const second = await earnerSession(strict.app, 'second.sender@example.test');
      const postSecond = () =>
        strict.app.inject({
          method: 'POST',
          url: '/backpack/send',
          headers: { ...form, cookie: second.cookie },
          payload: second.form({ address: remote.base, credential: secondBadge }),
        });
      expect((await postSecond()).statusCode).toBe(502);
      const full = await postSecond();
      expect(full.statusCode).toBe(429);
      expect(full.body).toContain(`Too many sends to ${new URL(remote.base).host} this hour`);
    } finally {
      await strict.close();
    }
  }, 60_000);
  it('shows each badge the other platform would not take, with its answer, and still revokes the token', async () => {
    // The other platform's SDD served elsewhere with its API base moved to a path it does not answer.
    const sdd = (await (await fetch(`${remote.base}/ims/ob/v3p0/discovery`)).json()) as { servers: { url: string }[] };
    sdd.servers = [{ url: `${remote.base}/ims/ob/v3p0/nowhere` }];
    const mirror = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(sdd));
    });
    const port = await freePort();
    await new Promise<void>((resolve) => mirror.listen(port, '127.0.0.1', resolve));
    try {
      const started = await start({ address: `http://127.0.0.1:${port}`, credential: [credentials[0] as string] });
      expect(started.statusCode, started.body).toBe(200);
      const redirected = await allowOverHttp(new URL(continueLink(started.body)), atRemote.cookie, callback);
      const sent = await finish(redirected);
      expect(sent.statusCode, sent.body).toBe(200);
      expect(sent.body.match(/class="send-result send-failed"/g)).toHaveLength(1);
      expect(sent.body).toContain('Not sent: 127.0.0.1:');
      expect(sent.body).toContain('answered HTTP 404');
      expect(sent.body).toContain('is revoked');
      const last = (await auditActions()).filter((r) => r.action === 'backpack_send.sent').at(-1);
      expect(last?.details).toMatchObject({ created: 0, replaced: 0, failed: 1 });
    } finally {
      await new Promise((resolve) => mirror.close(resolve));
    }
  }, 60_000);

  it('sends a credential an app upserted into the backpack as it was sent: a compact JWS stays a JWS', async () => {
    const id = 'urn:uuid:5e0d7c2a-2222-4c2e-9a8b-00000000beef';
    const credential = {
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json',
      ],
      id,
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      issuer: { id: 'https://elsewhere.example/issuer', type: ['Profile'], name: 'Elsewhere' },
      validFrom: '2026-01-01T00:00:00Z',
      name: 'Carried on',
      credentialSubject: {
        type: ['AchievementSubject'],
        achievement: {
          id: 'https://elsewhere.example/a',
          type: ['Achievement'],
          name: 'Carried on',
          criteria: { narrative: 'x' },
          description: 'x',
        },
      },
    };
    const { privateKey } = await generateKeyPair('EdDSA');
    const jws = await new SignJWT({ vc: credential }).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' }).sign(privateKey);
    await t.app.services.obapi.upsert(
      { accountId: earner.accountId, clientId: 'an-app', scopes: new Set() },
      { format: 'jws', jws },
    );
    const formPage = await t.app.inject({ method: 'GET', url: '/backpack/send', headers: { cookie: earner.cookie } });
    expect(formPage.body).toContain(`value="${id}"`);
    const started = await start({ address: remote.base, credential: [id] });
    expect(started.statusCode, started.body).toBe(200);
    const sent = await finish(await allowOverHttp(new URL(continueLink(started.body)), atRemote.cookie, callback));
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.body).toContain('send-created');
    expect(sent.body).toContain('Carried on');
    const there = (await remote.received()).find((r) => r.credential_key === id);
    expect(there?.format).toBe('jws');
    expect(there?.body).toBe(jws);
  }, 60_000);

  it('tells the earner that nothing was sent when they deny at the other platform, and uses the state up', async () => {
    const started = await start({ address: remote.base, credential: [credentials[0] as string] });
    expect(started.statusCode, started.body).toBe(200);
    const redirected = await allowOverHttp(new URL(continueLink(started.body)), atRemote.cookie, callback, 'deny');
    expect(redirected.searchParams.get('error')).toBe('access_denied');
    // The earner's choice, not a fault: a page of its own, in their language, with no error status.
    const denied = await finish(redirected);
    expect(denied.statusCode).toBe(200);
    expect(denied.body).toContain('Nothing was sent');
    expect(denied.body).toContain(`You did not allow this backpack to add badges at ${new URL(remote.base).host}`);
    expect(denied.body).not.toContain('send-created');
    const refusal = (await auditActions()).filter((r) => r.action === 'backpack_send.refused').at(-1);
    expect(refusal?.details).toMatchObject({ step: 'callback', origin: remote.base });
    expect((await finish(redirected)).statusCode).toBe(400);
  }, 60_000);

  it('runs the send in Chromium: the form, the link to the other platform, its consent and the result page', async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      const cookies = (header: string, url: string) =>
        header.split('; ').map((pair) => {
          const at = pair.indexOf('=');
          return { name: pair.slice(0, at), value: pair.slice(at + 1), url };
        });
      await context.addCookies([...cookies(earner.cookie, aBase), ...cookies(atRemote.cookie, remote.base)]);
      const page = await context.newPage();
      await page.goto(`${aBase}/backpack/send`);
      for (const id of credentials.slice(1)) await page.locator(`input[value="${id}"]`).check();
      await page.getByLabel('The other platform’s address').fill(remote.base);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Continue to 127.0.0.1' }).waitFor();
      await page.getByRole('link', { name: /^Continue to/ }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${callback}**`);
      await page.getByRole('heading', { name: /^Badges sent to/ }).waitFor();
      expect(await page.locator('.send-result.send-replaced').count()).toBe(2);
      // The code and state stay out of the page's links (Referrer-Policy no-referrer holds them out of requests).
      const code = new URL(page.url()).searchParams.get('code') as string;
      expect(await page.content()).not.toContain(code);
    } finally {
      await browser.close();
    }
  }, 90_000);

  it('forgets the platforms, the sends in flight and the hour’s attempts when the earner deletes the account', async () => {
    const tables = ['earner_remote_platforms', 'earner_send_authorizations', 'earner_send_attempts'] as const;
    const rowsOf = async (table: (typeof tables)[number]) =>
      Number(
        (
          await sql<{
            n: number | string;
          }>`select count(*) as n from ${sql.table(table)} where account_id = ${earner.accountId}`.execute(
            t.database.db,
          )
        ).rows[0]?.n,
      );
    for (const table of tables) expect(await rowsOf(table), table).toBeGreaterThan(0);
    const deleted = await t.app.inject({
      method: 'POST',
      url: '/backpack/account/delete',
      headers: { ...form, cookie: earner.cookie },
      payload: `csrf=${earner.csrf}`,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    for (const table of tables) expect(await rowsOf(table), table).toBe(0);
  });
});
