import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bakedAssertion,
  identityHash,
  injectFetch,
  OB_CONTEXT,
  VALIDATOR_ACCEPT,
  validateHosted,
  xmlProblems,
} from './documents.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const BASE = 'https://badges.test';
const EMAIL = 'Grace.Hopper+Canary@Example.TEST';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';

describe.each(dialects)('Open Badges 2.0 documents on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definition: { id: string; slug: string };
  let credentialId: string;
  let assertionUrl: string;
  let badgeUrl: string;
  let endorsementId: string;
  let fetch: ReturnType<typeof injectFetch>;

  async function post(key: string, url: string, payload: object) {
    const res = await t.app.inject({ method: 'POST', url, headers: auth(key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: url.startsWith(BASE) ? url.slice(BASE.length) : url, headers });

  const validate = (url: string, recipientEmail?: string) =>
    validateHosted(url, { fetch, now: clock.now(), ...(recipientEmail ? { recipientEmail } : {}) });

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    fetch = injectFetch(t.app, BASE);
    a = await t.issuer({ slug: `docs-a-${dialect}`, name: 'Acme Academy' });
    b = await t.issuer({ slug: `docs-b-${dialect}` });
    definition = await post(a.key, '/api/v1/definitions', {
      name: 'Data Science 101',
      description: 'An introduction to data science.',
      criteriaNarrative: 'Pass the final project.',
      criteriaUrl: 'https://acme.example/criteria/ds101',
      tags: ['data', 'Python'],
      skills: ['python', 'SQL', 'data'],
      expiresAfterDays: 365,
    });
    badgeUrl = `${BASE}/v1/issuers/${a.slug}/badges/${definition.slug}`;
    await post(a.key, `/api/v1/definitions/${definition.id}/alignments`, {
      targetName: 'Data analysis',
      targetUrl: 'https://frameworks.example/esco/data-analysis',
      targetFramework: 'ESCO',
      targetCode: 'S1.2.3',
      targetDescription: 'Analyse data sets',
    });
    endorsementId = (
      await post(a.key, `/api/v1/definitions/${definition.id}/endorsements`, {
        endorserName: 'Board of Data',
        endorserUrl: 'https://board.example',
        claim: 'A rigorous course.',
      })
    ).id;
    const issued = await post(a.key, '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: EMAIL,
      recipientName: 'Grace Hopper',
      completionKey: 'ds101:grace',
      evidenceUrl: 'https://acme.example/evidence/ds101-final',
    });
    credentialId = issued.credentialId;
    assertionUrl = issued.assertionUrl;
  });
  afterAll(async () => t.close());

  it('serves the Issuer Profile at its id, valid for the validator', async () => {
    const url = `${BASE}/v1/issuers/${a.slug}`;
    const res = await get(url, { origin: 'https://elsewhere.example' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.json()).toEqual({
      '@context': OB_CONTEXT,
      type: 'Issuer',
      id: url,
      name: 'Acme Academy',
      url: `https://${a.slug}.example`,
      email: `contact@${a.slug}.example`,
      related: [`${url}/did.json`],
    });
    const report = await validate(url);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('carries the description and image of an issuer that has them', async () => {
    await t.app.services.issuers.createIssuer({
      name: 'Described',
      slug: `described-${dialect}`,
      email: 'hello@described.example',
      url: 'https://described.example',
      description: 'We teach things.',
      imageUrl: 'https://described.example/logo.png',
    });
    const res = await get(`/v1/issuers/described-${dialect}`);
    expect(res.json()).toMatchObject({
      description: 'We teach things.',
      image: 'https://described.example/logo.png',
    });
  });

  it('serves the BadgeClass with criteria, tags, alignment and endorsement, valid for the validator', async () => {
    const res = await get(badgeUrl);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.json()).toEqual({
      '@context': OB_CONTEXT,
      '@language': 'en',
      type: 'BadgeClass',
      id: badgeUrl,
      name: 'Data Science 101',
      description: 'An introduction to data science.',
      image: `${badgeUrl}/image.svg`,
      criteria: { id: 'https://acme.example/criteria/ds101', narrative: 'Pass the final project.' },
      issuer: `${BASE}/v1/issuers/${a.slug}`,
      version: '1',
      tags: ['data', 'Python', 'SQL'],
      alignment: [
        {
          targetName: 'Data analysis',
          targetUrl: 'https://frameworks.example/esco/data-analysis',
          targetDescription: 'Analyse data sets',
          targetFramework: 'ESCO',
          targetCode: 'S1.2.3',
        },
      ],
      endorsement: [`${BASE}/v1/issuers/${a.slug}/endorsements/${endorsementId}`],
    });
    const report = await validate(badgeUrl);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.fetched).toEqual(
      expect.arrayContaining([
        `${badgeUrl}/image.svg`,
        `${BASE}/v1/issuers/${a.slug}`,
        `${BASE}/v1/issuers/${a.slug}/endorsements/${endorsementId}`,
        `${BASE}/v1/issuers/${a.slug}/endorsements/${endorsementId}/issuer`,
      ]),
    );
  });

  it('serves the Assertion at its id with a reproducible recipient hash, valid for the validator', async () => {
    expect(assertionUrl).toBe(`${BASE}/v1/issuers/${a.slug}/assertions/${credentialId}`);
    const res = await get(assertionUrl);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const doc = res.json();
    expect(doc).toEqual({
      '@context': OB_CONTEXT,
      type: 'Assertion',
      id: assertionUrl,
      recipient: { type: 'email', hashed: true, salt: a.salt, identity: identityHash(EMAIL, a.salt) },
      // The version it was issued under, so a later edit of the definition changes nothing here.
      badge: `${badgeUrl}/versions/1`,
      verification: { type: 'hosted' },
      issuedOn: '2026-03-02T09:00:00.000Z',
      expires: '2027-03-02T09:00:00.000Z',
      evidence: [{ id: 'https://acme.example/evidence/ds101-final' }],
      image: `${assertionUrl}/image.svg`,
    });
    expect(res.body.toLowerCase()).not.toContain('grace');
    const report = await validate(assertionUrl, EMAIL);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.fetched).toEqual(
      expect.arrayContaining([
        assertionUrl,
        `${assertionUrl}/image.svg`,
        `${badgeUrl}/versions/1`,
        `${BASE}/v1/issuers/${a.slug}`,
      ]),
    );
    const wrongPerson = await validate(assertionUrl, 'someone.else@example.test');
    expect(wrongPerson.errors).toEqual([expect.stringContaining('did not match')]);
  });

  it('negotiates: JSON-LD by default and for validators, JSON for JSON-only clients, 303 for browsers', async () => {
    for (const accept of [undefined, VALIDATOR_ACCEPT, '*/*', 'application/*', 'text/html, application/ld+json']) {
      const res = await get(assertionUrl, accept ? { accept } : {});
      expect(res.statusCode, accept).toBe(200);
      expect(res.headers['content-type'], accept).toMatch(/^application\/ld\+json/);
      expect(String(res.headers.vary)).toMatch(/Accept/);
    }
    for (const accept of ['application/json', 'application/json, application/ld+json;q=0']) {
      const res = await get(assertionUrl, { accept });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json().id).toBe(assertionUrl);
    }
    for (const accept of [BROWSER_ACCEPT, 'text/html', 'application/ld+json;q=0.5, text/html']) {
      const res = await get(assertionUrl, { accept });
      expect(res.statusCode, accept).toBe(303);
      expect(res.headers.location).toBe(`${BASE}/verify/${a.slug}/${credentialId}`);
    }
    const profile = await get(`/v1/issuers/${a.slug}`, { accept: BROWSER_ACCEPT });
    expect(profile.statusCode).toBe(200);
    expect(profile.headers['content-type']).toMatch(/^application\/ld\+json/);
    const badge = await get(badgeUrl, { accept: 'application/json' });
    expect(badge.headers['content-type']).toMatch(/^application\/json/);
  });

  it('bakes the assertion into a well-formed SVG (OB 2.0 baking)', async () => {
    const res = await get(`${assertionUrl}/image.svg`, { accept: VALIDATOR_ACCEPT });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(xmlProblems(res.body)).toEqual([]);
    const baked = bakedAssertion(res.body);
    expect(baked).not.toBeNull();
    expect(baked?.namespace).toBe('http://openbadges.org');
    expect(baked?.verify).toBe(assertionUrl);
    expect(baked?.json).toEqual((await get(assertionUrl)).json());
    expect(res.body).toContain('fill="#123456"');
    expect(res.body).toContain('Data Science 101');
  });

  it('serves a clean generated badge image with the brand colour', async () => {
    const res = await get(`${badgeUrl}/image.svg`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(xmlProblems(res.body)).toEqual([]);
    expect(res.body).not.toContain('openbadges');
    expect(res.body).toContain('fill="#123456"');
    expect(res.body).toContain('>Acme Academy<');
  });

  it('escapes every text in the SVG and keeps it well-formed', async () => {
    const nasty = `<script>alert(1)</script>&"' ]]>`;
    const hostileColor = '"/><script>alert(1)</script>';
    const evilIssuer = {
      name: `Evil & <Co> "quoted"`,
      slug: `evil-${dialect}`,
      email: 'x@evil.example',
      url: 'https://evil.example',
    };
    await expect(
      t.app.services.issuers.createIssuer({ ...evilIssuer, brandPrimaryColor: hostileColor }),
    ).rejects.toThrow('brand colour');
    await t.app.services.issuers.createIssuer(evilIssuer);
    // A value stored before colours were checked still never reaches the SVG.
    await t.database.db
      .updateTable('issuers')
      .set({ brand_primary_color: hostileColor })
      .where('slug', '=', evilIssuer.slug)
      .execute();
    const evil = (await t.app.services.issuers.listIssuers()).find((i) => i.slug === `evil-${dialect}`);
    const key = (await t.app.services.issuers.createKey(`evil-${dialect}`)).key;
    const def = await post(key, '/api/v1/definitions', { name: nasty, description: 'x', slug: 'nasty' });
    const issued = await post(key, '/api/v1/credentials', {
      definitionId: def.id,
      recipientEmail: 'victim@example.test',
      completionKey: 'nasty-1',
    });
    for (const url of [`/v1/issuers/evil-${dialect}/badges/nasty/image.svg`, `${issued.assertionUrl}/image.svg`]) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(xmlProblems(res.body)).toEqual([]);
      expect(res.body).not.toContain('<script');
      expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&apos;');
      expect(res.body).toContain('Evil &amp; &lt;Co&gt; &quot;quoted&quot;');
      expect(res.body).toContain('fill="#1f5fbf"');
    }
    expect(evil?.brand_primary_color).toContain('script');
    const badge = await get(`/v1/issuers/evil-${dialect}/badges/nasty`);
    expect(badge.json().name).toBe(nasty);
  });

  it('falls back to the description as criteria narrative and uses a definition image as is', async () => {
    const def = await post(a.key, '/api/v1/definitions', {
      name: 'Pictured',
      description: 'Has its own picture.',
      imageUrl: 'https://cdn.acme.example/pictured.png',
    });
    const issued = await post(a.key, '/api/v1/credentials', {
      definitionId: def.id,
      recipientEmail: EMAIL,
      completionKey: 'pictured-1',
    });
    const badge = (await get(issued.badgeClassUrl)).json();
    expect(badge.criteria).toEqual({ narrative: 'Has its own picture.' });
    expect(badge.image).toBe('https://cdn.acme.example/pictured.png');
    expect(badge).not.toHaveProperty('tags');
    expect(badge).not.toHaveProperty('alignment');
    expect(badge).not.toHaveProperty('endorsement');
    const assertion = (await get(issued.assertionUrl)).json();
    // The definition's image is the BadgeClass's and holds no assertion: the Assertion does not repeat it.
    expect(assertion).not.toHaveProperty('image');
    expect(assertion).not.toHaveProperty('expires');
    expect(assertion).not.toHaveProperty('evidence');
    const report = await validate(issued.assertionUrl, EMAIL);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('lists endorsements of the credential in its Assertion', async () => {
    const issued = await post(a.key, '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: 'endorsed@example.test',
      completionKey: 'endorsed-1',
    });
    const endorsement = await post(a.key, `/api/v1/credentials/${issued.credentialId}/endorsements`, {
      endorserName: 'Mentor',
      claim: 'Outstanding work.',
    });
    const doc = (await get(issued.assertionUrl)).json();
    expect(doc.endorsement).toEqual([`${BASE}/v1/issuers/${a.slug}/endorsements/${endorsement.id}`]);
    const report = await validate(issued.assertionUrl);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('answers a revoked assertion and its image with 410 and the revocation stub', async () => {
    const issued = await post(a.key, '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: 'revoked@example.test',
      completionKey: 'revoked-1',
    });
    await post(a.key, `/api/v1/credentials/${issued.credentialId}/revoke`, { reason: 'Issued in error' });
    const stub = { '@context': OB_CONTEXT, id: issued.assertionUrl, type: 'Assertion', revoked: true };
    for (const url of [issued.assertionUrl, `${issued.assertionUrl}/image.svg`]) {
      const res = await get(url, { accept: VALIDATOR_ACCEPT });
      expect(res.statusCode).toBe(410);
      expect(res.headers['content-type']).toMatch(/^application\/ld\+json/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.json()).toEqual({ ...stub, revocationReason: 'Issued in error' });
    }
    const browser = await get(issued.assertionUrl, { accept: BROWSER_ACCEPT });
    expect(browser.statusCode).toBe(303);

    const silent = await post(a.key, '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: 'silent@example.test',
      completionKey: 'revoked-2',
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${silent.credentialId}/revoke`,
      headers: auth(a.key),
    });
    const res = await get(silent.assertionUrl);
    expect(res.statusCode).toBe(410);
    expect(res.json()).toEqual({ ...stub, id: silent.assertionUrl, revocationReason: 'Revoked by the issuer' });
  });

  it('relates a reissued assertion to the original, which answers 410', async () => {
    const issued = await post(a.key, '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: EMAIL,
      completionKey: 'reissue-me',
    });
    const fresh = await post(a.key, `/api/v1/credentials/${issued.credentialId}/reissue`, {});
    const doc = (await get(fresh.assertionUrl)).json();
    expect(doc.related).toEqual([{ id: issued.assertionUrl }]);
    const report = await validate(fresh.assertionUrl, EMAIL);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    const original = await get(issued.assertionUrl);
    expect(original.statusCode).toBe(410);
    expect(original.json().revocationReason).toBe('Replaced by a newer credential');
  });

  it('still serves an expired assertion with expires, which the validator judges', async () => {
    const def = await post(a.key, '/api/v1/definitions', {
      name: 'Short lived',
      description: 'x',
      expiresAfterDays: 1,
    });
    const issued = await post(a.key, '/api/v1/credentials', {
      definitionId: def.id,
      recipientEmail: EMAIL,
      completionKey: 'short-1',
    });
    clock.advance(2 * 86_400_000);
    try {
      const res = await get(issued.assertionUrl);
      expect(res.statusCode).toBe(200);
      expect(res.json().expires).toBe('2026-03-03T09:00:00.000Z');
      const report = await validate(issued.assertionUrl, EMAIL);
      expect(report.errors).toEqual([expect.stringContaining('expired on 2026-03-03T09:00:00.000Z')]);
    } finally {
      clock.set('2026-03-02T09:00:00.000Z');
    }
  });

  it('answers unknown and foreign documents with the same 404', async () => {
    const unknown = await get(`/v1/issuers/${b.slug}/assertions/00000000-0000-4000-8000-000000000000`);
    const foreign = await get(`/v1/issuers/${b.slug}/assertions/${credentialId}`);
    expectErrorBody(unknown, 404, 'not_found');
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toBe(unknown.body);
    const foreignImage = await get(`/v1/issuers/${b.slug}/assertions/${credentialId}/image.svg`);
    expect(foreignImage.body).toBe(unknown.body);
    const missingIssuer = await get(`/v1/issuers/nobody-${dialect}/assertions/${credentialId}`);
    expect(missingIssuer.body).toBe(unknown.body);

    expectErrorBody(await get(`/v1/issuers/nobody-${dialect}`), 404, 'not_found');
    const noBadge = await get(`/v1/issuers/${b.slug}/badges/${definition.slug}`);
    expectErrorBody(noBadge, 404, 'not_found');
    expect((await get(`/v1/issuers/${b.slug}/badges/${definition.slug}/image.svg`)).body).toBe(noBadge.body);
    const noEndorsement = await get(`/v1/issuers/${b.slug}/endorsements/${endorsementId}`);
    expectErrorBody(noEndorsement, 404, 'not_found');
    expectErrorBody(await get(`/v1/issuers/${b.slug}/endorsements/${endorsementId}/issuer`), 404, 'not_found');
  });
});
