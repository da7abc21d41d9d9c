import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earnerSession, form } from './backpack.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

const EMAIL = 'Grace.Brewster+Canary@Example.TEST';

describe.each(dialects)('collections with a public page in the backpack on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const issued: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' } });
    a = await t.issuer({ name: 'Collections College' });
    for (const name of ['Harbour Pilot', 'Night Navigator', 'Lighthouse Keeper']) {
      const definition = await t.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: auth(a.key),
        payload: { name, description: `${name} badge` },
      });
      const credential = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(a.key),
        payload: {
          definitionId: definition.json().id,
          recipientEmail: EMAIL,
          recipientName: 'Grace Brewster Hopper',
          completionKey: name,
        },
      });
      expect(credential.statusCode, credential.body).toBe(201);
      issued.push(credential.json().credentialId as string);
    }
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: {
        definitionId: (
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/definitions',
            headers: auth(a.key),
            payload: { name: 'Someone Else’s', description: 'Not hers' },
          })
        ).json().id,
        recipientEmail: 'someone.else@example.test',
        completionKey: 'other',
      },
    });
    issued.push(other.json().credentialId as string);
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  const post = (cookie: string, url: string, payload: string) =>
    t.app.inject({ method: 'POST', url, headers: { ...form, cookie }, payload });
  const page = async (cookie: string) =>
    (await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie } })).body;
  const publicPath = (body: string) => /href="(\/collections\/[A-Za-z0-9_-]+)"/.exec(body)?.[1];

  it('makes a collection of the earner’s own badges, publishes it with the partial name, and takes it down again', async () => {
    const earner = await earnerSession(t.app, EMAIL);
    const other = await earnerSession(t.app, 'someone.else@example.test');
    const [pilot, navigator, keeper, foreign] = issued as [string, string, string, string];

    expect((await post(earner.cookie, '/backpack/collections', earner.form({ name: '  ' }))).statusCode).toBe(400);
    const created = await post(earner.cookie, '/backpack/collections', earner.form({ name: 'Sea skills' }));
    expect(created.statusCode, created.body).toBe(303);
    let body = await page(earner.cookie);
    expect(body).toContain('<h3>Sea skills</h3>');
    expect(body).toContain('Private: only you see it.');
    const id = /action="\/backpack\/collections\/([^/"]+)\/add"/.exec(body)?.[1] as string;

    for (const credentialId of [pilot, navigator, keeper]) {
      expect(
        (await post(earner.cookie, `/backpack/collections/${id}/add`, earner.form({ credentialId }))).statusCode,
      ).toBe(303);
    }
    const notHers = await post(
      earner.cookie,
      `/backpack/collections/${id}/add`,
      earner.form({ credentialId: foreign }),
    );
    expect(notHers.statusCode).toBe(404);
    // Another earner cannot change it, nor can a post without the session's CSRF token.
    expect(
      (await post(other.cookie, `/backpack/collections/${id}/visibility`, other.form({ public: 'true' }))).statusCode,
    ).toBe(404);
    const forged = await post(
      earner.cookie,
      `/backpack/collections/${id}/visibility`,
      new URLSearchParams({ csrf: 'x', public: 'true' }).toString(),
    );
    expect(forged.statusCode).toBe(403);
    expect(publicPath(await page(earner.cookie))).toBeUndefined();

    expect(
      (await post(earner.cookie, `/backpack/collections/${id}/remove`, earner.form({ credentialId: keeper })))
        .statusCode,
    ).toBe(303);
    expect(
      (await post(earner.cookie, `/backpack/collections/${id}/visibility`, earner.form({ public: 'true' }))).statusCode,
    ).toBe(303);
    body = await page(earner.cookie);
    const path = publicPath(body) as string;
    expect(path).toBeDefined();

    const shown = await t.app.inject({ method: 'GET', url: path });
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['content-type']).toContain('text/html');
    expect(shown.body).toContain('<h1>Sea skills</h1>');
    expect(shown.body).toContain('Badges of Grace H.');
    expect(shown.body).not.toContain('Brewster');
    expect(shown.body).not.toContain('Hopper');
    expect(shown.body.toLowerCase()).not.toContain('grace.brewster');
    expect(shown.body).toContain('<h2>Harbour Pilot</h2>');
    expect(shown.body).toContain('<h2>Night Navigator</h2>');
    expect(shown.body).not.toContain('Lighthouse Keeper');
    expect(shown.body).toContain(`/verify/${a.slug}/${pilot}">Verify this badge</a>`);

    // A revoked badge leaves the public page.
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${navigator}/revoke`,
      headers: auth(a.key),
      payload: {},
    });
    expect((await t.app.inject({ method: 'GET', url: path })).body).not.toContain('Night Navigator');

    expect(
      (await post(earner.cookie, `/backpack/collections/${id}/visibility`, earner.form({ public: 'false' })))
        .statusCode,
    ).toBe(303);
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    expect(await page(earner.cookie)).toContain('Private: only you see it.');

    expect(
      (await post(earner.cookie, `/backpack/collections/${id}/visibility`, earner.form({ public: 'true' }))).statusCode,
    ).toBe(303);
    const again = publicPath(await page(earner.cookie)) as string;
    expect(again).not.toBe(path);
    expect((await t.app.inject({ method: 'GET', url: again })).statusCode).toBe(200);

    const audit = await t.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('issuer_id', '=', 'earners')
      .where('action', 'like', 'earner.collection_%')
      .execute();
    expect(new Set(audit.map((r) => r.action))).toEqual(
      new Set([
        'earner.collection_created',
        'earner.collection_changed',
        'earner.collection_published',
        'earner.collection_unpublished',
      ]),
    );

    // Account deletion removes the collections: the public page is gone.
    expect((await post(earner.cookie, '/backpack/account/delete', earner.form())).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: again })).statusCode).toBe(404);
    const left = await t.database.db
      .withTables<{ earner_collections: { id: string } }>()
      .selectFrom('earner_collections')
      .select('id')
      .execute();
    expect(left).toEqual([]);
  }, 60_000);

  it('answers an unknown public address with 404', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/collections/no-such-collection' });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('This collection is not public');
  });
});
