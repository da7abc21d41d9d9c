import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { type PendingLaunch, type Platform, ROLE, type SimUser, startPlatform } from './lti-platform.support.js';
import { freePort } from './verification.support.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe.each(dialects)('LTI 1.3 tool against a simulated platform on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let other: TestIssuer;
  let sim: Platform;
  let base: string;
  let definitionId: string;
  let launchLinkId: string;
  let scoreLinkId: string;
  const instructor: SimUser = {
    id: 'teacher-1',
    name: 'Tess Teacher',
    email: 'tess@college.example',
    roles: [ROLE.instructor],
  };
  const ada: SimUser = { id: 'learner-ada', name: 'Ada Lovelace', email: 'ada@college.example', roles: [ROLE.learner] };

  beforeAll(async () => {
    sim = await startPlatform();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { env: { PUBLIC_BASE_URL: base, LTI_SYNC_INTERVAL_MS: '3600000' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    issuer = await t.issuer({ name: 'LTI College' });
    other = await t.issuer({ name: 'Other College' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { authorization: `Bearer ${issuer.key}` },
      payload: { name: 'Course 101 Finisher', description: 'Finished Course 101' },
    });
    definitionId = created.json().id;
    for (const user of [instructor, ada]) sim.users.set(user.id, user);
  });
  afterAll(async () => {
    await t?.close();
    await sim?.close();
  });

  const key = () => ({ authorization: `Bearer ${issuer.key}` });

  /** The login leg: the tool's redirect to the platform and the browser's state cookie. */
  async function login(pending: PendingLaunch): Promise<{ location: URL; cookie: string }> {
    const hint = randomUUID();
    sim.launches.set(hint, pending);
    const answer = await fetch(`${base}/lti/login`, {
      method: 'POST',
      headers: FORM,
      redirect: 'manual',
      body: new URLSearchParams({
        iss: sim.issuer,
        login_hint: pending.user.id,
        target_link_uri: `${base}/lti/launch`,
        lti_message_hint: hint,
        client_id: sim.clientId ?? '',
      }),
    });
    expect(answer.status).toBe(302);
    const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    return { location: new URL(answer.headers.get('location') ?? ''), cookie };
  }

  async function post(path: string, form: Record<string, string | string[]>, cookie?: string) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
    const answer = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...FORM, ...(cookie ? { cookie } : {}) },
      body,
    });
    return { status: answer.status, html: await answer.text() };
  }

  /** The whole launch as a browser makes it: login, the platform's authorization endpoint, the form_post. */
  async function launch(pending: PendingLaunch) {
    const { location, cookie } = await login(pending);
    const auth = await (await fetch(location)).text();
    const token = /name="id_token" value="([^"]+)"/.exec(auth)?.[1] ?? '';
    const state = /name="state" value="([^"]+)"/.exec(auth)?.[1] ?? '';
    return { ...(await post('/lti/launch', { id_token: token, state }, cookie)), token, state, cookie };
  }

  const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
  const credentialsOf = async (completionKeyPart: string) => {
    const rows = await t.database.db.selectFrom('credentials').selectAll().where('issuer_id', '=', issuer.id).execute();
    return rows.filter(
      (r) => r.completion_key.includes(completionKeyPart) || r.completion_key.startsWith('lti:sha256:'),
    );
  };

  it('makes a single-use registration URL for the issuer (API key), and refuses without one', async () => {
    const none = await t.app.inject({ method: 'POST', url: '/api/v1/lti/registrations' });
    expect(none.statusCode).toBe(401);
    const made = await t.app.inject({ method: 'POST', url: '/api/v1/lti/registrations', headers: key() });
    expect(made.statusCode).toBe(201);
    expect(made.json().registrationUrl.startsWith(`${base}/lti/register/`)).toBe(true);
    expect(made.json().jwksUrl).toBe(`${base}/lti/jwks`);
  });

  it('registers with the platform by Dynamic Registration, once per URL', async () => {
    const { registrationUrl } = (
      await t.app.inject({ method: 'POST', url: '/api/v1/lti/registrations', headers: key() })
    ).json();
    const query = new URLSearchParams({
      openid_configuration: `${sim.issuer}/.well-known/openid-configuration`,
      registration_token: sim.registrationToken,
    });
    const page = await fetch(`${registrationUrl}?${query}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(await page.text()).toContain("subject: 'org.imsglobal.lti.close'");
    const sent = sim.registrations[0] as Record<string, unknown>;
    expect(sent.token_endpoint_auth_method).toBe('private_key_jwt');
    expect(String(sent.scope).split(' ')).toEqual(
      expect.arrayContaining([
        'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
        'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
        'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
      ]),
    );
    const again = await fetch(`${registrationUrl}?${query}`);
    expect(again.status).toBe(400);
    const listed = (await t.app.inject({ url: '/api/v1/lti/platforms', headers: key() })).json();
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({
      platformIssuer: sim.issuer,
      clientId: sim.clientId,
      deploymentIds: ['deployment-1'],
    });
    const elsewhere = (
      await t.app.inject({ url: '/api/v1/lti/platforms', headers: { authorization: `Bearer ${other.key}` } })
    ).json();
    expect(elsewhere.items).toHaveLength(0);
    const jwks = (await (await fetch(`${base}/lti/jwks`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0]?.d).toBeUndefined();
  });

  async function placeLink(rule: 'launch' | 'score'): Promise<string> {
    const picker = await launch({ messageType: 'LtiDeepLinkingRequest', user: instructor });
    expect(picker.status).toBe(200);
    expect(picker.html).toContain('Course 101 Finisher</button>');
    const token = field(picker.html, 'token');
    const ruleForm = await post('/lti/deep-links', { token, definitionId });
    expect(ruleForm.html).toContain('When the learner opens it');
    expect(ruleForm.html).toContain('Minimum score (%)');
    expect(ruleForm.html).toContain('Add to course');
    const done = await post('/lti/deep-links', { token, definitionId, rule, minScore: '80' });
    expect(done.status).toBe(200);
    const jwt = field(done.html, 'JWT');
    const before = sim.deepLinkResponses.length;
    const returned = await fetch(`${sim.issuer}/deep-link-return`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ JWT: jwt }),
    });
    expect(returned.status).toBe(200);
    const response = sim.deepLinkResponses[before] as Record<string, unknown>;
    const [item] = response['https://purl.imsglobal.org/spec/lti-dl/claim/content_items'] as Record<string, unknown>[];
    expect(item).toMatchObject({ type: 'ltiResourceLink', title: 'Course 101 Finisher', url: `${base}/lti/launch` });
    expect(Boolean(item?.lineItem)).toBe(rule === 'score');
    return (item?.custom as Record<string, string> | undefined)?.accolade_link ?? '';
  }

  it('places a badge by Deep Linking: the picker, the award rule, a signed response the platform accepts', async () => {
    launchLinkId = await placeLink('launch');
    scoreLinkId = await placeLink('score');
    expect(sim.lineItems).toHaveLength(1);
  });

  it('awards on launch through the issuance path, exactly once however many launches race', async () => {
    const first = await launch({
      messageType: 'LtiResourceLinkRequest',
      user: ada,
      custom: { accolade_link: launchLinkId },
    });
    expect(first.status).toBe(200);
    expect(first.html).toContain('You earned “Course 101 Finisher”');
    // The earned page offers the learner's own certificate (issue 44's capability link), and it opens.
    const certificate = /href="([^"]+\/certificate\/[^"]+)"[^>]*>Download your certificate/.exec(first.html)?.[1];
    expect(certificate).toBeDefined();
    const pdf = await t.app.inject({
      method: 'GET',
      url: new URL(String(certificate).replaceAll('&amp;', '&')).pathname,
    });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toContain('application/pdf');
    await Promise.all(
      Array.from({ length: 5 }, () =>
        launch({ messageType: 'LtiResourceLinkRequest', user: ada, custom: { accolade_link: launchLinkId } }),
      ),
    );
    const rows = await credentialsOf('learner-ada');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ source: 'lti', definition_id: definitionId, display_name: 'Ada Lovelace' });
    expect(rows[0]?.completion_key).not.toContain('@');
    const audit = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('issuer_id', '=', issuer.id)
      .where('action', '=', 'credential.issued')
      .execute();
    expect(audit.map((a) => a.actor)).toContain(
      `lti:${(await t.app.inject({ url: '/api/v1/lti/platforms', headers: key() })).json().items[0].id}`,
    );
  });

  it('refuses forged and replayed launches, issues nothing, and records the refusal', async () => {
    const bob: SimUser = { id: 'learner-bob', name: 'Bob Forger', email: 'bob@college.example', roles: [ROLE.learner] };
    const pending: PendingLaunch = {
      messageType: 'LtiResourceLinkRequest',
      user: bob,
      custom: { accolade_link: launchLinkId },
    };
    const forge = async (make: (nonce: string) => Promise<string>) => {
      const { location, cookie } = await login(pending);
      const token = await make(location.searchParams.get('nonce') ?? '');
      return post('/lti/launch', { id_token: token, state: location.searchParams.get('state') ?? '' }, cookie);
    };
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, (nonce: string) => Promise<string>][] = [
      [
        'bad signature',
        async (n) => {
          const good = await sim.idToken(n, pending);
          return `${good.slice(0, -6)}AAAAAA`;
        },
      ],
      ['unknown kid', (n) => sim.idToken(n, pending, { key: sim.strangerKey, kid: 'not-published' })],
      [
        'alg none',
        async (n) =>
          `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: sim.issuer, aud: sim.clientId, nonce: n, sub: bob.id, iat: now, exp: now + 300 })}.`,
      ],
      [
        'HS256',
        (n) =>
          sim.idToken(n, pending, {
            alg: 'HS256',
            secret: new TextEncoder().encode('a shared secret of thirty-two bytes!'),
          }),
      ],
      ['wrong aud', (n) => sim.idToken(n, { ...pending, claims: { aud: 'another-tool' } })],
      ['expired', (n) => sim.idToken(n, { ...pending, claims: { iat: now - 3600, exp: now - 1800 } })],
      [
        'unknown deployment',
        (n) =>
          sim.idToken(n, { ...pending, claims: { 'https://purl.imsglobal.org/spec/lti/claim/deployment_id': 'nope' } }),
      ],
      ['wrong nonce', () => sim.idToken('another-nonce', pending)],
    ];
    for (const [name, make] of cases) {
      const answer = await forge(make);
      expect(answer.status, name).toBe(401);
      expect(answer.html, name).toContain('This launch was refused');
    }
    // A replay: the same token and state with the same cookie, once used.
    const used = await launch(pending);
    expect(used.status).toBe(200);
    const replay = await post('/lti/launch', { id_token: used.token, state: used.state }, used.cookie);
    expect(replay.status).toBe(401);
    // State bound to the browser: the same token without the login's cookie.
    const noCookie = await post('/lti/launch', { id_token: used.token, state: used.state });
    expect(noCookie.status).toBe(401);
    expect((await credentialsOf('learner-bob')).length).toBe(1);
    const refusals = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('issuer_id', '=', issuer.id)
      .where('action', '=', 'lti.launch.refused')
      .execute();
    // Recorded one by one up to the window's allowance (lti.refusals.ts); the rest are summarised.
    expect(refusals.length).toBe(5);
    expect(refusals.map((r) => JSON.parse(r.details).reason)).toEqual(
      expect.arrayContaining(['signature', 'unknown_kid', 'algorithm']),
    );
  });

  it('syncs scores on schedule: AGS results and NRPS roster, paged, awarding at the threshold once', async () => {
    const lineItem = sim.lineItems[0]?.url ?? '';
    const learners = Array.from({ length: 5 }, (_, i) => ({
      id: `learner-${i}`,
      name: `Learner ${i}`,
      email: `l${i}@college.example`,
      roles: [ROLE.learner],
    }));
    for (const l of learners) sim.users.set(l.id, l);
    const scores = sim.scores.get(lineItem);
    for (const [i, s] of [95, 80, 79, 10, 100].entries()) scores?.set(`learner-${i}`, s);
    // A learner's launch tells the tool the line item and the roster; below the threshold, it shows progress.
    const progress = await launch({
      messageType: 'LtiResourceLinkRequest',
      user: learners[2] as SimUser,
      custom: { accolade_link: scoreLinkId },
      lineItem,
    });
    expect(progress.html).toContain('when your score reaches 80%');
    expect(progress.html).toContain('Your score so far: 79%');
    const outcome = await t.app.services.lti.service.syncDue();
    expect(outcome).toMatchObject({ contexts: 1, awarded: 3 });
    expect(sim.tokensIssued).toBeGreaterThan(0);
    const again = await t.app.services.lti.service.syncDue();
    expect(again.contexts).toBe(0);
    // The instructor's page: the roster joined with the credentials, then a raised score by "Check scores now".
    const page = await launch({
      messageType: 'LtiResourceLinkRequest',
      user: instructor,
      custom: { accolade_link: scoreLinkId },
      lineItem,
    });
    expect(page.html).toContain('Who has earned “Course 101 Finisher”');
    expect(page.html).toContain('Award to selected');
    expect(page.html).toContain('Check scores now');
    scores?.set('learner-2', 85);
    const checked = await post('/lti/sync', { token: field(page.html, 'token') });
    expect(checked.html).toContain('Scores checked: awarded to 1 learner.');
    const awarded = await post('/lti/awards', { token: field(page.html, 'token'), userId: ['learner-3'] });
    expect(awarded.html).toContain('Awarded to 1 learner.');
    const rows = await t.database.db
      .selectFrom('credentials')
      .select('completion_key')
      .where('issuer_id', '=', issuer.id)
      .where('source', '=', 'lti')
      .execute();
    const learnersAwarded = ['learner-0', 'learner-1', 'learner-2', 'learner-3', 'learner-4'].filter((id) =>
      rows.some((r) => r.completion_key.includes(`:${id}:`)),
    );
    // 95, 80 and 100 at the sync, 79 raised to 85 at "Check scores now", 10 awarded by the instructor.
    expect(learnersAwarded).toEqual(['learner-0', 'learner-1', 'learner-2', 'learner-3', 'learner-4']);
  });

  it('lists, renames and removes platforms for their issuer only', async () => {
    const [platform] = (await t.app.inject({ url: '/api/v1/lti/platforms', headers: key() })).json().items;
    const foreign = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/lti/platforms/${platform.id}`,
      headers: { authorization: `Bearer ${other.key}` },
      payload: { name: 'Mine' },
    });
    expect(foreign.statusCode).toBe(404);
    const bad = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/lti/platforms/${platform.id}`,
      headers: key(),
      payload: {},
    });
    expect(bad.statusCode).toBe(400);
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/lti/platforms/${platform.id}`,
      headers: key(),
      payload: { name: 'Campus LMS' },
    });
    expect(renamed.json().name).toBe('Campus LMS');
    const manual = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lti/platforms',
      headers: key(),
      payload: {
        name: 'Moodle',
        platformIssuer: 'https://moodle.example',
        clientId: 'abc',
        deploymentId: '1',
        authLoginUrl: 'https://moodle.example/mod/lti/auth.php',
        tokenUrl: 'https://moodle.example/mod/lti/token.php',
        jwksUri: 'https://moodle.example/mod/lti/certs.php',
      },
    });
    expect(manual.statusCode).toBe(201);
    const dup = await t.app.inject({
      method: 'POST',
      url: '/api/v1/lti/platforms',
      headers: key(),
      payload: {
        name: 'Moodle',
        platformIssuer: 'https://moodle.example',
        clientId: 'abc',
        deploymentId: '1',
        authLoginUrl: 'https://moodle.example/a',
        tokenUrl: 'https://moodle.example/t',
        jwksUri: 'https://moodle.example/k',
      },
    });
    expect(dup.statusCode).toBe(409);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/lti/platforms/${platform.id}`,
      headers: key(),
    });
    expect(removed.statusCode).toBe(204);
    const after = await post('/lti/login', {
      iss: sim.issuer,
      login_hint: ada.id,
      target_link_uri: `${base}/lti/launch`,
      client_id: sim.clientId ?? '',
    });
    expect(after.status).toBe(401);
    expect(after.html).toContain('not registered with Accolade');
  });

  it('keeps the old key published after a rotation, beside the new one', async () => {
    const kids = async () =>
      ((await (await fetch(`${base}/lti/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const before = await kids();
    const rotated = await t.app.services.lti.keys.rotateService();
    const after = await kids();
    expect(after).toEqual(expect.arrayContaining([...before, rotated.kid]));
    expect(after).toHaveLength(before.length + 1);
  });
});
