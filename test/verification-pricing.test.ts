import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CREDENTIAL_VERIFY_COST, MAX_BULK_JWTS } from '../src/modules/verification/verification.routes.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { forgedJwt, signedJwt } from './verification.support.js';

const BASE = 'https://badges.test';

/** Issue 37.1 and 37.2: what a signature check costs the client, and what it costs the server. */
describe.each(dialects)('pricing of signature checks in verification on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  let address = 0;

  async function post(key: string, url: string, payload: object) {
    const res = await t.app.inject({ method: 'POST', url, headers: auth(key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }
  const credentialPath = (issuer: TestIssuer, id: string) => `/v1/issuers/${issuer.slug}/credentials/${id}`;
  async function issueOne(issuer: TestIssuer, completionKey: string, definition = definitionId) {
    const issued = await post(issuer.key, '/api/v1/credentials', {
      definitionId: definition,
      recipientEmail: 'ada@example.test',
      recipientName: 'Ada Lovelace',
      completionKey,
    });
    return issued.credentialId as string;
  }
  /** Each call from its own address, so the rate-limit headers count this call alone. */
  const call = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(payload),
      remoteAddress: `10.37.${Math.floor(++address / 250)}.${address % 250}`,
    });
  const spent = (res: { headers: Record<string, unknown> }) =>
    Number(t.config.openRateLimitPerMinute) - Number(res.headers['x-ratelimit-remaining']);

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer({ slug: `price-a-${dialect}`, name: 'Analytical Academy' });
    const definition = await post(a.key, '/api/v1/definitions', {
      name: 'Analytical Engines',
      description: 'Programs for the analytical engine.',
    });
    definitionId = definition.id;
  });
  afterAll(async () => t.close());

  it('a VC-JWT given as the id costs what a credential costs, singly and in premium; an id costs 1', async () => {
    const id = await issueOne(a, 'price:single');
    const jwt = await signedJwt(t, a, id);
    const real = await call('/api/v1/verify', { id: jwt });
    expect(real.statusCode, real.body).toBe(200);
    expect(real.json()).toMatchObject({ authentic: true, status: 'valid' });
    expect(spent(real)).toBe(CREDENTIAL_VERIFY_COST);
    const fake = await call('/api/v1/verify', { id: forgedJwt(jwt, 1) });
    expect(fake.json()).toMatchObject({ authentic: false, status: 'unknown' });
    expect(spent(fake)).toBe(CREDENTIAL_VERIFY_COST);
    expect(spent(await call('/api/v1/verify', { id: `${BASE}${credentialPath(a, id)}` }))).toBe(1);
    expect(spent(await call('/api/v1/verify', { id }))).toBe(1);

    const before = await call('/api/v1/verify/premium', { id }, auth(a.key));
    const premium = await call('/api/v1/verify/premium', { id: jwt }, auth(a.key));
    expect(premium.json()).toMatchObject({ authentic: true });
    expect(Number(before.headers['x-ratelimit-remaining']) - Number(premium.headers['x-ratelimit-remaining'])).toBe(
      CREDENTIAL_VERIFY_COST,
    );
  });

  it('a bulk call pays for each VC-JWT, and one unit per 50 other ids', async () => {
    const id = await issueOne(a, 'price:bulk');
    const jwt = await signedJwt(t, a, id);
    const url = `${BASE}${credentialPath(a, id)}`;
    const fakes = Array.from({ length: MAX_BULK_JWTS - 1 }, (_, i) => forgedJwt(jwt, i));
    const ids = [jwt, ...fakes, ...Array.from({ length: 120 }, () => url)];
    const res = await call('/api/v1/verify/bulk', { ids });
    expect(res.statusCode, res.body).toBe(200);
    const results = res.json().results as { id: string; authentic: boolean }[];
    expect(results.map((r) => r.authentic)).toEqual([true, ...fakes.map(() => false), ...Array(120).fill(true)]);
    expect(spent(res)).toBe(MAX_BULK_JWTS * CREDENTIAL_VERIFY_COST + 3);
    expect(spent(await call('/api/v1/verify/bulk', { ids: Array(1000).fill(id) }))).toBe(20);
    expect(spent(await call('/api/v1/verify/bulk', { ids: [] }))).toBe(1);
  });

  it(`refuses more than ${MAX_BULK_JWTS} VC-JWTs in one bulk call with 400, before charging or checking any`, async () => {
    const id = await issueOne(a, 'price:cap');
    const jwt = await signedJwt(t, a, id);
    const lookups = vi.spyOn(t.app.services.vc.signingKeys, 'publicKeys');
    try {
      const ids = Array.from({ length: 1000 }, (_, i) => forgedJwt(jwt, i));
      for (const body of [{ ids: ids.slice(0, MAX_BULK_JWTS + 1) }, { ids }]) {
        const res = await call('/api/v1/verify/bulk', body);
        const error = expectErrorBody(res, 400, 'validation_failed');
        expect(error.message).toContain(`at most ${MAX_BULK_JWTS} VC-JWTs`);
        expect(spent(res)).toBe(1);
      }
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });

  it('looks a kid up once: forged VC-JWTs given together share one lookup, later calls the cached key', async () => {
    const b = await t.issuer({ slug: `price-b-${dialect}`, name: 'Babbage Bureau' });
    const definition = await post(b.key, '/api/v1/definitions', { name: 'Engines', description: 'Difference.' });
    const id = await issueOne(b, 'price:cache', definition.id);
    const jwt = await signedJwt(t, b, id);
    const lookups = vi.spyOn(t.app.services.vc.signingKeys, 'publicKeys');
    try {
      const ids = [jwt, ...Array.from({ length: MAX_BULK_JWTS - 1 }, (_, i) => forgedJwt(jwt, i))];
      const first = await call('/api/v1/verify/bulk', { ids });
      expect(first.json().results.filter((r: { authentic: boolean }) => r.authentic)).toHaveLength(1);
      expect(lookups).toHaveBeenCalledTimes(1);
      const again = await call('/api/v1/verify/bulk', { ids: ids.map((jws) => forgedJwt(jws, 99)) });
      expect(again.statusCode).toBe(200);
      expect(lookups).toHaveBeenCalledTimes(1);

      // A kid naming no key is looked up each time (a miss is never kept, so a key made later is found).
      const [header = '', rest = ''] = jwt.split(/\.(.*)/s);
      const decoded = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
      const unknownKid = `${Buffer.from(JSON.stringify({ ...decoded, kid: decoded.kid.replace(/#key-\d+$/, '#key-9') })).toString('base64url')}.${rest}`;
      for (let i = 0; i < 2; i++) {
        const res = await call('/api/v1/verify', { id: unknownKid });
        expect(res.json()).toMatchObject({ authentic: false, status: 'unknown' });
      }
      expect(lookups).toHaveBeenCalledTimes(3);
    } finally {
      lookups.mockRestore();
    }
  });

  it('a credential given as JSON carries one proof: two or 200 answer 400 before any check', async () => {
    const id = await issueOne(a, 'price:proofs');
    const served = await t.app.inject({ method: 'GET', url: credentialPath(a, id) });
    const credential = served.json();
    const proof = Array.isArray(credential.proof) ? credential.proof[0] : credential.proof;
    const present = (body: object) => call('/api/v1/verify', body, { 'content-type': 'application/vc' });
    const one = await present(credential);
    expect(one.json()).toMatchObject({ authentic: true, status: 'valid' });
    const lookups = vi.spyOn(t.app.services.vc.signingKeys, 'publicKeys');
    try {
      for (const count of [2, 200]) {
        const res = await present({ ...credential, proof: Array(count).fill(proof) });
        const error = expectErrorBody(res, 400, 'validation_failed');
        expect(error.message).toContain(`${count} were given`);
        expect(error.issues).toEqual([expect.objectContaining({ path: '/proof', code: 'maxItems' })]);
      }
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });
});
