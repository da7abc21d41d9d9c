import { createServer, type Server } from 'node:http';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli.js';
import { LAUNCH_FAILURES_PER_ADDRESS, REFUSAL_WINDOW_MS } from '../src/modules/lti/lti.refusals.js';
import { servedUnder } from '../src/modules/lti/lti.registration.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import {
  authorizeThrough,
  formField,
  injectPost,
  launchThrough,
  type Platform,
  ROLE,
  registerThrough,
  type SimUser,
  startPlatform,
} from './lti-platform.support.js';
import { freePort } from './verification.support.js';

/** Issue 43's open parts and the review's lows on LTI: key rotation, bounded refusals, the JWKS negative cache, pair ownership, the DR issuer rule. */

const BASE = 'https://badges.test';
const instructor: SimUser = {
  id: 'teacher',
  name: 'Tess Teacher',
  email: 'tess@college.example',
  roles: [ROLE.instructor],
};

describe('the Dynamic Registration issuer rule (LTI-DR 1.0 §3.5.1) compares parsed URLs, not strings', () => {
  const under = (config: string, issuer: string) => servedUnder(new URL(config), issuer, false);
  it('accepts a configuration served at or under the issuer', () => {
    expect(under('https://lms.example/.well-known/openid-configuration', 'https://lms.example')).toBe(true);
    expect(under('https://lms.example/.well-known/openid-configuration', 'https://lms.example/')).toBe(true);
    expect(under('https://lms.example/mod/lti/openid-configuration.php', 'https://lms.example')).toBe(true);
    expect(under('https://lms.example/t1/.well-known/openid-configuration', 'https://lms.example/t1')).toBe(true);
  });
  it('refuses a look-alike host, another port, a sibling path, another scheme and an issuer with a query', () => {
    expect(under('https://lms.example.evil.test/.well-known/openid-configuration', 'https://lms.example')).toBe(false);
    expect(under('https://lms.example:8443/.well-known/openid-configuration', 'https://lms.example')).toBe(false);
    expect(under('https://lms.example/t10/.well-known/openid-configuration', 'https://lms.example/t1')).toBe(false);
    expect(under('https://lms.example/.well-known/openid-configuration', 'http://lms.example')).toBe(false);
    expect(under('https://lms.example/.well-known/openid-configuration', 'https://lms.example?x=1')).toBe(false);
    expect(under('https://lms.example/.well-known/openid-configuration', 'https://user@lms.example')).toBe(false);
    expect(under('https://lms.example/.well-known/openid-configuration', 'not a url')).toBe(false);
  });
});

