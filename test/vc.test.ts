import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { from as multikeyFrom, toJwk } from '@digitalbazaar/ed25519-multikey';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { issue } from '@digitalbazaar/vc';
import { decodeList } from '@digitalbazaar/vc-bitstring-status-list';
import { Ajv2019 } from 'ajv/dist/2019.js';
import formats from 'ajv-formats';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logOptions } from '../src/app.js';
import { runCli } from '../src/cli.js';
import { keyEncryptionKey, open, seal } from '../src/core/kek.js';
import { documentLoader } from '../src/modules/vc/contexts.js';
import { JWT_ID_CONTEXT, jwtClaims, wholeSeconds } from '../src/modules/vc/credential.builder.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { storedText } from './ingest.support.js';
import { verifier } from './vc.support.js';

const BASE = 'https://badges.test';
const EMAIL = 'Ada.Lovelace+Canary@Example.TEST';
const NAME = 'Ada Canary Lovelace';
const fixture = (name: string) => readFileSync(new URL(`./fixtures/vc/${name}`, import.meta.url), 'utf8');
/** PostgreSQL requires the key-encryption secret; SQLite tests use the generated file beside the database. */
const SECRET = { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' };

const schema = JSON.parse(fixture('ob_v3p0_achievementcredential_schema.json'));
const ajv = new Ajv2019({ strict: false, allErrors: true });
// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
(formats as unknown as typeof formats.default)(ajv);
const validateSchema = ajv.compile(schema);

describe.each(dialects)('Open Badges 3.0 credentials on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  const logs: string[] = [];
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  let definitionSlug: string;
  let v: ReturnType<typeof verifier>;

  async function post(key: string, url: string, payload?: object) {
    const res = await t.app.inject({ method: 'POST', url, headers: auth(key), ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: url.startsWith(BASE) ? url.slice(BASE.length) : url, headers });

  const credentialUrl = (id: string) => `${BASE}/v1/issuers/${a.slug}/credentials/${id}`;
  async function issueOne(completionKey: string, email = EMAIL): Promise<string> {
    const issued = await post(a.key, '/api/v1/credentials', {
      definitionId,
      recipientEmail: email,
      recipientName: NAME,
      completionKey,
      evidenceUrl: 'https://academy.example/evidence/final',
    });
    expect(issued.openBadgeCredentialUrl).toBe(credentialUrl(issued.credentialId));
    return issued.credentialId;
  }
  /** A holder-bound copy of credential `id` (subject a did:key), signed in both forms by the issuer's key. */
  async function holderBound(id: string) {
    const holder = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
    const unsigned = await t.app.services.vc.credentials.unsignedCredential(a.slug, id);
    const signed = await t.app.services.vc.credentials.signGiven(a.slug, {
      ...unsigned,
      credentialSubject: { ...unsigned.credentialSubject, id: holder },
    });
    return { ...signed, holder };
  }
  async function fetchCredential(id: string) {
    const res = await get(credentialUrl(id));
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Record<string, unknown> & {
      credentialStatus: { statusListIndex: string; statusListCredential: string };
    };
  }

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    t = await createTestApp(dialect, {
      clock,
      env: dialect === 'postgres' ? SECRET : {},
      logger: { ...logOptions('trace'), stream },
    });
    v = verifier(t.app, BASE);
    a = await t.issuer({ slug: `vc-a-${dialect}`, name: 'Analytical Academy' });
    const definition = await post(a.key, '/api/v1/definitions', {
      name: 'Analytical Engines',
      description: 'Programs for the analytical engine.',
      criteriaNarrative: 'Write a program computing Bernoulli numbers.',
      tags: ['computing', 'history'],
      skills: ['algorithms'],
      expiresAfterDays: 365,
    });
    definitionId = definition.id;
    definitionSlug = definition.slug;
    await post(a.key, `/api/v1/definitions/${definitionId}/alignments`, {
      targetName: 'Algorithmic thinking',
      targetUrl: 'https://frameworks.example/algorithms',
      targetFramework: 'ESCO',
      targetCode: 'A1',
    });
  });
  afterAll(async () => t.close());

  it('publishes the issuer as did:web with its key as a Multikey and as a JsonWebKey assertion method', async () => {
    const res = await get(`/v1/issuers/${a.slug}/did.json`, { origin: 'https://wallet.example' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const did = `did:web:badges.test:v1:issuers:${a.slug}`;
    const document = res.json();
    expect(document).toMatchObject({
      id: did,
      alsoKnownAs: [`${BASE}/v1/issuers/${a.slug}`],
      verificationMethod: [
        { id: `${did}#key-1`, type: 'Multikey', controller: did },
        { id: `${did}#jwk-1`, type: 'JsonWebKey', controller: did, publicKeyJwk: { kty: 'OKP', crv: 'Ed25519' } },
      ],
      assertionMethod: [`${did}#key-1`, `${did}#jwk-1`],
    });
    expect(document.verificationMethod[0].publicKeyMultibase).toMatch(/^z6Mk/);
    // Both methods are the same key: the JWK is the Multikey's, as Digital Bazaar's codec converts it.
    const fromMultikey = await toJwk({ keyPair: await multikeyFrom(document.verificationMethod[0]) });
    expect(document.verificationMethod[1].publicKeyJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: fromMultikey.x });
    expect(JSON.stringify(document)).not.toMatch(/secret|private|"d"/i);
    expect((await get('/v1/issuers/nobody-here/did.json')).statusCode).toBe(404);
  });

  it('serves a signed OpenBadgeCredential that an independent verifier accepts, and the official schema too', async () => {
    const id = await issueOne('vc:ada');
    const res = await get(credentialUrl(id), { origin: 'https://wallet.example' });
    expect(res.statusCode, res.body + logs.filter((l) => l.includes('"err"')).join('\n')).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const credential = res.json();
    expect(credential).toMatchObject({
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json',
        'https://purl.imsglobal.org/spec/ob/v3p0/extensions.json',
      ],
      id: credentialUrl(id),
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      issuer: {
        id: `did:web:badges.test:v1:issuers:${a.slug}`,
        type: ['Profile'],
        name: 'Analytical Academy',
        email: `contact@${a.slug}.example`,
      },
      validFrom: '2026-03-02T09:00:00Z',
      validUntil: '2027-03-02T09:00:00Z',
      credentialSubject: {
        type: ['AchievementSubject'],
        identifier: [{ type: 'IdentityObject', identityType: 'emailAddress', hashed: true, salt: a.salt }],
        achievement: {
          id: `${BASE}/v1/issuers/${a.slug}/badges/${definitionSlug}/versions/1`,
          type: ['Achievement'],
          name: 'Analytical Engines',
          criteria: { narrative: 'Write a program computing Bernoulli numbers.' },
          tag: ['computing', 'history', 'algorithms'],
          alignment: [{ type: ['Alignment'], targetName: 'Algorithmic thinking', targetCode: 'A1' }],
        },
      },
      evidence: [{ id: 'https://academy.example/evidence/final', type: ['Evidence'] }],
      credentialSchema: [
        {
          id: 'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json',
          type: '1EdTechJsonSchemaValidator2019',
        },
      ],
      credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
      proof: [{ type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofPurpose: 'assertionMethod' }],
    });
    expect(validateSchema(credential), JSON.stringify(validateSchema.errors)).toBe(true);
    const result = await v.verify(credential, clock.now());
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ verified: true, revoked: false });
  });

  it('has no VC-JWT of the hosted credential (no subject id for §8.2 `sub`): .jwt is 404, Accept still gets JSON-LD', async () => {
    const id = await issueOne('vc:jwt');
    const byPath = await get(`${credentialUrl(id)}.jwt`);
    expect(byPath.statusCode).toBe(404);
    expect(byPath.json()).toMatchObject({ error: 'not_found', message: expect.stringContaining('sub') });
    const byAccept = await get(credentialUrl(id), { accept: 'application/vc+jwt' });
    expect(byAccept.statusCode).toBe(200);
    expect(byAccept.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(byAccept.json()).toMatchObject({ id: credentialUrl(id), proof: [{ type: 'DataIntegrityProof' }] });
  });

  it('signs a holder-bound copy in both forms: the VC-JWT passes a strict §8.2 check with jose against did.json, and fails with any byte changed', async () => {
    const id = await issueOne('vc:holder');
    const { jwt, dataIntegrity, holder } = await holderBound(id);
    const did = `did:web:badges.test:v1:issuers:${a.slug}`;
    // No typ (issue 48: Credo refuses `JWT`, VC-JOSE-COSE asks `vc+jwt`; absent satisfies both).
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'EdDSA', kid: `${did}#jwk-1` });
    const payload = await v.strictJwt(jwt, clock.now());
    expect(payload).toMatchObject({
      iss: did,
      sub: holder,
      jti: credentialUrl(id),
      nbf: Date.parse('2026-03-02T09:00:00Z') / 1000,
      exp: Date.parse('2027-03-02T09:00:00Z') / 1000,
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      credentialSubject: { id: holder, type: ['AchievementSubject'] },
    });
    expect(validateSchema({ ...payload, proof: [] }), JSON.stringify(validateSchema.errors)).toBe(true);
    // Same id and status entry as the hosted credential; the Data Integrity form verifies too.
    const hosted = await fetchCredential(id);
    expect(dataIntegrity).toMatchObject({ id: hosted.id, credentialStatus: hosted.credentialStatus });
    expect(validateSchema(dataIntegrity), JSON.stringify(validateSchema.errors)).toBe(true);
    expect(await v.verify(dataIntegrity, clock.now())).toMatchObject({ verified: true, revoked: false });
    // Every character of the compact JWS changed in turn (a data bit of its base64url digit): none verifies.
    const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let rejected = 0;
    for (let i = 0; i < jwt.length; i++) {
      const at = digits.indexOf(jwt.charAt(i));
      if (at < 0) continue;
      const changed = `${jwt.slice(0, i)}${digits.charAt(at ^ 32)}${jwt.slice(i + 1)}`;
      if (
        await v.strictJwt(changed, clock.now()).then(
          () => false,
          () => true,
        )
      )
        rejected++;
    }
    expect(rejected).toBe(jwt.length - 2);
    // A JWT whose claims disagree with its credential, correctly signed, fails the §8.2 check.
    const key = await t.app.services.vc.signingKeys.current(a.id, (n) => `${did}#key-${n}`, did);
    const { iss: _iss, ...noIss } = payload;
    for (const claims of [
      { ...payload, sub: 'did:key:z6MkSomeoneElse' },
      { ...payload, nbf: (payload.nbf ?? 0) + 1 },
      { ...payload, jti: `${credentialUrl(id)}x` },
      noIss,
    ]) {
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: `${did}#jwk-1` })
        .sign(key.keyObject);
      await expect(v.strictJwt(forged, clock.now())).rejects.toThrow(/§8.2/);
    }
    // A kid naming the Multikey method is not a JWK: §8.2 dereferences it to one.
    const multikeyKid = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: `${did}#key-1` })
      .sign(key.keyObject);
    await expect(v.strictJwt(multikeyKid, clock.now())).rejects.toThrow(/not a JsonWebKey/);
  }, 120_000);

  it('makes §8.2 claims for any credential with a subject id, and refuses what §8.2 cannot express', async () => {
    const credential = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id: 'urn:uuid:6f1e2d1c-0000-4000-8000-000000000001',
      issuer: 'did:web:badges.test:v1:issuers:x',
      validFrom: '2026-03-02T09:00:00Z',
      credentialSubject: { id: 'https://badges.test/v1/issuers/x/badges/y' },
    };
    expect(jwtClaims(credential)).toEqual({
      ...credential,
      '@context': ['https://www.w3.org/ns/credentials/v2', JWT_ID_CONTEXT],
      iss: credential.issuer,
      sub: credential.credentialSubject.id,
      jti: credential.id,
      nbf: Date.parse(credential.validFrom) / 1000,
    });
    expect(() => jwtClaims({ ...credential, credentialSubject: {} })).toThrow(/credentialSubject.id/);
    expect(() => jwtClaims({ ...credential, validFrom: '2026-03-02T09:00:00.250Z' })).toThrow(/whole-second/);
    expect(() => jwtClaims({ ...credential, validUntil: 'not a date' })).toThrow(/whole-second/);
    expect(wholeSeconds('2026-03-02T09:00:00.999Z')).toBe('2026-03-02T09:00:00Z');
    await expect(
      t.app.services.vc.credentials.signGiven(a.slug, {
        ...credential,
        issuer: { id: 'did:web:badges.test:v1:issuers:x' },
      }),
    ).rejects.toThrow(/is not did:web/);
  });

  it('signs once: later fetches answer the stored bytes; a changed byte fails independent verification', async () => {
    const id = await issueOne('vc:once');
    const first = await get(credentialUrl(id));
    clock.advance(60_000);
    const second = await get(credentialUrl(id));
    expect(second.body).toBe(first.body);
    const credential = first.json();
    expect((await v.verify(credential, clock.now())).verified).toBe(true);
    for (const tampered of [
      { ...credential, name: 'Analytical Enginez' },
      { ...credential, validUntil: '2099-03-02T09:00:00.000Z' },
      {
        ...credential,
        credentialSubject: {
          ...credential.credentialSubject,
          identifier: [{ ...credential.credentialSubject.identifier[0], identityHash: `sha256$${'0'.repeat(64)}` }],
        },
      },
    ]) {
      expect((await v.verify(tampered, clock.now())).verified).toBe(false);
    }
  });

  it('an unknown credential, or another issuer’s under this slug, is not found', async () => {
    const b = await t.issuer({ slug: `vc-b-${dialect}` });
    const id = await issueOne('vc:foreign');
    expect((await get(`/v1/issuers/${b.slug}/credentials/${id}`)).statusCode).toBe(404);
    expect((await get(`/v1/issuers/${a.slug}/credentials/00000000-0000-0000-0000-000000000000`)).statusCode).toBe(404);
    expect((await get(`/v1/issuers/nobody-here/credentials/${id}`)).statusCode).toBe(404);
    expect((await get(`/v1/issuers/${a.slug}/status/-1`)).statusCode).toBe(400);
    // A list that holds no position is not signed, stored or served, however large its number.
    for (const list of [1, 51173]) {
      expect((await get(`/v1/issuers/${a.slug}/status/${list}`)).statusCode).toBe(404);
    }
    const stored = await t.database.db.selectFrom('vc_status_lists').select('list').where('list', '>', 0).execute();
    expect(stored).toEqual([]);
  });

  it('revoke, GDPR erase and reissue set the status bit at once; the verifier then reports revoked', async () => {
    const revokedId = await issueOne('vc:revoke');
    const erasedEmail = 'erase.me@example.test';
    const erasedId = await issueOne('vc:erase', erasedEmail);
    const reissuedId = await issueOne('vc:reissue');
    const keptId = await issueOne('vc:kept');
    const credentials = {
      revoked: await fetchCredential(revokedId),
      erased: await fetchCredential(erasedId),
      reissued: await fetchCredential(reissuedId),
      kept: await fetchCredential(keptId),
    };
    for (const credential of Object.values(credentials)) {
      expect(await v.verify(credential, clock.now())).toMatchObject({ verified: true, revoked: false });
    }
    const listUrl = credentials.kept.credentialStatus.statusListCredential;
    const before = (await get(listUrl)).body;
    expect((await get(listUrl)).body).toBe(before);

    await post(a.key, `/api/v1/credentials/${revokedId}/revoke`, { reason: 'Issued in error' });
    await post(a.key, '/api/v1/gdpr/erase', { recipientEmail: erasedEmail });
    await post(a.key, `/api/v1/credentials/${reissuedId}/reissue`);

    const list = (await get(listUrl)).json();
    expect(list).toMatchObject({
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: `did:web:badges.test:v1:issuers:${a.slug}`,
      credentialSubject: { type: 'BitstringStatusList', statusPurpose: 'revocation' },
    });
    const bits = await decodeList({ encodedList: list.credentialSubject.encodedList });
    expect(bits.length).toBeGreaterThanOrEqual(131_072);
    for (const [name, credential] of Object.entries(credentials)) {
      expect(bits.getStatus(Number(credential.credentialStatus.statusListIndex)), name).toBe(name !== 'kept');
      expect(await v.verify(credential, clock.now()), name).toMatchObject({
        verified: name === 'kept',
        revoked: name !== 'kept',
      });
    }
  });

  it('an expired credential fails on validUntil', async () => {
    const id = await issueOne('vc:expiring');
    const credential = await fetchCredential(id);
    expect((await v.verify(credential, new Date('2027-03-01T09:00:00.000Z'))).verified).toBe(true);
    const late = await v.verify(credential, new Date('2027-03-03T09:00:00.000Z'));
    expect(late.verified).toBe(false);
    expect(String(late.error)).toMatch(/after "validUntil"/);
  });

  it('rotation by the console: earlier credentials still verify, new ones are signed with the new key', async () => {
    const beforeId = await issueOne('vc:before-rotation');
    const before = await fetchCredential(beforeId);
    const saved = { ...process.env };
    Object.assign(process.env, {
      DATABASE_URL: t.testDb.url,
      PUBLIC_BASE_URL: BASE,
      LOG_LEVEL: 'silent',
      ...(dialect === 'postgres' ? SECRET : {}),
    });
    const lines: string[] = [];
    try {
      expect(await runCli(['keys', 'signing', 'rotate', '--issuer', a.slug], (l) => lines.push(l))).toBe(0);
      expect(await runCli(['keys', 'signing', 'list', '--issuer', a.slug], (l) => lines.push(l))).toBe(0);
    } finally {
      process.env = saved;
    }
    const did = `did:web:badges.test:v1:issuers:${a.slug}`;
    expect(lines.join('\n')).toContain(`${did}#key-2`);
    expect(lines.join('\n')).not.toMatch(/"d"|secret/i);
    const document = (await get(`/v1/issuers/${a.slug}/did.json`)).json();
    expect(document.assertionMethod).toEqual([`${did}#key-1`, `${did}#key-2`, `${did}#jwk-1`, `${did}#jwk-2`]);
    const after = await fetchCredential(await issueOne('vc:after-rotation'));
    expect((after.proof as { verificationMethod: string }[])[0]?.verificationMethod).toBe(`${did}#key-2`);
    expect((before.proof as { verificationMethod: string }[])[0]?.verificationMethod).toBe(`${did}#key-1`);
    expect(await v.verify(before, clock.now())).toMatchObject({ verified: true, revoked: false });
    expect(await v.verify(after, clock.now())).toMatchObject({ verified: true, revoked: false });
    const { jwt } = await holderBound(beforeId);
    expect((await v.verifyJwt(jwt)).protectedHeader.kid).toBe(`${did}#jwk-2`);
    expect(document.verificationMethod.map((m: { id: string }) => m.id)).toEqual([
      `${did}#key-1`,
      `${did}#key-2`,
      `${did}#jwk-1`,
      `${did}#jwk-2`,
    ]);
  });

  it('POST /api/v1/verify takes the OB 3.0 credential URL and a holder-bound VC-JWT; a changed byte is not authentic', async () => {
    const id = await issueOne('vc:verify');
    const { jwt, dataIntegrity } = await holderBound(id);
    const { validFrom } = await fetchCredential(id);
    expect(jwt.length).toBeLessThanOrEqual(8192);
    const verify = async (value: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/verify', payload: { id: value } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    for (const value of [credentialUrl(id), `${credentialUrl(id)}.jwt`, jwt]) {
      expect(await verify(value), value.slice(0, 40)).toMatchObject({
        id: value,
        authentic: true,
        status: 'valid',
        valid: true,
        credential: { name: 'Analytical Engines' },
        // The record's issue time; the credential's validFrom is the same instant in whole seconds.
        issuedOn: new Date(Date.parse(String(validFrom))).toISOString(),
      });
    }
    const [header = '', body = '', signature = ''] = jwt.split('.');
    const changed = Buffer.from(body, 'base64url').toString('utf8').replace(id, '00000000-0000-0000-0000-000000000000');
    const forged = `${header}.${Buffer.from(changed).toString('base64url')}.${signature}`;
    const flipped = `${header}.${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    for (const value of [forged, flipped]) {
      expect(await verify(value)).toEqual({ id: value, authentic: false, status: 'unknown', valid: false });
    }
    await post(a.key, `/api/v1/credentials/${id}/revoke`, { reason: 'Issued in error' });
    expect(await verify(jwt)).toMatchObject({ authentic: true, status: 'revoked', valid: false });
    // The holder-bound copy shares the hosted status entry: revoking the credential revokes it.
    expect(await v.verify(dataIntegrity, clock.now())).toMatchObject({ revoked: true });
    const bulk = await t.app.inject({ method: 'POST', url: '/api/v1/verify/bulk', payload: { ids: [jwt, flipped] } });
    expect(bulk.json().results.map((r: { status: string }) => r.status)).toEqual(['revoked', 'unknown']);
  });

  it('the verification page offers the signed credential for download', async () => {
    const id = await issueOne('vc:page');
    const page = await get(`/verify/${a.slug}/${id}`, { accept: 'text/html' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(
      `<a class="download" href="${credentialUrl(id)}?download" download="${id}.json">Download (Open Badges 3.0)</a>`,
    );
    // Saved as a file, not shown: the attachment works where the `download` attribute is ignored.
    const file = await get(`${credentialUrl(id)}?download`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="${id}.json"`);
    expect(file.json().type).toContain('OpenBadgeCredential');
  });

  it('keeps the private key sealed and the earner’s email and name out of the database, logs and responses', async () => {
    const id = await issueOne('vc:canary');
    const responses = [
      (await get(credentialUrl(id))).body,
      (await holderBound(id)).jwt,
      (await get(`/v1/issuers/${a.slug}/did.json`)).body,
      (await get(`/v1/issuers/${a.slug}/status/0`)).body,
    ];
    const sealed = await t.database.db.selectFrom('signing_keys').selectAll().where('issuer_id', '=', a.id).execute();
    expect(sealed.length).toBeGreaterThan(0);
    const kek = keyEncryptionKey(t.config);
    const stored = await storedText(t);
    const logText = logs.join('\n').toLowerCase();
    for (const row of sealed) {
      const jwk = JSON.parse(open(kek, row.private_key_sealed, `signing_keys:${row.issuer_id}:${row.version}`));
      const secrets = [
        jwk.d,
        Buffer.from(jwk.d, 'base64url').toString('hex'),
        Buffer.from(jwk.d, 'base64url').toString('base64'),
      ];
      for (const secret of secrets) {
        expect(stored).not.toContain(secret.toLowerCase());
        expect(logText).not.toContain(secret.toLowerCase());
        for (const body of responses) expect(body).not.toContain(secret);
      }
    }
    const jwtPayload = JSON.stringify(decodeJwt(responses[1] ?? ''));
    // The name the issuer gave is the credentials table's own (display_name); none of it reaches the OB 3.0 rows.
    const vcRows = JSON.stringify([
      await t.database.db.selectFrom('vc_credentials').selectAll().execute(),
      await t.database.db.selectFrom('vc_status_lists').selectAll().execute(),
      sealed,
    ]).toLowerCase();
    expect(stored).not.toContain(EMAIL.toLowerCase());
    for (const personal of [EMAIL, EMAIL.toLowerCase(), NAME]) {
      expect(vcRows).not.toContain(personal.toLowerCase());
      expect(logText).not.toContain(personal.toLowerCase());
      for (const body of [...responses, jwtPayload]) expect(body.toLowerCase()).not.toContain(personal.toLowerCase());
    }
  });
});

