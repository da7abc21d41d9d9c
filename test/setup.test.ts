import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from './console.support.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp } from './helpers.js';

/** Issue 46 §1: the first start sets up the operator's own organisation; slugs change until the first credential. */
const SETUP_MODE = { BOOTSTRAP_ISSUER: undefined } as unknown as Record<string, string>;

const body = (overrides: Record<string, unknown> = {}) => ({
  organisation: {
    name: 'Riverside College',
    email: 'registry@riverside.example',
    url: 'https://riverside.example',
    brandColor: '#0a7d5a',
  },
  owner: { email: 'registrar@riverside.example', password: PASSWORD },
  ...overrides,
});

describe('first-start set-up on sqlite', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: SETUP_MODE });
    const banner = (await t.app.services.setup.open()) ?? '';
    token = banner.match(/\/console\/setup\/([A-Za-z0-9_-]+)/)?.[1] ?? '';
    expect(banner).toContain('https://badges.test/console/setup/');
  });
  afterAll(async () => t.close());

  const post = (tokenUsed: string, payload: object) =>
    t.app.inject({ method: 'POST', url: `/api/v1/setup/${tokenUsed}`, payload });

  it('creates their organisation and signed-in owner once; the demo issuer only when asked', async () => {
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/setup/${token}` })).json()).toEqual({
      publicBaseUrl: 'https://badges.test',
    });
    expectErrorBody(await t.app.inject({ method: 'GET', url: '/api/v1/setup/wrong' }), 404, 'not_found');
    expectErrorBody(await post('wrong', body()), 404, 'not_found');
    expectErrorBody(
      await post(token, body({ owner: { email: 'x@riverside.example', password: 'short' } })),
      400,
      'validation_failed',
    );
    const res = await post(token, body({ sampleData: true }));
    expect(res.statusCode, res.body).toBe(200);
    const done = res.json();
    expect(done.issuerSlug).toBe('riverside-college');
    expect(done.user).toMatchObject({ role: 'owner', email: 'registrar@riverside.example' });
    expect(done.sample.slug).toBe('demo');
    const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: { cookie } });
    expect(me.json()).toMatchObject({ slug: 'riverside-college', name: 'Riverside College', brandColor: '#0a7d5a' });
    const demo = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(done.sample.apiKey) });
    expect(demo.json().slug).toBe('demo');
    expectErrorBody(await post(token, body()), 404, 'not_found');
    expect(await t.app.services.setup.open()).toBeNull();
    const audit = await t.app.inject({ method: 'GET', url: '/api/v1/audit', headers: { cookie } });
    expect(audit.json().items.map((r: { action: string }) => r.action)).toEqual(
      expect.arrayContaining(['issuer.created', 'console_user.invited']),
    );
  });
});

describe('no set-up on a populated database, with BOOTSTRAP_ISSUER set, or on PostgreSQL', () => {
  it.each(dialects)('%s', async (dialect) => {
    const t = await createTestApp(dialect, { env: SETUP_MODE });
    try {
      if (dialect === 'sqlite') {
        await t.issuer();
      }
      expect(await t.app.services.setup.open()).toBeNull();
    } finally {
      await t.close();
    }
    const off = await createTestApp('sqlite');
    try {
      expect(await off.app.services.setup.open()).toBeNull();
    } finally {
      await off.close();
    }
  });
});

describe.each(dialects)('changing the slug on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => t.close());

  it('changes while no credential exists, never after, and refuses a taken slug', async () => {
    const a = await t.issuer();
    const b = await t.issuer();
    const patch = (payload: object, key = a.key) =>
      t.app.inject({ method: 'PATCH', url: '/api/v1/issuer/me', headers: auth(key), payload });
    const renamed = `renamed-${a.slug}`;
    const changed = await patch({ slug: renamed });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ slug: renamed, profileUrl: `https://badges.test/v1/issuers/${renamed}` });
    expect((await t.app.inject({ method: 'GET', url: `/v1/issuers/${renamed}` })).statusCode).toBe(200);
    expectErrorBody(await patch({ slug: b.slug }), 409, 'slug_taken');
    expectErrorBody(await patch({ slug: 'Not A Slug' }), 400, 'validation_failed');
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'First', description: 'd' },
    });
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId: definition.json().id, recipientEmail: 'e@x.example', completionKey: 'k1' },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    expect(issued.json().assertionUrl).toContain(`/v1/issuers/${renamed}/`);
    const locked = expectErrorBody(await patch({ slug: `again-${a.slug}` }), 409, 'slug_locked');
    expect(locked.message).toContain('links already shared would break');
    expect((await patch({ slug: renamed, name: 'Same slug is fine' })).statusCode).toBe(200);
    const audit = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit?action=issuer.updated',
      headers: auth(a.key),
    });
    expect(JSON.stringify(audit.json())).toContain('slug');
  });

  it('locks the slug once the issuer has given an endorsement, signed or hosted, saying why', async () => {
    const patch = (key: string, slug: string) =>
      t.app.inject({ method: 'PATCH', url: '/api/v1/issuer/me', headers: auth(key), payload: { slug } });
    const endorsed = await t.issuer();
    const badge = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(endorsed.key),
      payload: { name: 'Endorsed badge', description: 'd' },
    });
    expect(badge.statusCode, badge.body).toBe(201);

    // A signed endorsement of another issuer's badge carries the endorser's did:web.
    const endorser = await t.issuer();
    const given = await t.app.inject({
      method: 'POST',
      url: '/api/v1/endorsements/given',
      headers: auth(endorser.key),
      payload: {
        badgeClass: `${t.config.publicBaseUrl}/v1/issuers/${endorsed.slug}/badges/${badge.json().slug}`,
        claim: 'Worth it.',
      },
    });
    expect(given.statusCode, given.body).toBe(201);
    const locked = expectErrorBody(await patch(endorser.key, `moved-${endorser.slug}`), 409, 'slug_locked');
    expect(locked.message).toContain('given an endorsement');

    // A hosted endorsement of its own badge lives under its slug.
    const hosting = await t.issuer();
    const own = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(hosting.key),
      payload: { name: 'Own badge', description: 'd' },
    });
    const hosted = await t.app.inject({
      method: 'POST',
      url: `/api/v1/definitions/${own.json().id}/endorsements`,
      headers: auth(hosting.key),
      payload: { endorserName: 'Cloud Guild', endorserUrl: 'https://guild.example/', claim: 'Rigorous.' },
    });
    expect(hosted.statusCode, hosted.body).toBe(201);
    expectErrorBody(await patch(hosting.key, `moved-${hosting.slug}`), 409, 'slug_locked');

    // The endorsed issuer gave nothing and issued nothing: its slug still moves.
    expect((await patch(endorsed.key, `moved-${endorsed.slug}`)).statusCode).toBe(200);
  });
});