describe.each(dialects)('LTI key rotation and launch hardening on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let other: TestIssuer;
  let sim: Platform;
  let definitionId: string;
  const clock = { offset: 0, now: () => new Date(Date.now() + clock.offset) };
  const post = () => injectPost(t.app);
  const get = async (url: string) => {
    const answer = await t.app.inject({ url: url.replace(BASE, '') });
    return { status: answer.statusCode, body: answer.body };
  };
  const kids = async () =>
    ((await t.app.inject({ url: '/lti/jwks' })).json().keys as { kid: string }[]).map((k) => k.kid);
  const auditRows = (issuerId: string, action: string) =>
    t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('issuer_id', '=', issuerId)
      .where('action', '=', action)
      .execute();

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    sim = await startPlatform({ toolJwks: async () => (await t.app.inject({ url: '/lti/jwks' })).json() });
    issuer = await t.issuer({ name: 'Rotating College' });
    other = await t.issuer({ name: 'Other College' });
    const made = await t.app.inject({ method: 'POST', url: '/api/v1/lti/registrations', headers: auth(issuer.key) });
    await registerThrough(sim, get, made.json().registrationUrl);
    definitionId = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: auth(issuer.key),
        payload: { name: 'Rotation Badge', description: 'Placed after a rotation' },
      })
    ).json().id;
  });
  afterAll(async () => {
    await t?.close();
    await sim?.close();
  });

  /** The deep linking response's signing key, and whether the platform verified it against the tool's JWKS. */
  async function placeAndReadKid(): Promise<{ kid: string | undefined; accepted: number }> {
    const picker = await launchThrough(sim, post(), BASE, { messageType: 'LtiDeepLinkingRequest', user: instructor });
    const done = await post()('/lti/deep-links', {
      token: formField(picker.html, 'token'),
      definitionId,
      rule: 'launch',
    });
    const jwt = formField(done.body, 'JWT');
    const returned = await fetch(`${sim.issuer}/deep-link-return`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ JWT: jwt }),
    });
    return { kid: decodeProtectedHeader(jwt).kid, accepted: returned.status };
  }

  it("rotates an issuer's key by the API: the new key signs at once, the old stays published, others untouched", async () => {
    const serviceKid = (await t.app.inject({ url: '/api/v1/lti/tool/keys', headers: auth(issuer.key) })).json().items[0]
      .kid as string;
    expect((await placeAndReadKid()).kid).toBe(serviceKid);

    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lti/tool/keys/rotate',
      headers: auth(issuer.key),
    });
    expect(rotated.statusCode, rotated.body).toBe(201);
    const first = rotated.json();
    expect(first).toMatchObject({ retiredKid: null, retiredPublishedUntil: null });
    expect(await kids()).toEqual(expect.arrayContaining([serviceKid, first.kid]));
    const placed = await placeAndReadKid();
    expect(placed).toEqual({ kid: first.kid, accepted: 200 });
    // The other issuer's platforms still get the service key.
    expect((await t.app.services.lti.keys.current(other.id)).kid).toBe(serviceKid);
    const listed = (await t.app.inject({ url: '/api/v1/lti/tool/keys', headers: auth(issuer.key) })).json().items;
    expect(listed).toEqual([
      expect.objectContaining({ kid: first.kid, holder: 'issuer', signs: true, retiredAt: null }),
    ]);

    const audit = await auditRows(issuer.id, 'lti.tool_key.rotated');
    expect(audit).toHaveLength(1);
    expect(audit[0]?.target_id).toBe(first.kid);

    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lti/tool/keys/rotate',
      headers: auth(issuer.key),
    });
    expectErrorBody(again, 409, 'lti_key_rotated_recently');
    expect(await auditRows(issuer.id, 'lti.tool_key.rotated')).toHaveLength(1);

    // An hour later: the previous key is retired but still in the JWKS, and still verifies what it signed.
    clock.offset += 61 * 60 * 1000;
    const second = (
      await t.app.inject({ method: 'POST', url: '/api/v1/lti/tool/keys/rotate', headers: auth(issuer.key) })
    ).json();
    expect(second.retiredKid).toBe(first.kid);
    expect(Date.parse(second.retiredPublishedUntil) - Date.parse(second.createdAt)).toBe(7 * 24 * 60 * 60 * 1000);
    expect(await kids()).toEqual(expect.arrayContaining([serviceKid, first.kid, second.kid]));
    const view = (await t.app.inject({ url: '/api/v1/lti/tool/keys', headers: auth(issuer.key) })).json().items;
    expect(view.find((k: { kid: string }) => k.kid === first.kid)).toMatchObject({
      signs: false,
      publishedUntil: second.retiredPublishedUntil,
    });
    clock.offset = 0;
  });

  it('keeps at most two retired keys per issuer in the JWKS, and leaves the service key alone', async () => {
    const before = await kids();
    // The first test's last rotation happened an hour ahead; each of these another hour on.
    for (let i = 0; i < 3; i++) {
      clock.offset = (i + 2) * 61 * 60 * 1000;
      const r = await t.app.inject({ method: 'POST', url: '/api/v1/lti/tool/keys/rotate', headers: auth(issuer.key) });
      expect(r.statusCode, r.body).toBe(201);
    }
    const own = (await t.app.inject({ url: '/api/v1/lti/tool/keys', headers: auth(issuer.key) })).json().items;
    expect(own.map((k: { signs: boolean }) => k.signs)).toEqual([true, false, false]);
    const service = (await t.app.services.lti.keys.current(other.id)).kid;
    expect(before).toContain(service);
    expect((await kids()).sort()).toEqual([service, ...own.map((k: { kid: string }) => k.kid)].sort());
    clock.offset = 0;
  });

  it('rotates by the CLI: the service key without --issuer, an issuer key (audited as cli) with it', async () => {
    const env = {
      DATABASE_URL: t.testDb.url,
      LOG_LEVEL: 'silent',
      SIGNING_KEY_SECRET: t.config.signingKeySecret ?? '',
    };
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    if (!env.SIGNING_KEY_SECRET) delete process.env.SIGNING_KEY_SECRET;
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const lines: string[] = [];
      const before = await kids();
      expect(await runCli(['lti', 'keys', 'rotate'], (l) => lines.push(l))).toBe(0);
      const serviceKid = /key (\S+) signs from now on/.exec(lines[0] ?? '')?.[1] ?? '';
      expect(await kids()).toEqual(expect.arrayContaining([...before, serviceKid]));
      expect((await t.app.services.lti.keys.current(other.id)).kid).toBe(serviceKid);

      lines.length = 0;
      expect(await runCli(['lti', 'keys', 'rotate', '--issuer', other.slug], (l) => lines.push(l))).toBe(0);
      const otherKid = /key (\S+) signs from now on/.exec(lines[0] ?? '')?.[1] ?? '';
      expect((await t.app.services.lti.keys.current(other.id)).kid).toBe(otherKid);
      const audit = await auditRows(other.id, 'lti.tool_key.rotated');
      expect(audit.map((a) => [a.actor, a.target_id])).toEqual([['cli', otherKid]]);
      expect(await runCli(['lti', 'keys', 'rotate', '--issuer', other.slug], () => undefined)).toBe(1);
      expect(await runCli(['lti', 'keys', 'rotate', '--issuer', other.slug, '--force'], () => undefined)).toBe(0);
      lines.length = 0;
      expect(await runCli(['lti', 'keys', 'list', '--issuer', other.slug], (l) => lines.push(l))).toBe(0);
      expect(lines[0]?.split('\t')).toEqual(['kid', 'holder', 'signs', 'created', 'retired', 'published until']);
      expect(lines).toHaveLength(3);
      expect(await runCli(['lti', 'nonsense'], () => undefined)).toBe(64);
    } finally {
      stderr.mockRestore();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  /** A launch whose token is forged (the signature spoilt), from `address`. */
  async function forged(address: string) {
    const user: SimUser = { id: 'forger', name: 'F', email: 'f@college.example', roles: [ROLE.learner] };
    const authorized = await authorizeThrough(sim, post(), BASE, { messageType: 'LtiResourceLinkRequest', user });
    return t.app.inject({
      method: 'POST',
      url: '/lti/launch',
      remoteAddress: address,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: authorized.cookie },
      payload: new URLSearchParams({
        id_token: `${authorized.token.slice(0, -6)}AAAAAA`,
        state: authorized.state,
      }).toString(),
    });
  }

  it('records refused launches one by one up to the window allowance, then as one summary', async () => {
    const before = (await auditRows(issuer.id, 'lti.launch.refused')).length;
    for (let i = 0; i < 20; i++) expect((await forged(`198.51.100.${i}`)).statusCode).toBe(401);
    expect((await auditRows(issuer.id, 'lti.launch.refused')).length - before).toBe(5);
    expect(await auditRows(issuer.id, 'lti.launch.refusals')).toHaveLength(0);
    clock.offset += REFUSAL_WINDOW_MS + 1000;
    await t.app.services.lti.refusals.flush();
    const summary = await auditRows(issuer.id, 'lti.launch.refusals');
    expect(summary).toHaveLength(1);
    expect(JSON.parse(summary[0]?.details ?? '')).toMatchObject({ count: 15, reasons: { signature: 15 } });
    clock.offset = 0;
  });

  it('prices launches per address before any work: failures past the allowance get 429, verified ones are given back', async () => {
    const address = '203.0.113.77';
    const learner: SimUser = { id: 'real', name: 'Real Learner', email: 'real@college.example', roles: [ROLE.learner] };
    for (let i = 0; i < LAUNCH_FAILURES_PER_ADDRESS + 5; i++) {
      const authorized = await authorizeThrough(sim, post(), BASE, {
        messageType: 'LtiResourceLinkRequest',
        user: learner,
      });
      const ok = await t.app.inject({
        method: 'POST',
        url: '/lti/launch',
        remoteAddress: address,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: authorized.cookie },
        payload: new URLSearchParams({ id_token: authorized.token, state: authorized.state }).toString(),
      });
      expect(ok.statusCode).not.toBe(429);
    }
    const refusedBefore = (await auditRows(issuer.id, 'lti.launch.refused')).length;
    const statuses: number[] = [];
    for (let i = 0; i < LAUNCH_FAILURES_PER_ADDRESS + 3; i++) statuses.push((await forged(address)).statusCode);
    expect(statuses.slice(0, LAUNCH_FAILURES_PER_ADDRESS).every((s) => s === 401)).toBe(true);
    const over = await forged(address);
    expectErrorBody(over, 429, 'rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(statuses.slice(LAUNCH_FAILURES_PER_ADDRESS)).toEqual([429, 429, 429]);
    // Another address is not held back.
    expect((await forged('203.0.113.78')).statusCode).toBe(401);
    expect((await auditRows(issuer.id, 'lti.launch.refused')).length - refusedBefore).toBeLessThanOrEqual(5);
  });

  it("caches a platform's failed JWKS fetch, so launches naming it do not fetch each time", async () => {
    let hits = 0;
    const port = await freePort();
    const broken: Server = createServer((_request, response) => {
      hits++;
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{}');
    });
    await new Promise<void>((resolve) => broken.listen(port, '127.0.0.1', () => resolve()));
    try {
      const platformIssuer = `http://127.0.0.1:${port}`;
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/lti/platforms',
        headers: auth(issuer.key),
        payload: {
          name: 'Broken keys',
          platformIssuer,
          clientId: 'broken-client',
          deploymentId: 'd1',
          authLoginUrl: `${platformIssuer}/auth`,
          tokenUrl: `${platformIssuer}/token`,
          jwksUri: `${platformIssuer}/jwks`,
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const launchOnce = async () => {
        const login = await post()('/lti/login', {
          iss: platformIssuer,
          login_hint: 'u',
          target_link_uri: `${BASE}/lti/launch`,
          client_id: 'broken-client',
        });
        const state = new URL(login.location ?? '').searchParams.get('state') ?? '';
        const answer = await post()(
          '/lti/launch',
          { id_token: 'e30.e30.AAAA', state },
          (login.setCookie ?? '').split(';')[0],
        );
        expect(answer.status).toBe(401);
        expect(answer.body).toContain('could not be read');
      };
      for (let i = 0; i < 4; i++) await launchOnce();
      expect(hits).toBe(1);
      clock.offset += 61_000;
      await launchOnce();
      expect(hits).toBe(2);
    } finally {
      clock.offset = 0;
      await new Promise((resolve) => broken.close(resolve));
    }
  });

  it('holds an (iss, client_id) pair for the first issuer: another is refused with 409, also when both race', async () => {
    const payload = (clientId: string) => ({
      name: 'Moodle',
      platformIssuer: 'https://moodle.college.example',
      clientId,
      deploymentId: '1',
      authLoginUrl: 'https://moodle.college.example/mod/lti/auth.php',
      tokenUrl: 'https://moodle.college.example/mod/lti/token.php',
      jwksUri: 'https://moodle.college.example/mod/lti/certs.php',
    });
    const mine = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lti/platforms',
      headers: auth(issuer.key),
      payload: payload('held'),
    });
    expect(mine.statusCode).toBe(201);
    const theirs = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lti/platforms',
      headers: auth(other.key),
      payload: payload('held'),
    });
    const body = expectErrorBody(theirs, 409, 'lti_platform_exists');
    expect(body.message).toContain('new registration');
    expect(JSON.stringify(body)).not.toContain(issuer.slug);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lti/platforms',
      headers: auth(issuer.key),
      payload: payload('held'),
    });
    expect(expectErrorBody(again, 409, 'lti_platform_exists').message).toContain('add a deployment id');
    const raced = await Promise.all(
      [issuer, other, issuer, other].map((who) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/lti/platforms',
          headers: auth(who.key),
          payload: payload('raced'),
        }),
      ),
    );
    expect(raced.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);
    const holders = await Promise.all(
      [issuer, other].map(async (who) =>
        (await t.app.inject({ url: '/api/v1/lti/platforms', headers: auth(who.key) }))
          .json()
          .items.filter((p: { clientId: string }) => p.clientId === 'raced'),
      ),
    );
    expect(holders.flat()).toHaveLength(1);
  });

  it('refuses a Dynamic Registration whose configuration names an issuer it is not served under', async () => {
    // The old string-prefix check let `http://127.0.0.1:<port>` name the issuer `http://127.0.0.1:<first digits>`.
    const liar = await startPlatform({ configIssuer: (real) => real.slice(0, -1) });
    try {
      const made = await t.app.inject({ method: 'POST', url: '/api/v1/lti/registrations', headers: auth(other.key) });
      const query = new URLSearchParams({
        openid_configuration: `${liar.issuer}/.well-known/openid-configuration`,
        registration_token: liar.registrationToken,
      });
      const answer = await get(`${made.json().registrationUrl}?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('not served under the issuer it names');
      expect(liar.registrations).toHaveLength(0);
    } finally {
      await liar.close();
    }
  });

  it('takes a repeated Dynamic Registration answered with a client id this issuer holds as the same platform again, refreshing its endpoints', async () => {
    // Seen in Moodle 5.1: "Update" on an already registered tool answers the registration with the
    // client id and deployment id it gave before. LTI-DR 1.0 §3.5.2-§3.6 define only the one flow,
    // so the answer is the platform's current values; another issuer's pair stays refused.
    const port = await freePort();
    const lms = `http://127.0.0.1:${port}`;
    let tokenPath = '/token';
    const sent: Record<string, unknown>[] = [];
    const stub: Server = createServer((request, response) => {
      const send = (body: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.url === '/.well-known/openid-configuration') {
        send({
          issuer: lms,
          authorization_endpoint: `${lms}/auth`,
          token_endpoint: `${lms}${tokenPath}`,
          jwks_uri: `${lms}/certs`,
          registration_endpoint: `${lms}/register`,
          id_token_signing_alg_values_supported: ['RS256'],
          'https://purl.imsglobal.org/spec/lti-platform-configuration': { product_family_code: 'moodle' },
        });
        return;
      }
      let raw = '';
      request.on('data', (chunk) => {
        raw += chunk;
      });
      request.on('end', () => {
        const body = JSON.parse(raw) as Record<string, unknown>;
        sent.push(body);
        send({
          ...body,
          client_id: 'same-client',
          'https://purl.imsglobal.org/spec/lti-tool-configuration': {
            ...(body['https://purl.imsglobal.org/spec/lti-tool-configuration'] as object),
            deployment_id: sent.length === 1 ? '1' : '2',
          },
        });
      });
    });
    await new Promise<void>((resolve) => stub.listen(port, '127.0.0.1', () => resolve()));
    const registerWith = async (who: TestIssuer) => {
      const made = await t.app.inject({ method: 'POST', url: '/api/v1/lti/registrations', headers: auth(who.key) });
      const query = new URLSearchParams({
        openid_configuration: `${lms}/.well-known/openid-configuration`,
        registration_token: 'reg-token',
      });
      const url = `${made.json().registrationUrl}?${query}`;
      return { url, answer: await get(url) };
    };
    const mine = async () =>
      (await t.app.inject({ url: '/api/v1/lti/platforms', headers: auth(issuer.key) }))
        .json()
        .items.filter((p: { clientId: string }) => p.clientId === 'same-client');
    try {
      expect((await registerWith(issuer)).answer.status).toBe(200);
      const [first] = await mine();
      const renamed = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/lti/platforms/${first.id}`,
        headers: auth(issuer.key),
        payload: { name: 'College Moodle' },
      });
      expect(renamed.statusCode).toBe(200);
      tokenPath = '/token-v2';
      const again = await registerWith(issuer);
      expect(again.answer.status).toBe(200);
      expect(again.answer.body).toContain("subject: 'org.imsglobal.lti.close'");
      const platforms = await mine();
      expect(platforms).toHaveLength(1);
      expect(platforms[0]).toMatchObject({
        id: first.id,
        name: 'College Moodle',
        tokenUrl: `${lms}/token-v2`,
        deploymentIds: expect.arrayContaining(['1', '2']),
      });
      expect((await get(again.url)).status).toBe(400);
      const theirs = await registerWith(other);
      expect(theirs.answer.status).toBe(400);
      expect(theirs.answer.body).toContain('new registration');
      const log = await t.app.inject({ url: '/api/v1/audit?limit=20', headers: auth(issuer.key) });
      const updated = log
        .json()
        .items.find(
          (e: { action: string; targetId: string; details?: { dynamic?: boolean } }) =>
            e.action === 'lti.platform.updated' && e.targetId === first.id && e.details?.dynamic,
        );
      expect(updated?.details).toMatchObject({ fields: ['token_url'], dynamic: true, deploymentId: '2' });
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });
});