describe('the key-encryption key', () => {
  it('is required on PostgreSQL, and on SQLite is a generated owner-only file beside the database', async () => {
    expect(() =>
      keyEncryptionKey({ database: { dialect: 'postgres', url: 'postgres://x/y' }, signingKeySecret: null }),
    ).toThrow(/SIGNING_KEY_SECRET is required on PostgreSQL/);
    const dir = mkdtempSync(join(tmpdir(), 'accolade-kek-'));
    try {
      const path = join(dir, 'accolade.db');
      const sqlite = { dialect: 'sqlite' as const, path, synchronous: 'FULL' as const, cacheMb: 16 };
      const first = keyEncryptionKey({ database: sqlite, signingKeySecret: null });
      expect(statSync(`${path}.signing-secret`).mode & 0o777).toBe(0o600);
      expect(keyEncryptionKey({ database: sqlite, signingKeySecret: null })).toEqual(first);
      const configured = keyEncryptionKey({ database: sqlite, signingKeySecret: SECRET.SIGNING_KEY_SECRET });
      expect(configured).not.toEqual(first);
      const box = seal(first, 'private', 'signing_keys:i:1');
      expect(open(first, box, 'signing_keys:i:1')).toBe('private');
      expect(() => open(configured, box, 'signing_keys:i:1')).toThrow();
      expect(() => open(first, box, 'signing_keys:other:1')).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the eddsa-rdfc-2022 cryptosuite', () => {
  it('reproduces the W3C vc-di-eddsa test vector', async () => {
    const vector = JSON.parse(fixture('eddsa-rdfc-2022-signedDataInt.json'));
    const keys = JSON.parse(fixture('eddsa-rdfc-2022-keyPair.json'));
    const examples = JSON.parse(fixture('credentials-examples-v2.jsonld'));
    const loader = documentLoader(async (url) =>
      url === 'https://www.w3.org/ns/credentials/examples/v2' ? examples : undefined,
    );
    const { proof, ...unsigned } = vector;
    expect(`${await cryptosuite.canonize(unsigned, { documentLoader: loader })}`).toBe(
      fixture('eddsa-rdfc-2022-canonDocDataInt.txt'),
    );
    const keyPair = await multikeyFrom({
      type: 'Multikey',
      id: proof.verificationMethod,
      controller: proof.verificationMethod.split('#')[0],
      publicKeyMultibase: keys.publicKeyMultibase,
      secretKeyMultibase: keys.privateKeyMultibase,
    });
    const suite = new DataIntegrityProof({ signer: keyPair.signer(), cryptosuite, date: proof.created });
    const signed = await issue({ credential: unsigned, suite, documentLoader: loader });
    expect(signed.proof).toEqual(proof);
  });
});
