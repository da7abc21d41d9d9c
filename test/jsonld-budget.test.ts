import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JSONLD_BUDGET, jsonLdCost, measureJsonLd, requireJsonLdBudget } from '../src/core/jsonld-budget.js';
import { CREDENTIAL_VERIFY_COST } from '../src/modules/verification/verification.routes.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';

const BASE = 'https://badges.test';
const VOCAB = { '@vocab': 'https://attacker.example/vocab#' };

const issueOf = (value: unknown) => {
  const measured = measureJsonLd(value);
  return 'issue' in measured ? measured.issue : null;
};
const workOf = (value: unknown) => {
  const measured = measureJsonLd(value);
  if ('issue' in measured) throw new Error(`over the budget: ${measured.issue.message}`);
  return measured.work;
};

/** Issue 48.1: every value a JSON-LD step would process is counted before it starts. */
describe('the JSON-LD budget (core/jsonld-budget.ts)', () => {
  it('counts objects, array elements, scalars, string bytes (keys included) and depth', () => {
    expect(workOf({ a: [1, 'é', null, true], b: { c: 'xy' } })).toEqual({
      objects: 3,
      arrayElements: 4,
      scalars: 5,
      stringBytes: 1 + 2 + 1 + 1 + 2, // a, é (2 bytes), b, c, xy
      depth: 2, // levels of objects and arrays
    });
    expect(workOf('plain')).toEqual({ objects: 0, arrayElements: 0, scalars: 1, stringBytes: 5, depth: 0 });
  });

  it('refuses each count one past its cap, and takes each cap itself', () => {
    const cases: [keyof typeof JSONLD_BUDGET, (n: number) => unknown][] = [
      ['arrayElements', (n) => ({ v: new Array(n).fill(0) })],
      ['scalars', (n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))],
      ['objects', (n) => Object.fromEntries(Array.from({ length: n - 1 }, (_, i) => [`k${i}`, {}]))],
      ['stringBytes', (n) => ({ s: 'x'.repeat(n - 1) })],
    ];
    for (const [count, make] of cases) {
      const cap = JSONLD_BUDGET[count];
      // Each maker fills `count` to the cap at n = cap (the other counts stay under theirs).
      expect(issueOf(make(cap)), count).toBeNull();
      expect(issueOf(make(cap + 1)), count).toMatchObject({ path: '', code: count });
    }
    let deep: unknown = 1;
    for (let i = 0; i < JSONLD_BUDGET.depth; i++) deep = { d: deep };
    expect(issueOf(deep)).toBeNull();
    expect(issueOf({ d: deep })).toMatchObject({ code: 'depth' });
  });

  it('refuses a context given inline, anywhere in the document; contexts named by URL pass', () => {
    expect(issueOf({ '@context': 'https://www.w3.org/ns/credentials/v2' })).toBeNull();
    expect(issueOf({ '@context': ['https://www.w3.org/ns/credentials/v2', 'urn:other'] })).toBeNull();
    for (const document of [
      { '@context': ['https://www.w3.org/ns/credentials/v2', VOCAB] },
      { '@context': VOCAB },
      { a: { b: [{ '@context': { t: { '@id': 'urn:t', '@context': { u: 'urn:u' } } } }] } },
      { '@context': [['https://www.w3.org/ns/credentials/v2']] },
      { '@context': null },
    ]) {
      expect(issueOf(document), JSON.stringify(document)).toMatchObject({ code: 'inlineContext' });
    }
  });

  it('walks without recursion and stops at the first cap: 200,000 levels or a million values answer at once', () => {
    let deep: unknown = null;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(issueOf(deep)).toMatchObject({ code: 'depth' });
    expect(issueOf({ values: new Array(1_000_000).fill(0) })).toMatchObject({ code: 'arrayElements' });
  });

  it('refuses with a 400 naming the cap, and prices by the values counted', () => {
    expect(() => requireJsonLdBudget({ v: new Array(11_000).fill(1) }, '/proof')).toThrow(
      expect.objectContaining({ code: 'validation_failed', statusCode: 400 }),
    );
    const small = workOf({ a: 1 });
    expect(jsonLdCost(small, CREDENTIAL_VERIFY_COST)).toBe(CREDENTIAL_VERIFY_COST);
    const wide = workOf({ v: new Array(500).fill(1) });
    const objects = workOf({ v: Array.from({ length: 250 }, () => ({})) });
    expect(jsonLdCost(wide, CREDENTIAL_VERIFY_COST)).toBeGreaterThan(CREDENTIAL_VERIFY_COST + 25);
    expect(jsonLdCost(objects, CREDENTIAL_VERIFY_COST)).toBeGreaterThan(jsonLdCost(wide, CREDENTIAL_VERIFY_COST));
  });
});

