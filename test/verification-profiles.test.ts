import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { createDefinition, issue, revoke } from './verification.support.js';

const EMAIL = 'Grace.Hopper+Profile@Example.TEST';

describe.each(dialects)('earner profiles on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let profileId: string;
  let profileUrl: string;
  const live: string[] = [];
  let revokedUrl: string;
  const clock = manualClock();

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `prof-a-${dialect}` });
    b = await t.issuer({ slug: `prof-b-${dialect}` });
    const first = await createDefinition(t, a, { name: 'First' });
    const second = await createDefinition(t, a, { name: 'Second' });
    const third = await createDefinition(t, a, { name: 'Third' });
    live.push((await issue(t, a, first.id, { email: EMAIL, name: 'Grace Hopper' })).assertionUrl);
    clock.advance(60_000);
    live.push(
      (await issue(t, a, second.id, { email: 'grace.hopper+profile@example.test', name: 'Grace Brewster Hopper' }))
        .assertionUrl,
    );
    const gone = await issue(t, a, third.id, { email: EMAIL, name: 'Grace Hopper' });
    revokedUrl = gone.assertionUrl;
    await revoke(t, a, gone.credentialId, 'Issued in error');
    await issue(t, a, first.id, { email: 'someone.else@example.test', name: 'Someone Else' });
  });
  afterAll(async () => t.close());

  it('creates a profile with an unguessable id and answers the same one again', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/profiles',
      headers: auth(a.key),
      payload: { recipientEmail: EMAIL },
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({ id: expect.any(String), profileUrl: `https://badges.test/v1/profiles/${body.id}` });
    expect(body.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    profileId = body.id;
    profileUrl = body.profileUrl;
    expect(res.body.toLowerCase()).not.toContain('hopper');
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/profiles',
      headers: { 'x-api-key': a.key },
      payload: { recipientEmail: 'GRACE.HOPPER+PROFILE@example.test' },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(body);
  });

  it('serves the public profile: partial name and live assertion URLs, newest first', async () => {
    const res = await t.app.inject({ method: 'GET', url: new URL(profileUrl).pathname });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id: profileId, name: 'Grace H.', credentials: [...live].reverse() });
    expect(res.json().credentials).not.toContain(revokedUrl);
    expect(res.body).not.toContain('Brewster');
    const cors = await t.app.inject({
      method: 'GET',
      url: `/v1/profiles/${profileId}`,
      headers: { origin: 'https://portfolio.example' },
    });
    expect(cors.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers 404 for an unknown profile', async () => {
    expectErrorBody(await t.app.inject({ method: 'GET', url: '/v1/profiles/nope' }), 404, 'not_found');
  });

  it('validates the body and requires a key', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/profiles',
      headers: auth(a.key),
      payload: { recipientEmail: 'not-an-email', extra: true },
    });
    const body = expectErrorBody(bad, 400, 'validation_failed') as { issues: { path: string }[] };
    expect(body.issues.map((i) => i.path).sort()).toEqual(['/extra', '/recipientEmail']);
    expect(bad.body).not.toContain('not-an-email');
    await expectKeyRequired(t.app, { method: 'POST', url: '/api/v1/profiles', payload: { recipientEmail: EMAIL } });
    await expectKeyRequired(t.app, { method: 'DELETE', url: `/api/v1/profiles/${profileId}` });
  });

  it("hides another issuer's profile from deletion, then deletes it for its own issuer", async () => {
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'DELETE', url: `/api/v1/profiles/${profileId}` },
      { method: 'DELETE', url: '/api/v1/profiles/does-not-exist' },
    );
    const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/profiles/${profileId}`, headers: auth(a.key) });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectErrorBody(await t.app.inject({ method: 'GET', url: `/v1/profiles/${profileId}` }), 404, 'not_found');
    expectErrorBody(
      await t.app.inject({ method: 'DELETE', url: `/api/v1/profiles/${profileId}`, headers: auth(a.key) }),
      404,
      'not_found',
    );
  });

  it('deletes every profile of a recipient inside a transaction (GDPR erase)', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/profiles',
      headers: auth(a.key),
      payload: { recipientEmail: EMAIL },
    });
    expect(created.statusCode).toBe(201);
    const otherIssuers = await t.app.inject({
      method: 'POST',
      url: '/api/v1/profiles',
      headers: auth(b.key),
      payload: { recipientEmail: EMAIL },
    });
    expect(otherIssuers.statusCode).toBe(201);
    const hash = await t.app.services.issuance.recipientHash(a.id, EMAIL);
    const deleted = await t.database.db
      .transaction()
      .execute((trx) => t.app.services.profiles.deleteForRecipient(trx, a.id, hash));
    expect(deleted).toBe(1);
    expectErrorBody(await t.app.inject({ method: 'GET', url: `/v1/profiles/${created.json().id}` }), 404, 'not_found');
    const kept = await t.app.inject({ method: 'GET', url: `/v1/profiles/${otherIssuers.json().id}` });
    expect(kept.json()).toEqual({ id: otherIssuers.json().id, credentials: [] });
  });

  it('never stores the raw email', async () => {
    const rows = await t.database.db.selectFrom('profiles').selectAll().execute();
    expect(JSON.stringify(rows).toLowerCase()).not.toContain('hopper');
  });
});
