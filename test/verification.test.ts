import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppendOnlyRefusal } from '../src/db/dialect.js';
import { createVerificationRepository } from '../src/modules/verification/verification.repository.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { createDefinition, type Issued, issue, revoke } from './verification.support.js';

const BASE = 'https://badges.test';
const GEO = 'cf-ipcountry';

describe.each(dialects)('verification API on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let valid: Issued;
  let expiring: Issued;
  let revoked: Issued;
  let anonymous: Issued;
  let plato: Issued;
  let definitionId: string;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  // Each call from its own client address: one client's repeats within the window are coalesced.
  let calls = 0;
  const client = () => `10.0.${Math.floor(++calls / 256)}.${calls % 256}`;
  const verify = (id: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/v1/verify', payload: { id }, headers, remoteAddress: client() });
  const bulk = (ids: unknown[], headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/v1/verify/bulk', payload: { ids }, headers, remoteAddress: client() });
  const events = async () => {
    await t.app.services.verification.events.flush();
    return t.database.db.selectFrom('verification_events').selectAll().orderBy('id').execute();
  };

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock, env: { GEO_COUNTRY_HEADER: 'CF-IPCountry' } });
    a = await t.issuer({ slug: `ver-a-${dialect}`, name: 'Northwind Academy' });
    b = await t.issuer({ slug: `ver-b-${dialect}`, plan: 'free' });
    const definition = await createDefinition(t, a, { name: 'Data Literacy' });
    definitionId = definition.id;
    const shortLived = await createDefinition(t, a, { name: 'Safety Induction', expiresAfterDays: 10 });
    valid = await issue(t, a, definitionId, { email: 'grace@example.test', name: 'Grace Brewster Hopper' });
    expiring = await issue(t, a, shortLived.id, { email: 'ada@example.test', name: 'Ada Lovelace' });
    revoked = await issue(t, a, definitionId, { email: 'alan@example.test', name: 'Alan Turing' });
    await revoke(t, a, revoked.credentialId, 'Issued in error');
    anonymous = await issue(t, a, definitionId, { email: 'anon@example.test' });
    plato = await issue(t, a, definitionId, { email: 'plato@example.test', name: '  Plato ' });
  });
  afterAll(async () => t.close());

  it('verifies an assertion URL with the full result and a partial name only', async () => {
    const res = await verify(valid.assertionUrl);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: valid.assertionUrl,
      authentic: true,
      status: 'valid',
      valid: true,
      issuer: {
        name: 'Northwind Academy',
        slug: a.slug,
        profileUrl: `${BASE}/v1/issuers/${a.slug}`,
        brandPrimaryColor: '#123456',
        brandLogoUrl: null,
      },
      credential: {
        name: 'Data Literacy',
        badgeClassUrl: `${BASE}/v1/issuers/${a.slug}/badges/data-literacy`,
        imageUrl: `${BASE}/v1/issuers/${a.slug}/badges/data-literacy/image.svg`,
      },
      recipientName: 'Grace H.',
      issuedOn: '2026-11-21T10:00:00.000Z',
      expiresOn: null,
      revokedReason: null,
      verifyPageUrl: `${BASE}/verify/${a.slug}/${valid.credentialId}`,
    });
    expect(res.body).not.toContain('Hopper');
    expect(res.body).not.toContain('Brewster');
    expect(res.body).not.toContain('grace@');
  });

  it('accepts the bare credential id and a trailing slash', async () => {
    const bare = await verify(valid.credentialId);
    expect(bare.json()).toMatchObject({ id: valid.credentialId, authentic: true, status: 'valid', valid: true });
    const slash = await verify(`${valid.assertionUrl}/`);
    expect(slash.json()).toMatchObject({ id: `${valid.assertionUrl}/`, authentic: true, status: 'valid' });
  });

  it('answers unknown for another host, malformed, unknown and mismatched ids', async () => {
    const foreignSlug = valid.assertionUrl.replace(`/issuers/${a.slug}/`, `/issuers/${b.slug}/`);
    for (const id of [
      valid.assertionUrl.replace(BASE, 'https://evil.example'),
      valid.assertionUrl.replace('https://', 'http://'),
      `${valid.assertionUrl}?x=1`,
      `${BASE}/v1/issuers/${a.slug}/badges/data-literacy`,
      `${BASE}/v1/issuers/${a.slug}/assertions/%E0%A4%A`,
      'not a url at all',
      '00000000-0000-4000-8000-000000000000',
      `${BASE}/v1/issuers/${a.slug}/assertions/00000000-0000-4000-8000-000000000000`,
      foreignSlug,
      "' or 1=1 --",
    ]) {
      const res = await verify(id);
      expect(res.statusCode, id).toBe(200);
      expect(res.json(), id).toEqual({ id, authentic: false, status: 'unknown', valid: false });
    }
  });

  it('shows expiry and revocation at once', async () => {
    const before = await verify(expiring.assertionUrl);
    expect(before.json()).toMatchObject({ status: 'valid', valid: true, expiresOn: '2026-12-01T10:00:00.000Z' });
    clock.set('2026-12-01T10:00:00.000Z');
    const after = await verify(expiring.assertionUrl);
    expect(after.json()).toMatchObject({ status: 'expired', valid: false, recipientName: 'Ada L.' });
    clock.set('2026-11-21T10:00:00.000Z');
    const gone = await verify(revoked.assertionUrl);
    expect(gone.json()).toMatchObject({
      authentic: true,
      status: 'revoked',
      valid: false,
      revokedReason: 'Issued in error',
      recipientName: 'Alan T.',
    });
  });

  it('answers concurrent single verifies, read together, each as if it were alone', async () => {
    const ids = [
      valid.assertionUrl,
      revoked.assertionUrl,
      valid.credentialId,
      'missing-id',
      `${BASE}/v1/issuers/${b.slug}/assertions/${valid.credentialId}`,
      expiring.assertionUrl,
      anonymous.credentialId,
      plato.assertionUrl,
    ];
    const alone = [];
    for (const id of ids) alone.push((await verify(id)).json());
    const together = await Promise.all([...ids, ...ids, ...ids].map((id) => verify(id)));
    expect(together.map((res) => res.json())).toEqual([...alone, ...alone, ...alone]);
  });

  it.runIf(dialect === 'postgres')('prepares the verification reads once per PostgreSQL connection', async () => {
    await t.database.db.transaction().execute(async (trx) => {
      const repo = createVerificationRepository(trx, 'postgres');
      const many = await repo.findByIds([valid.credentialId, revoked.credentialId, 'missing-id']);
      expect([...many.keys()].sort()).toEqual([valid.credentialId, revoked.credentialId].sort());
      expect((await repo.findByIds([valid.credentialId])).get(valid.credentialId)?.issuer_slug).toBe(a.slug);
      expect((await repo.findForPageByIds([revoked.credentialId])).get(revoked.credentialId)?.revoked_reason).toBe(
        'Issued in error',
      );
      // This connection holds the three reads just run (and whatever else of ours it ran before).
      const { rows } = await sql<{ statement: string }>`
        select statement from pg_prepared_statements where name like 'accolade_%'`.execute(trx);
      // The verification reads select from credentials first; the page's also reads the replacement.
      const reads = rows.filter(({ statement }) => statement.startsWith('select "credentials"."id"'));
      const prepared = (byArray: boolean, page: boolean) =>
        reads.filter(
          ({ statement }) => statement.includes('= any(') === byArray && statement.includes('replacement_id') === page,
        );
      expect(prepared(true, false)).toHaveLength(1);
      expect(prepared(false, false)).toHaveLength(1);
      expect(prepared(false, true)).toHaveLength(1);
    });
  });

  it('leaves the name out when there is none and shows a single name as its initial only', async () => {
    const none = (await verify(anonymous.assertionUrl)).json();
    expect(none.authentic).toBe(true);
    expect(none).not.toHaveProperty('recipientName');
    expect((await verify(plato.assertionUrl)).json().recipientName).toBe('P.');
  });

  it('validates the body: missing, empty or non-string id, unknown properties', async () => {
    for (const payload of [
      {},
      { id: '' },
      { id: 42 },
      { id: valid.assertionUrl, extra: 1 },
      { id: 'x'.repeat(8193) },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/verify', payload });
      expectErrorBody(res, 400, 'validation_failed');
    }
    expectErrorBody(await t.app.inject({ method: 'POST', url: '/api/v1/verify' }), 400, 'validation_failed');
  });

  it('bulk-verifies in request order with duplicates and unknown ids', async () => {
    const ids = [
      revoked.assertionUrl,
      'nope',
      valid.credentialId,
      valid.assertionUrl,
      `${BASE}/v1/issuers/${b.slug}/assertions/${valid.credentialId}`,
      expiring.assertionUrl,
    ];
    const res = await bulk(ids);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.count).toBe(6);
    expect(body.results.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([
      [ids[0], 'revoked'],
      [ids[1], 'unknown'],
      [ids[2], 'valid'],
      [ids[3], 'valid'],
      [ids[4], 'unknown'],
      [ids[5], 'valid'],
    ]);
    expect(body.results[2]).toEqual({ ...(await verify(valid.credentialId)).json() });
    expect((await bulk([])).json()).toEqual({ count: 0, results: [] });
  });

  it('bulk-verifies 1,000 ids in one call and refuses 1,001', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) =>
      i % 4 === 0 ? valid.assertionUrl : i % 4 === 1 ? `${BASE}/v1/issuers/x/assertions/${i}` : `missing-${i}`,
    );
    const res = await bulk(ids);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.count).toBe(1000);
    expect(body.results.map((r: { id: string }) => r.id)).toEqual(ids);
    expect(body.results.filter((r: { valid: boolean }) => r.valid)).toHaveLength(250);
    const tooMany = await bulk([...ids, 'one-more']);
    const error = expectErrorBody(tooMany, 400, 'validation_failed') as { issues: { path: string }[] };
    expect(error.issues[0]?.path).toBe('/ids');
    expectErrorBody(
      await t.app.inject({ method: 'POST', url: '/api/v1/verify/bulk', payload: { ids: 'x' } }),
      400,
      'validation_failed',
    );
    expectErrorBody(
      await t.app.inject({ method: 'POST', url: '/api/v1/verify/bulk', payload: { ids: [''] } }),
      400,
      'validation_failed',
    );
  });

  describe('premium', () => {
    it('requires a key', async () => {
      await expectKeyRequired(t.app, {
        method: 'POST',
        url: '/api/v1/verify/premium',
        payload: { id: valid.assertionUrl },
      });
    });

    it('refuses plans without premium verification with 402 and meters nothing', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify/premium',
        headers: auth(b.key),
        payload: { id: valid.assertionUrl },
      });
      const body = expectErrorBody(res, 402, 'premium_not_included');
      expect(Object.keys(body).sort()).toEqual(['error', 'message']);
      const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: auth(b.key) });
      expect(usage.json().metering.premiumVerification).toBe(0);
    });

    it('answers the same result and meters every call, unknown ids included', async () => {
      const usageOf = async () =>
        (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: auth(a.key) })).json().metering
          .premiumVerification as number;
      const before = await usageOf();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify/premium',
        headers: { 'x-api-key': a.key },
        payload: { id: valid.assertionUrl },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual((await verify(valid.assertionUrl)).json());
      const unknown = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify/premium',
        headers: auth(a.key),
        payload: { id: 'missing' },
      });
      expect(unknown.json()).toEqual({ id: 'missing', authentic: false, status: 'unknown', valid: false });
      expect(await usageOf()).toBe(before + 2);
    });

    it('validates the body after the key', async () => {
      expectErrorBody(
        await t.app.inject({ method: 'POST', url: '/api/v1/verify/premium', headers: auth(a.key), payload: {} }),
        400,
        'validation_failed',
      );
    });
  });

  describe('recording', () => {
    it('records authentic verifications by channel and country, never unknown ids', async () => {
      await events();
      const start = (await events()).length;
      await verify(valid.assertionUrl, { 'cf-ipcountry': 'au' });
      await verify(valid.assertionUrl, { 'cf-ipcountry': 'Australia' });
      await verify('missing', { [GEO]: 'NZ' });
      await bulk([valid.credentialId, 'missing', revoked.assertionUrl], { [GEO]: 'NZ' });
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify/premium',
        headers: { ...auth(a.key), [GEO]: 'de' },
        payload: { id: valid.assertionUrl },
        remoteAddress: client(),
      });
      const rows = (await events()).slice(start);
      expect(rows.map((r) => [r.credential_id, r.channel, r.country])).toEqual([
        [valid.credentialId, 'api', 'AU'],
        [valid.credentialId, 'api', 'ZZ'],
        [valid.credentialId, 'bulk', 'NZ'],
        [revoked.credentialId, 'bulk', 'NZ'],
        [valid.credentialId, 'api', 'DE'],
      ]);
      expect(rows.every((r) => r.issuer_id === a.id && r.occurred_at === '2026-11-21T10:00:00.000Z')).toBe(true);
    });

    it('counts verifications in the verified-total metric', async () => {
      const metric = async (channel: string) => {
        const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
        const match = new RegExp(`accolade_verifications_total\\{channel="${channel}"\\} (\\d+)`).exec(text);
        return Number(match?.[1] ?? 0);
      };
      const api = await metric('api');
      const bulkCount = await metric('bulk');
      await verify(valid.assertionUrl);
      await verify('unknown-id');
      await bulk([valid.assertionUrl, revoked.assertionUrl, 'unknown-id']);
      expect(await metric('api')).toBe(api + 1);
      expect(await metric('bulk')).toBe(bulkCount + 2);
    });

    it('keeps verification events append-only at the database level', async () => {
      await verify(valid.assertionUrl);
      await events();
      const db = t.database.db;
      await expect(db.updateTable('verification_events').set({ country: 'XX' }).execute()).rejects.toSatisfy(
        isAppendOnlyRefusal,
      );
      await expect(db.deleteFrom('verification_events').execute()).rejects.toSatisfy(isAppendOnlyRefusal);
    });

    it('emits credential.verified through the outbox in the flush, without personal data', async () => {
      const subscriptionId = `sub-${dialect}`;
      await t.database.db
        .insertInto('webhook_subscriptions')
        .values({
          id: subscriptionId,
          issuer_id: a.id,
          url: 'https://hooks.example/verified',
          events: JSON.stringify(['credential.verified']),
          secret: 'whsec_test',
          created_at: '2026-11-21T10:00:00.000Z',
          deleted_at: null,
        })
        .execute();
      await events();
      await verify(valid.assertionUrl);
      await bulk([revoked.assertionUrl, 'unknown']);
      await events();
      const deliveries = await t.database.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('subscription_id', '=', subscriptionId)
        .execute();
      const payloads = deliveries.map((d) => JSON.parse(d.payload));
      expect(payloads.map((p) => [p.event, p.data.credentialId, p.data.channel, p.data.status])).toEqual([
        ['credential.verified', valid.credentialId, 'api', 'valid'],
        ['credential.verified', revoked.credentialId, 'bulk', 'revoked'],
      ]);
      expect(payloads[0].data).toMatchObject({
        definitionId,
        assertionUrl: valid.assertionUrl,
        verifyUrl: valid.verifyUrl,
      });
      const text = JSON.stringify(payloads);
      for (const personal of ['Grace', 'Hopper', 'Alan', 'example.test', 'recipient']) {
        expect(text).not.toContain(personal);
      }
    });
  });

  describe('CORS', () => {
    it('answers preflights of the open endpoints for any origin, without credentials', async () => {
      for (const [url, method] of [
        ['/api/v1/verify', 'POST'],
        ['/api/v1/verify/bulk', 'POST'],
        ['/v1/profiles/abc', 'GET'],
        [`/v1/issuers/${a.slug}`, 'GET'],
        ['/embed/v1.js', 'GET'],
      ] as const) {
        const res = await t.app.inject({
          method: 'OPTIONS',
          url,
          headers: {
            origin: 'https://portfolio.example',
            'access-control-request-method': method,
            'access-control-request-headers': 'content-type',
          },
        });
        expect(res.statusCode, url).toBe(204);
        expect(res.headers['access-control-allow-origin'], url).toBe('*');
        expect(String(res.headers['access-control-allow-methods']), url).toContain(method);
        expect(res.headers['access-control-allow-credentials'], url).toBeUndefined();
      }
      const actual = await verify(valid.assertionUrl, { origin: 'https://portfolio.example' });
      expect(actual.headers['access-control-allow-origin']).toBe('*');
    });

    it('does not reflect an arbitrary origin on keyed routes', async () => {
      const origin = 'https://attacker.example';
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/v1/verify/premium',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      for (const url of ['/api/v1/verify/premium', '/api/v1/credentials']) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...auth(a.key), origin },
          payload: { id: valid.assertionUrl },
        });
        expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
        expect(res.headers['access-control-allow-credentials'], url).toBeUndefined();
      }
    });
  });
});

