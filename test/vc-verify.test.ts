import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { issue } from '@digitalbazaar/vc';
import { decodeSync as decodeItxt, encodeSync as encodeItxt } from 'png-chunk-itxt';
import encodeChunks from 'png-chunks-encode';
import extractChunks from 'png-chunks-extract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xmlProblems } from './documents.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { verifier } from './vc.support.js';

const BASE = 'https://badges.test';
const ITXT = { compressionFlag: false, compressionMethod: 0, languageTag: '', translatedKeyword: '' };

/** POST /api/v1/verify given an Open Badges 3.0 credential as JSON: the proof decides, the record answers. */
describe.each(dialects)('verification of an Open Badges 3.0 credential given as JSON on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definitionId: string;
  let address = 0;

  async function post(key: string, url: string, payload?: object) {
    const res = await t.app.inject({ method: 'POST', url, headers: auth(key), ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }
  const credentialUrl = (slug: string, id: string) => `${BASE}/v1/issuers/${slug}/credentials/${id}`;
  async function issueOne(issuer: TestIssuer, completionKey: string, definition = definitionId) {
    const issued = await post(issuer.key, '/api/v1/credentials', {
      definitionId: definition,
      recipientEmail: 'ada@example.test',
      recipientName: 'Ada Lovelace',
      completionKey,
    });
    return issued.credentialId as string;
  }
  async function served(issuer: TestIssuer, id: string) {
    const res = await t.app.inject({ method: 'GET', url: credentialUrl(issuer.slug, id).slice(BASE.length) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }
  /** Each call from its own address, so rate-limit headers count this call alone. */
  const verify = (payload: unknown, url = '/api/v1/verify', headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      remoteAddress: `10.9.${Math.floor(++address / 250)}.${address % 250}`,
    });
  /** The credential itself as the body, under VC Data Model 2.0's media type. */
  const present = (credential: unknown, url = '/api/v1/verify', headers: Record<string, string> = {}) =>
    verify(credential, url, { 'content-type': 'application/vc', ...headers });
  async function answer(credential: unknown) {
    const res = await present(credential);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `vcj-a-${dialect}`, name: 'Analytical Academy' });
    b = await t.issuer({ slug: `vcj-b-${dialect}`, name: 'Babbage Bureau' });
    const definition = await post(a.key, '/api/v1/definitions', {
      name: 'Analytical Engines',
      description: 'Programs for the analytical engine.',
      criteriaNarrative: 'Write a program computing Bernoulli numbers.',
      expiresAfterDays: 365,
    });
    definitionId = definition.id;
  });
  afterAll(async () => t.close());

  it('a served credential round-trips to authentic and valid, and costs ten requests of the open limit', async () => {
    const id = await issueOne(a, 'json:valid');
    const credential = await served(a, id);
    const res = await present(credential);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: credentialUrl(a.slug, id),
      authentic: true,
      status: 'valid',
      valid: true,
      issuer: { slug: a.slug, name: 'Analytical Academy' },
      credential: { name: 'Analytical Engines' },
      // The record's times; the credential carries the same instants in whole seconds.
      issuedOn: new Date(Date.parse(credential.validFrom)).toISOString(),
      expiresOn: new Date(Date.parse(credential.validUntil)).toISOString(),
    });
    expect(Number(res.headers['x-ratelimit-remaining'])).toBe(Number(t.config.openRateLimitPerMinute) - 10);
    const byId = await verify({ id: credentialUrl(a.slug, id) });
    expect(Number(byId.headers['x-ratelimit-remaining'])).toBe(Number(t.config.openRateLimitPerMinute) - 1);
  });

  it('any changed field, a flipped proof byte or another credential’s id is not authentic', async () => {
    const id = await issueOne(a, 'json:tamper');
    const other = await issueOne(a, 'json:tamper-other');
    const credential = await served(a, id);
    const [proof] = credential.proof;
    const value: string = proof.proofValue;
    const subject = credential.credentialSubject;
    const tampered = [
      { ...credential, name: 'Analytical Enginez' },
      { ...credential, validUntil: '2099-03-02T09:00:00.000Z' },
      { ...credential, id: credentialUrl(a.slug, other) },
      { ...credential, issuer: { ...credential.issuer, name: 'Someone Else' } },
      { ...credential, credentialSubject: { ...subject, achievement: { ...subject.achievement, name: 'Other' } } },
      {
        ...credential,
        credentialSubject: {
          ...subject,
          identifier: [{ ...subject.identifier[0], identityHash: `sha256$${'0'.repeat(64)}` }],
        },
      },
      { ...credential, proof: [{ ...proof, proofValue: `${value.slice(0, -2)}${value.endsWith('a') ? 'bb' : 'aa'}` }] },
      { ...credential, proof: [] },
      { ...credential, proof: undefined },
      { ...credential, unknownTerm: 'not in any context' },
      { ...credential, '@context': [...credential['@context'], 'https://contexts.evil.example/v1'] },
    ];
    for (const forged of tampered) {
      expect(await answer(forged), JSON.stringify(forged).slice(0, 80)).toEqual({
        id: forged.id,
        authentic: false,
        status: 'unknown',
        valid: false,
      });
    }
  });

  it('another issuer’s credential id, a foreign DID or an unknown issuer answers unknown, never a lookup', async () => {
    const id = await issueOne(a, 'json:foreign');
    const credential = await served(a, id);
    const foreign = [
      { ...credential, issuer: { ...credential.issuer, id: 'did:web:issuer.example' } },
      { ...credential, issuer: { ...credential.issuer, id: 'did:web:badges.test:v1:issuers:nobody-here' } },
      { ...credential, issuer: { ...credential.issuer, id: `did:web:badges.test:v1:issuers:${b.slug}` } },
      { ...credential, issuer: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' },
      { ...credential, id: credentialUrl(b.slug, id) },
      { ...credential, id: `https://issuer.example/v1/issuers/${a.slug}/credentials/${id}` },
    ];
    for (const forged of foreign) {
      expect(await answer(forged)).toMatchObject({ authentic: false, status: 'unknown', valid: false });
    }
  });

  it('a proof that holds under issuer A’s key never vouches for issuer B’s credential', async () => {
    const definition = await post(b.key, '/api/v1/definitions', {
      name: 'Difference Engines',
      description: 'Tables by machine.',
      criteriaNarrative: 'Print a table.',
    });
    const theirs = await issueOne(b, 'json:theirs', definition.id);
    const ours = await served(a, await issueOne(a, 'json:ours'));
    const { proof: _proof, ...unsigned } = ours;
    const did = unsigned.issuer.id as string;
    const key = await t.app.services.vc.signingKeys.current(a.id, (version) => `${did}#key-${version}`, did);
    const forged = await issue({
      credential: { ...unsigned, id: credentialUrl(b.slug, theirs) },
      suite: new DataIntegrityProof({ signer: key.multikey.signer(), cryptosuite }),
      documentLoader: verifier(t.app, BASE).documentLoader,
    });
    expect(await verifier(t.app, BASE).verify(forged, clock.now())).toMatchObject({ verified: true });
    expect(await answer(forged)).toEqual({
      id: credentialUrl(b.slug, theirs),
      authentic: false,
      status: 'unknown',
      valid: false,
    });
  });

  it('revoked and expired credentials are authentic and answer their status', async () => {
    const revokedId = await issueOne(a, 'json:revoked');
    const revoked = await served(a, revokedId);
    await post(a.key, `/api/v1/credentials/${revokedId}/revoke`, { reason: 'Issued in error' });
    expect(await answer(revoked)).toMatchObject({ authentic: true, status: 'revoked', valid: false });

    const expiringId = await issueOne(a, 'json:expired');
    const expiring = await served(a, expiringId);
    clock.advance(366 * 24 * 3600 * 1000);
    try {
      expect(await answer(expiring)).toMatchObject({
        authentic: true,
        status: 'expired',
        valid: false,
        expiresOn: new Date(Date.parse(expiring.validUntil)).toISOString(),
      });
    } finally {
      clock.set('2026-03-02T09:00:00.000Z');
    }
  });

  it('premium verification takes the credential too, metered once', async () => {
    const id = await issueOne(a, 'json:premium');
    const credential = await served(a, id);
    const metered = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: auth(b.key) })).json().metering
        .premiumVerification as number;
    const before = await metered();
    const res = await present(credential, '/api/v1/verify/premium', auth(b.key));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: credentialUrl(a.slug, id), authentic: true, status: 'valid' });
    expect(await metered()).toBe(before + 1);
  });

  it('refuses malformed, oversized and ambiguous bodies with 400 before any signature check', async () => {
    const id = await issueOne(a, 'json:bounds');
    const credential = await served(a, id);
    let deep: object = { leaf: true };
    for (let i = 0; i < 20; i++) deep = { nested: deep };
    const wide = { ...credential, evidence: Array.from({ length: 600 }, (_, i) => ({ id: `urn:e:${i}` })) };
    const huge = { ...credential, description: 'x'.repeat(70 * 1024) };
    for (const body of [
      '{"id": ',
      '',
      '"not an object"',
      [credential],
      null,
      42,
      { ...credential, name: 'nul \u0000 here' },
      Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])),
      deep,
      wide,
      huge,
    ]) {
      const res = await present(typeof body === 'string' ? body : JSON.stringify(body));
      expectErrorBody(res, 400, 'validation_failed');
    }
    for (const body of [{ credential }, {}, { id: 42 }]) {
      const res = await verify(body);
      expectErrorBody(res, 400, 'validation_failed');
    }
    const bulk = await verify({ ids: [credential] }, '/api/v1/verify/bulk');
    expectErrorBody(bulk, 400, 'validation_failed');
  });
});

