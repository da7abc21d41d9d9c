import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleUser, consoleUser } from './console.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

describe.each(dialects)('console settings: keys and the issuer profile on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let owner: ConsoleUser;

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock: manualClock('2026-11-26T09:00:00.000Z') });
    issuer = await t.issuer({ name: 'Profile Academy' });
    owner = await consoleUser(t.app, issuer.id, 'owner');
  });
  afterAll(async () => {
    await t.close();
  });

  const me = async (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(key) });

  it('creates, rotates with a grace period and revokes keys, audited with the user as actor', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/keys',
      headers: owner.headers,
      payload: { name: 'LMS' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const made = created.json();
    expect(made.key).toMatch(/^acc_[A-Za-z0-9_-]{40}$/);
    expect(made.prefix).toBe(made.key.slice(0, 8));
    expect((await me(made.key)).statusCode).toBe(200);

    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/keys', headers: owner.headers });
    expect(listed.statusCode, listed.body).toBe(200);
    const lms = listed.json().items.find((k: { id: string }) => k.id === made.id);
    expect(lms).toEqual({
      id: made.id,
      prefix: made.prefix,
      name: 'LMS',
      createdAt: made.createdAt,
      revokedAt: null,
      expiresAt: null,
    });
    expect(listed.body).not.toContain(made.key);

    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/keys/${made.id}/rotate`,
      headers: owner.headers,
      payload: { graceSeconds: 3600 },
    });
    expect(rotated.statusCode, rotated.body).toBe(201);
    const next = rotated.json();
    expect(Date.parse(next.previousKeyExpiresAt) - Date.parse(next.createdAt)).toBe(3_600_000);
    // Within the grace period both work; the rotated key alone stops then (issue 39 §6), and the new
    // key keeps its label.
    expect([
      (await me(made.key)).statusCode,
      (await me(next.key)).statusCode,
      (await me(issuer.key)).statusCode,
    ]).toEqual([200, 200, 200]);
    expect(next).toMatchObject({ name: 'LMS', rotatedFrom: made.id });
    const during = (await t.app.inject({ method: 'GET', url: '/api/v1/keys', headers: owner.headers })).json().items;
    expect(during.find((k: { id: string }) => k.id === made.id)?.expiresAt).toBe(next.previousKeyExpiresAt);
    expect(during.find((k: { id: string }) => k.id === next.id)).toMatchObject({
      name: 'LMS',
      rotatedFrom: made.id,
      expiresAt: null,
    });
    for (const k of during.filter((k: { id: string }) => k.id !== made.id)) expect(k.expiresAt).toBeNull();

    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/keys/${made.id}/revoke`,
      headers: owner.headers,
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().revokedAt).toEqual(expect.any(String));
    expectErrorBody(await me(made.key), 401, 'unauthorized');

    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/v1/keys/00000000-0000-4000-8000-000000000000/revoke',
      headers: owner.headers,
    });
    expectErrorBody(missing, 404, 'not_found');

    const records = await t.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('issuer_id', '=', issuer.id)
      .where('actor', '=', `user:${owner.userId}`)
      .where('action', 'like', 'api_key.%')
      .execute();
    expect(records.map((r) => r.action).sort()).toEqual(
      ['api_key.created', 'api_key.created', 'api_key.revoked', 'api_key.rotated'].sort(),
    );
  });

  it('changes the profile, which the issuer documents and the verification page then show', async () => {
    const other = await t.issuer();
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/issuer/me',
      headers: owner.headers,
      payload: {
        name: 'Renamed Academy',
        url: 'https://renamed.example',
        email: 'hello@renamed.example',
        description: 'We teach.',
        imageUrl: 'https://renamed.example/logo.png',
        brandColor: '#aa3300',
      },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      id: issuer.id,
      slug: issuer.slug,
      name: 'Renamed Academy',
      url: 'https://renamed.example',
      email: 'hello@renamed.example',
      description: 'We teach.',
      imageUrl: 'https://renamed.example/logo.png',
      brandColor: '#aa3300',
    });
    expect((await me(issuer.key)).json()).toEqual(patched.json());
    expect((await me(other.key)).json().name).not.toBe('Renamed Academy');

    const ob2 = (await t.app.inject({ method: 'GET', url: `/v1/issuers/${issuer.slug}` })).json();
    expect(ob2).toMatchObject({
      name: 'Renamed Academy',
      url: 'https://renamed.example',
      email: 'hello@renamed.example',
      description: 'We teach.',
      image: 'https://renamed.example/logo.png',
    });

    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Profile badge', description: 'd' },
    });
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: {
        definitionId: definition.json().id,
        recipientEmail: 'earner@example.test',
        completionKey: 'profile-1',
      },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    const page = await t.app.inject({
      method: 'GET',
      url: `/verify/${issuer.slug}/${issued.json().credentialId}`,
      headers: { accept: 'text/html' },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Renamed Academy');
    expect(page.body.toLowerCase()).toContain('#aa3300');
    const ob3 = await t.app.inject({ method: 'GET', url: new URL(issued.json().openBadgeCredentialUrl).pathname });
    expect(ob3.statusCode, ob3.body).toBe(200);
    expect(ob3.json().issuer).toMatchObject({ name: 'Renamed Academy', url: 'https://renamed.example' });

    const cleared = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/issuer/me',
      headers: owner.headers,
      payload: { description: null, brandColor: null },
    });
    expect(cleared.json()).toMatchObject({ description: null, brandColor: null, name: 'Renamed Academy' });

    for (const payload of [
      { brandColor: 'red' },
      { url: 'javascript:alert(1)' },
      { email: 'not-an-email' },
      { name: '' },
    ]) {
      const bad = await t.app.inject({ method: 'PATCH', url: '/api/v1/issuer/me', headers: owner.headers, payload });
      expectErrorBody(bad, 400, 'validation_failed');
    }
    const record = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'details'])
      .where('issuer_id', '=', issuer.id)
      .where('action', '=', 'issuer.updated')
      .execute();
    expect(record.map((r) => r.actor)).toEqual([`user:${owner.userId}`, `user:${owner.userId}`]);
  });
});