describe.each(dialects)('verification event buffer on %s', (dialect) => {
  it('flushes buffered events when the app shuts down', async () => {
    const t = await createTestApp(dialect);
    const issuer = await t.issuer({ slug: `ver-flush-${dialect}` });
    const definition = await createDefinition(t, issuer);
    const credential = await issue(t, issuer, definition.id, { email: 'flush@example.test', name: 'Flush Test' });
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/verify',
          payload: { id: credential.assertionUrl },
          remoteAddress: `10.1.0.${i}`,
        }),
      ),
    );
    expect(results.every((r) => r.json().valid === true)).toBe(true);
    await t.app.close();
    const rows = await t.database.db.selectFrom('verification_events').selectAll().execute();
    expect(rows).toHaveLength(25);
    await t.database.close();
    await t.testDb.drop();
  });

  it('writes early once many events are buffered, without the timer', async () => {
    const t = await createTestApp(dialect);
    try {
      const issuer = await t.issuer({ slug: `ver-early-${dialect}` });
      const definition = await createDefinition(t, issuer);
      const credential = await issue(t, issuer, definition.id, { email: 'early@example.test' });
      // Stopping the job leaves only the size trigger to write anything.
      await t.app.services.verification.events.stop();
      // 300 people verifying (a client's repeats are one event): more than a batch (250) waits.
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          t.app.inject({
            method: 'POST',
            url: '/api/v1/verify/bulk',
            payload: { ids: [credential.credentialId, credential.credentialId] },
            remoteAddress: `10.2.${Math.floor(i / 256)}.${i % 256}`,
          }),
        ),
      );
      expect(answers.every((res) => res.json().count === 2)).toBe(true);
      await expect
        .poll(async () => (await t.database.db.selectFrom('verification_events').select('id').execute()).length)
        .toBeGreaterThanOrEqual(250);
    } finally {
      await t.close();
    }
  });
});
