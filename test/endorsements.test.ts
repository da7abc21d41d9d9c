import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFetch, OB_CONTEXT, validateHosted } from './documents.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const BASE = 'https://badges.test';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe.each(dialects)('endorsements on %s', (dialect) => {
  const clock = manualClock('2026-04-01T12:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definition: { id: string; slug: string };
  let credential: { credentialId: string; assertionUrl: string; badgeClassUrl: string };

  const endorse = (key: string, path: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url: path, headers: auth(key), payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `endorse-a-${dialect}`, name: 'Acme Academy' });
    b = await t.issuer({ slug: `endorse-b-${dialect}` });
    const def = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Cloud Basics', description: 'Cloud fundamentals' },
    });
    definition = def.json();
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId: definition.id, recipientEmail: 'learner@example.test', completionKey: 'cloud-1' },
    });
    credential = issued.json();
  });
  afterAll(async () => t.close());

  for (const targetType of ['definition', 'credential'] as const) {
    const path = (id: string) => `/api/v1/${targetType}s/${id}/endorsements`;
    const targetId = () => (targetType === 'definition' ? definition.id : credential.credentialId);

    describe(`of a ${targetType}`, () => {
      it('creates an endorsement (201) and audits it', async () => {
        const res = await endorse(a.key, path(targetId()), {
          endorserName: 'Cloud Guild',
          endorserUrl: 'https://guild.example',
          claim: 'Meets the guild standard.',
        });
        expect(res.statusCode, res.body).toBe(201);
        const endorsement = res.json();
        expect(endorsement).toEqual({
          id: expect.any(String),
          issuerId: a.id,
          targetType,
          targetId: targetId(),
          endorserName: 'Cloud Guild',
          endorserUrl: 'https://guild.example',
          claim: 'Meets the guild standard.',
          createdAt: '2026-04-01T12:00:00.000Z',
          // An outside endorser's claim: recorded, signed by no one.
          signed: false,
        });
        const audit = await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=200', headers: auth(a.key) });
        const record = audit.json().items.find((i: { targetId: string }) => i.targetId === endorsement.id) as Record<
          string,
          unknown
        >;
        expect(record).toMatchObject({
          action: 'endorsement.created',
          targetType: 'endorsement',
          details: { endorsedType: targetType, endorsedId: targetId() },
        });
      });

      it('lists in creation order, and [] for an unknown or foreign parent', async () => {
        const names = ['First', 'Second', 'Third'];
        for (const endorserName of names) {
          const res = await endorse(a.key, path(targetId()), { endorserName, claim: 'ok' });
          expect(res.statusCode).toBe(201);
          expect(res.json().endorserUrl).toBeNull();
        }
        const list = await t.app.inject({ method: 'GET', url: path(targetId()), headers: auth(a.key) });
        expect(list.statusCode).toBe(200);
        const items = list.json() as { endorserName: string; createdAt: string }[];
        expect(items.map((e) => e.endorserName)).toEqual(['Cloud Guild', ...names]);
        const times = items.map((e) => e.createdAt);
        expect([...times].sort()).toEqual(times);
        expect(new Set(times).size).toBe(times.length);
        for (const [key, id] of [
          [a.key, MISSING],
          [b.key, targetId()],
        ]) {
          const empty = await t.app.inject({ method: 'GET', url: path(id as string), headers: auth(key as string) });
          expect(empty.statusCode).toBe(200);
          expect(empty.json()).toEqual([]);
        }
      });

      it('validates the body', async () => {
        const missing = await endorse(a.key, path(targetId()), { endorserName: 'X' });
        const body = expectErrorBody(missing, 400, 'validation_failed') as { issues: { path: string }[] };
        expect(body.issues.map((i) => i.path)).toEqual(['/claim']);
        const bad = await endorse(a.key, path(targetId()), {
          endorserName: '',
          claim: 'c',
          endorserUrl: 'javascript:alert(1)',
          issuerId: b.id,
        });
        const issues = (expectErrorBody(bad, 400, 'validation_failed') as { issues: { path: string }[] }).issues;
        expect(issues.map((i) => i.path).sort()).toEqual(['/endorserName', '/endorserUrl', '/issuerId']);
        expectErrorBody(await endorse(a.key, path(targetId()), [1]), 400, 'validation_failed');
      });

      it('needs a key and hides another issuer’s target (404)', async () => {
        const payload = { endorserName: 'X', claim: 'c' };
        await expectKeyRequired(t.app, { method: 'POST', url: path(targetId()), payload });
        await expectKeyRequired(t.app, { method: 'GET', url: path(targetId()) });
        await expectHiddenFromOtherIssuer(
          t.app,
          b.key,
          { method: 'POST', url: path(targetId()), payload },
          { method: 'POST', url: path(MISSING), payload },
        );
        expectErrorBody(await endorse(a.key, path(MISSING), payload), 404, 'not_found');
      });
    });
  }

  it('hosts each endorsement as a valid OB 2.0 Endorsement with an endorser Profile on our origin', async () => {
    clock.set('2026-04-02T08:00:00.000Z');
    const created = (
      await endorse(a.key, `/api/v1/definitions/${definition.id}/endorsements`, {
        endorserName: 'Standards Body',
        endorserUrl: 'https://standards.example/about',
        claim: 'Aligned with our standard.',
      })
    ).json();
    const url = `${BASE}/v1/issuers/${a.slug}/endorsements/${created.id}`;
    const doc = await t.app.inject({ method: 'GET', url: url.slice(BASE.length) });
    expect(doc.statusCode).toBe(200);
    expect(doc.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(doc.json()).toEqual({
      '@context': OB_CONTEXT,
      type: 'Endorsement',
      id: url,
      claim: { id: credential.badgeClassUrl, endorsementComment: 'Aligned with our standard.' },
      issuer: `${url}/issuer`,
      issuedOn: '2026-04-02T08:00:00.000Z',
      verification: { type: 'hosted' },
    });
    const profile = await t.app.inject({ method: 'GET', url: `${url.slice(BASE.length)}/issuer` });
    expect(profile.json()).toEqual({
      '@context': OB_CONTEXT,
      type: 'Profile',
      id: `${url}/issuer`,
      name: 'Standards Body',
      url: 'https://standards.example/about',
      email: `contact@${a.slug}.example`,
      description: expect.stringContaining('Acme Academy'),
    });
    const report = await validateHosted(url, { fetch: injectFetch(t.app, BASE), now: clock.now() });
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.fetched).toEqual([url, `${url}/issuer`]);

    const badge = (await t.app.inject({ method: 'GET', url: credential.badgeClassUrl.slice(BASE.length) })).json();
    expect(badge.endorsement).toContain(url);
    const badgeReport = await validateHosted(credential.badgeClassUrl, {
      fetch: injectFetch(t.app, BASE),
      now: clock.now(),
    });
    expect(badgeReport.errors).toEqual([]);
    expect(badgeReport.warnings).toEqual([]);
  });

  it("claims the Assertion for a credential endorsement; the endorser's url defaults to the issuer's", async () => {
    const created = (
      await endorse(a.key, `/api/v1/credentials/${credential.credentialId}/endorsements`, {
        endorserName: 'Mentor',
        claim: 'Excellent.',
      })
    ).json();
    const path = `/v1/issuers/${a.slug}/endorsements/${created.id}`;
    const doc = (await t.app.inject({ method: 'GET', url: path })).json();
    expect(doc.claim).toEqual({ id: credential.assertionUrl, endorsementComment: 'Excellent.' });
    const profile = (await t.app.inject({ method: 'GET', url: `${path}/issuer` })).json();
    expect(profile.url).toBe(`https://${a.slug}.example`);
    const assertion = (await t.app.inject({ method: 'GET', url: credential.assertionUrl.slice(BASE.length) })).json();
    expect(assertion.endorsement).toContain(`${BASE}${path}`);
    const foreign = await t.app.inject({ method: 'GET', url: `/v1/issuers/${b.slug}/endorsements/${created.id}` });
    const unknown = await t.app.inject({ method: 'GET', url: `/v1/issuers/${b.slug}/endorsements/${MISSING}` });
    expectErrorBody(foreign, 404, 'not_found');
    expect(foreign.body).toBe(unknown.body);
  });
});