describe.each(dialects)('a credential given as JSON is priced before any JSON-LD step on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let credential: Record<string, unknown>;
  let address = 0;

  const present = (body: unknown, url = '/api/v1/verify', headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/vc', ...headers },
      payload: JSON.stringify(body),
      remoteAddress: `10.48.${Math.floor(++address / 250)}.${address % 250}`,
    });
  const spent = (res: { headers: Record<string, unknown> }) =>
    Number(t.config.openRateLimitPerMinute) - Number(res.headers['x-ratelimit-remaining']);
  const withVocab = (extra: Record<string, unknown>) => ({
    ...credential,
    '@context': [...(credential['@context'] as unknown[]), VOCAB],
    ...extra,
  });

  beforeAll(async () => {
    // The design's open limit (300 a minute), so a few heavy documents spend one address's minute.
    t = await createTestApp(dialect, { env: { OPEN_RATE_LIMIT_PER_MINUTE: '300' } });
    a = await t.issuer({ slug: `budget-a-${dialect}`, name: 'Analytical Academy' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Analytical Engines', description: 'Programs for the analytical engine.' },
    });
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId: definition.json().id, recipientEmail: 'ada@example.test', completionKey: 'budget' },
    });
    const id = issued.json().credentialId as string;
    const served = await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/credentials/${id}` });
    expect(served.statusCode, served.body).toBe(200);
    credential = served.json();
    expect(credential.id).toBe(`${BASE}/v1/issuers/${a.slug}/credentials/${id}`);
  });
  afterAll(async () => t.close());

  it('the attack of issue 48.1 (the hosted credential, @vocab, 11,000 numbers) answers 400 before any lookup', async () => {
    const lookups = vi.spyOn(t.app.services.vc.signingKeys, 'publicKeys');
    try {
      const values = Array.from({ length: 11_000 }, (_, i) => i);
      for (const url of ['/api/v1/verify', '/api/v1/verify/premium']) {
        const headers = url.endsWith('premium') ? auth(a.key) : {};
        const attack = await present(withVocab({ values }), url, headers);
        const inline = expectErrorBody(attack, 400, 'validation_failed');
        expect(inline.issues).toEqual([expect.objectContaining({ path: '', code: 'inlineContext' })]);
        // Without the inline @vocab (the VC 2.0 context has its own), the count refuses it.
        const bare = await present({ ...credential, values }, url, headers);
        const error = expectErrorBody(bare, 400, 'validation_failed');
        expect(error.issues).toEqual([expect.objectContaining({ path: '', code: 'arrayElements' })]);
        expect(error.message).toContain(`at most ${JSONLD_BUDGET.arrayElements} array elements`);
      }
      for (const extra of [
        { proof: [{ ...(credential.proof as object[])[0], junk: new Array(20_000).fill(0) }] },
        { type: [...(credential.type as string[]), ...Array.from({ length: 40_000 }, (_, i) => `urn:t:${i}`)] },
        { evidence: Array.from({ length: 600 }, (_, i) => ({ id: `urn:e:${i}` })) },
        { wide: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, i])) },
      ]) {
        const res = await present({ ...credential, ...extra });
        expectErrorBody(res, 400, 'validation_failed');
      }
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });

  it('the served credential costs what a signature check costs; a document with more values costs more', async () => {
    const served = await present(credential);
    expect(served.json()).toMatchObject({ authentic: true, status: 'valid' });
    expect(spent(served)).toBe(CREDENTIAL_VERIFY_COST);

    const numbers = { ...credential, values: Array.from({ length: 450 }, (_, i) => i) };
    const res = await present(numbers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ authentic: false, status: 'unknown' });
    expect(spent(res)).toBe(jsonLdCost(workOf(numbers), CREDENTIAL_VERIFY_COST));
    expect(spent(res)).toBeGreaterThan(CREDENTIAL_VERIFY_COST + 25);
  });

  it('one address cannot buy more JSON-LD work in a minute than the open limit pays for', async () => {
    const heavy = { ...credential, things: Array.from({ length: 200 }, (_, i) => ({ n: i })) };
    const price = jsonLdCost(workOf(heavy), CREDENTIAL_VERIFY_COST);
    const limit = Number(t.config.openRateLimitPerMinute);
    const paid = Math.floor(limit / price);
    const remoteAddress = '10.48.250.1';
    const statuses: number[] = [];
    for (let i = 0; i <= paid + 1; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: { 'content-type': 'application/vc' },
        payload: JSON.stringify(heavy),
        remoteAddress,
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(paid);
    expect(statuses.at(-1)).toBe(429);
  });
});