/** OB 3.0 SVG baking: the credential comes back out of the image and still verifies independently. */
describe.each(dialects)('the badge image with the Open Badges 3.0 credential baked in on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `vcb-a-${dialect}`, name: 'Analytical <Academy> & "Co"' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: {
        name: 'Engines ]]> & <b>',
        description: 'Programs for the analytical engine.',
        criteriaNarrative: 'Write a program; compare a > b.',
        imageUrl: 'https://images.example/badge.png',
      },
    });
    definitionId = definition.json().id;
  });
  afterAll(async () => t.close());

  it('bakes the signed JSON into <openbadges:credential> of a well-formed SVG download, which verifies', async () => {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: 'ada@example.test', completionKey: 'baked:1' },
    });
    const id = issued.json().credentialId;
    const path = `/v1/issuers/${a.slug}/credentials/${id}`;
    const res = await t.app.inject({
      method: 'GET',
      url: `${path}/baked.svg`,
      headers: { origin: 'https://x.example' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="badge.svg"');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    const svg = res.body;
    expect(xmlProblems(svg)).toEqual([]);
    const baked = /^<svg\b([^>]*)><openbadges:credential><!\[CDATA\[([\s\S]*?)\]\]><\/openbadges:credential>/.exec(svg);
    expect(baked, svg.slice(0, 200)).not.toBeNull();
    expect(baked?.[1]).toContain('xmlns:openbadges="https://purl.imsglobal.org/ob/v3p0"');
    expect(svg.match(/<openbadges:credential>/g)).toHaveLength(1);
    const credential = JSON.parse(baked?.[2] ?? 'null');
    const served = await t.app.inject({ method: 'GET', url: path });
    expect(credential).toEqual(served.json());
    const v = verifier(t.app, BASE);
    expect(await v.verify(credential, clock.now())).toMatchObject({ verified: true, revoked: false });
    // The external image is never fetched: the generated badge carries the credential.
    expect(svg).toContain('<title>Engines ]]&gt; &amp; &lt;b&gt;</title>');
    const page = await t.app.inject({
      method: 'GET',
      url: `/verify/${a.slug}/${id}`,
      headers: { accept: 'text/html' },
    });
    expect(page.body).toContain(`<a href="${BASE}${path}/baked.svg" download="badge.svg">`);
    expect(
      (await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/credentials/nope/baked.svg` })).statusCode,
    ).toBe(404);
  });

  it('bakes the credential into one iTXt chunk of a PNG this service hosts, and refuses any other image', async () => {
    // A valid 1×1 PNG, with an OB 2.0 baking already in it that must not survive.
    const plain = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const chunks = extractChunks(plain);
    chunks.splice(1, 0, { name: 'iTXt', data: encodeItxt({ ...ITXT, keyword: 'openbadges', text: 'old' }) });
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/images',
      headers: { ...auth(a.key), 'content-type': 'image/png' },
      payload: Buffer.from(encodeChunks(chunks)),
    });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Hosted PNG', description: 'A PNG badge.', imageUrl: uploaded.json().url },
    });
    const issueWith = async (definition: string, key: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/credentials',
          headers: auth(a.key),
          payload: { definitionId: definition, recipientEmail: 'ada@example.test', completionKey: key },
        })
      ).json().credentialId as string;
    const id = await issueWith(definition.json().id, 'baked:png');
    const path = `/v1/issuers/${a.slug}/credentials/${id}`;

    const res = await t.app.inject({ method: 'GET', url: `${path}/baked.png` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-disposition']).toBe('attachment; filename="badge.png"');
    const baked = extractChunks(res.rawPayload).filter((chunk) => chunk.name === 'iTXt');
    expect(baked).toHaveLength(1);
    const text = decodeItxt((baked[0] as { data: Uint8Array }).data);
    expect(text).toMatchObject({ keyword: 'openbadgecredential', compressionFlag: false });
    const credential = JSON.parse(text.text);
    expect(credential).toEqual((await t.app.inject({ method: 'GET', url: path })).json());
    expect(await verifier(t.app, BASE).verify(credential, clock.now())).toMatchObject({ verified: true });
    const page = await t.app.inject({
      method: 'GET',
      url: `/verify/${a.slug}/${id}`,
      headers: { accept: 'text/html' },
    });
    expect(page.body).toContain(`<a href="${BASE}${path}/baked.png" download="badge.png">`);

    // The external image of the first definition is never fetched: no PNG, and no PNG link.
    const external = await issueWith(definitionId, 'baked:external');
    const refused = await t.app.inject({
      method: 'GET',
      url: `/v1/issuers/${a.slug}/credentials/${external}/baked.png`,
    });
    expectErrorBody(refused, 404, 'not_found');
    expect(refused.json().message).toContain('baked.svg');
    const externalPage = await t.app.inject({
      method: 'GET',
      url: `/verify/${a.slug}/${external}`,
      headers: { accept: 'text/html' },
    });
    expect(externalPage.body).not.toContain('baked.png');
  });
});

/** Item 2 of issue 23: the Open Badges 2.0 Issuer Profile and the OB 3.0 Profile name each other. */
describe.each(dialects)('the issuer’s two profiles on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer({ slug: `vcp-a-${dialect}` });
  });
  afterAll(async () => t.close());

  it('the OB 2.0 profile relates to the did.json of its DID, and the OB 3.0 Profile names the OB 2.0 profile', async () => {
    const profileUrl = `${BASE}/v1/issuers/${a.slug}`;
    const did = `did:web:badges.test:v1:issuers:${a.slug}`;
    const ob2 = (await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}` })).json();
    expect(ob2).toMatchObject({ id: profileUrl, type: 'Issuer', related: [`${profileUrl}/did.json`] });
    const document = await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/did.json` });
    expect(document.json()).toMatchObject({ id: did, alsoKnownAs: [profileUrl] });

    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Profiles', description: 'Both profiles.', criteriaNarrative: 'Exist.' },
    });
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId: definition.json().id, recipientEmail: 'ada@example.test', completionKey: 'p:1' },
    });
    const id = issued.json().credentialId;
    const credential = (await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/credentials/${id}` })).json();
    expect(credential.issuer).toMatchObject({
      id: did,
      otherIdentifier: [{ type: 'IdentifierEntry', identifier: profileUrl, identifierType: 'identifier' }],
    });
    expect(credential.credentialSubject.achievement.creator.otherIdentifier).toEqual(credential.issuer.otherIdentifier);
    const v = verifier(t.app, BASE);
    expect(await v.verify(credential)).toMatchObject({ verified: true });
  });
});
