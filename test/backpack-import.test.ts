import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { Ed25519VerificationKey2020 } from '@digitalbazaar/ed25519-verification-key-2020';
import { issue } from '@digitalbazaar/vc';
import ed25519Context from 'ed25519-signature-2020-context';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { encodeSync as encodeItxt } from 'png-chunk-itxt';
import encodeChunks from 'png-chunks-encode';
import extractChunks from 'png-chunks-extract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashRecipientEmail } from '../src/core/hashing.js';
import { importFetcher } from '../src/modules/backpack/backpack.fetch.js';
import { IMPORTS_PER_HOUR } from '../src/modules/backpack/backpack.import.js';
import { documentLoader } from '../src/modules/vc/contexts.js';
import { bakePng } from '../src/modules/vc/png-baking.js';
import { earnerSession, form } from './backpack.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { freePort } from './verification.support.js';

const EMAIL = 'Lin.Import+Canary@Example.TEST';
const OTHER = 'someone.else@example.test';
const SALT = 'foreign-salt-1';
const OB3_V1_CONTEXT = 'https://purl.imsglobal.org/spec/ob/v3p0/context.json';

/** Another host: a second Accolade on its own database and origin, whose badges the earner brings in. */
async function foreignHost() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const host = await createTestApp('sqlite', {
    env: { PUBLIC_BASE_URL: base, SIGNING_KEY_SECRET: 'foreign-host-signing-secret-0123456789' },
  });
  await host.app.listen({ port, host: '127.0.0.1' });
  const issuer = await host.issuer({ name: 'Faraway College' });
  const definition = await host.app.inject({
    method: 'POST',
    url: '/api/v1/definitions',
    headers: auth(issuer.key),
    payload: { name: 'Distant Learning', description: 'Earned on another platform' },
  });
  const issueTo = async (email: string, key: string) => {
    const issued = await host.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId: definition.json().id, recipientEmail: email, completionKey: key },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    const id = issued.json().credentialId as string;
    return {
      id,
      assertion: `${base}/v1/issuers/${issuer.slug}/assertions/${id}`,
      credential: `${base}/v1/issuers/${issuer.slug}/credentials/${id}`,
    };
  };
  const revoke = (id: string) =>
    host.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/revoke`,
      headers: auth(issuer.key),
      payload: {},
    });
  return { host, issuer: issuer as TestIssuer, base, issueTo, revoke };
}

/** A 1×1 PNG to bake badges into. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** A PNG baked the Open Badges 2.0 way: iTXt `openbadges` (here compressed) holding the assertion URL. */
function ob2Png(assertionUrl: string): Buffer {
  const chunks = extractChunks(PIXEL);
  const data = encodeItxt({
    keyword: 'openbadges',
    compressionFlag: true,
    compressionMethod: 0,
    languageTag: '',
    translatedKeyword: '',
    text: assertionUrl,
  });
  chunks.splice(1, 0, { name: 'iTXt', data });
  return Buffer.from(encodeChunks(chunks));
}

const loader = documentLoader(async (url) =>
  url === ed25519Context.CONTEXT_URL ? ed25519Context.contexts.get(url) : undefined,
);

/** An OB 3.0 credential in the VC 1.1 shape, signed Ed25519Signature2020 by a did:key issuer. */
async function ed25519Signature2020Credential(email: string) {
  const key = await Ed25519VerificationKey2020.generate();
  const did = `did:key:${key.fingerprint()}`;
  key.controller = did;
  key.id = `${did}#${key.fingerprint()}`;
  const credential = {
    '@context': ['https://www.w3.org/2018/credentials/v1', OB3_V1_CONTEXT, ed25519Context.CONTEXT_URL],
    id: 'urn:uuid:6a1f4d3e-8c2b-4b5e-9e61-2f9d1a7c0b11',
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: { id: did, type: 'Profile', name: 'Key Signed Guild' },
    issuanceDate: '2026-11-01T00:00:00Z',
    name: 'Guild Craft',
    credentialSubject: {
      type: 'AchievementSubject',
      identifier: [
        {
          type: 'IdentityObject',
          identityType: 'emailAddress',
          hashed: true,
          salt: SALT,
          identityHash: `sha256$${hashRecipientEmail(email, SALT)}`,
        },
      ],
      achievement: {
        id: 'urn:uuid:0b6c2f4e-3d2a-4e7b-8f10-5c9d8e7a6b54',
        type: 'Achievement',
        name: 'Guild Craft',
        description: 'Signed the 2020 way',
        criteria: { narrative: 'Made a thing' },
      },
    },
  };
  return issue({ credential, suite: new Ed25519Signature2020({ key }), documentLoader: loader });
}

/** An Ed25519 public key as did:key writes it: `z`, base58btc of the multicodec header 0xed01 and the key. */
function ed25519Multibase(raw: Buffer): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let value = BigInt(`0x${Buffer.concat([Buffer.from([0xed, 0x01]), raw]).toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = alphabet[Number(value % 58n)] + out;
    value /= 58n;
  }
  return `z${out}`;
}

/** An OB 3.0 VC-JWT (OB 3.0 §8.2) by a did:key issuer, its kid the DID URL of the key. */
async function vcJwt(email: string, tamper = false) {
  const { publicKey, privateKey: key } = await generateKeyPair('EdDSA');
  const multibase = ed25519Multibase(Buffer.from(String((await exportJWK(publicKey)).x), 'base64url'));
  const did = `did:key:${multibase}`;
  const kid = `${did}#${multibase}`;
  const vc = {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json'],
    id: 'urn:uuid:9d0c7b1a-2e3f-4a5b-8c6d-7e8f9a0b1c2d',
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: { id: did, type: ['Profile'], name: 'Token Institute' },
    validFrom: '2026-11-02T00:00:00Z',
    credentialSubject: {
      type: ['AchievementSubject'],
      identifier: [
        { type: 'IdentityObject', identityType: 'emailAddress', hashed: false, identityHash: email.toLowerCase() },
      ],
      achievement: { id: 'urn:uuid:1', type: ['Achievement'], name: 'Token Bearer', criteria: { narrative: 'n' } },
    },
  };
  const jws = await new SignJWT({ vc, iss: did, jti: vc.id, sub: 'urn:uuid:subject' })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
    .sign(key);
  if (!tamper) return jws;
  const [header, , signature] = jws.split('.');
  const forged = {
    ...vc,
    credentialSubject: {
      ...vc.credentialSubject,
      achievement: { ...vc.credentialSubject.achievement, name: 'Forged Bearer' },
    },
  };
  const payload = Buffer.from(JSON.stringify({ vc: forged, iss: did, jti: vc.id })).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

describe('the import fetcher', () => {
  it('refuses private addresses without WEBHOOK_ALLOW_PRIVATE and caps the fetches of one import', async () => {
    const fetcher = importFetcher({ allowPrivate: false, lookup: async () => [{ address: '10.0.0.7', family: 4 }] });
    const fetch = fetcher.budget();
    await expect(fetch('http://127.0.0.1/assertion')).rejects.toThrow(/not an address the backpack fetches/);
    await expect(fetch('https://intranet.example/assertion')).rejects.toThrow(/could not be reached/);
    await expect(fetch('https://169.254.169.254/latest')).rejects.toThrow(/not an address/);
    for (let i = 0; i < 3; i++) await expect(fetch('https://intranet.example/x')).rejects.toThrow();
    await expect(fetch('https://intranet.example/x')).rejects.toThrow(/at most 6 documents/);
  });
});

describe.each(dialects)('importing badges into the backpack on %s', (dialect) => {
  let t: TestApp;
  let foreign: Awaited<ReturnType<typeof foreignHost>>;
  let earner: Awaited<ReturnType<typeof earnerSession>>;
  let mine: Awaited<ReturnType<Awaited<ReturnType<typeof foreignHost>>['issueTo']>>;

  const post = (url: string, payload: string, cookie = earner.cookie) =>
    t.app.inject({ method: 'POST', url, headers: { ...form, cookie }, payload });
  const importText = (source: string) => post('/backpack/imports', earner.form({ source }));
  const backpack = async () =>
    (await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: earner.cookie } })).body;
  const card = (page: string, id: string) => {
    const start = page.indexOf(`id="import-${id}"`);
    return start < 0 ? '' : page.slice(start, page.indexOf('</article>', start));
  };
  const importedId = (location: unknown) => String(location).split('#import-')[1] as string;
  const imports = () =>
    t.database.db
      .selectFrom('earner_imports' as never)
      .selectAll()
      .execute() as Promise<{ id: string; status: string; reason: string | null; name: string; spec: string }[]>;
  const multipart = (name: string, type: string, bytes: Buffer) => {
    const body = new FormData();
    body.set('csrf', earner.csrf);
    body.set('image', new Blob([new Uint8Array(bytes)], { type }), name);
    return new Request('http://x', { method: 'POST', body });
  };

  beforeAll(async () => {
    foreign = await foreignHost();
    mine = await foreign.issueTo(EMAIL, 'far:1');
    t = await createTestApp(dialect, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    earner = await earnerSession(t.app, EMAIL);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await foreign.host.close();
  });

  it('imports a foreign Open Badges 2.0 assertion by its URL, checked by hosted verification', async () => {
    const imported = await importText(mine.assertion);
    expect(imported.statusCode, imported.body).toBe(303);
    const page = await backpack();
    const shown = card(page, importedId(imported.headers.location));
    expect(shown).toContain('Distant Learning');
    expect(shown).toContain('Faraway College');
    expect(shown).toContain('Status: verified');
    expect(shown).toContain('Open Badges 2.0');
    const request = multipart('badge.png', 'image/png', ob2Png(mine.assertion));
    const baked = await t.app.inject({
      method: 'POST',
      url: '/backpack/imports',
      headers: { 'content-type': request.headers.get('content-type') as string, cookie: earner.cookie },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    expect(baked.statusCode, baked.body).toBe(303);
    expect(baked.headers.location).toBe(imported.headers.location);
    const rows = await imports();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.spec).toBe('ob2');
  });

  it('imports the same badge as an Open Badges 3.0 credential (VC 2.0, eddsa-rdfc-2022, did:web, status list), pasted, at its URL and baked', async () => {
    const json = await (await fetch(mine.credential)).text();
    const pasted = await importText(json);
    expect(pasted.statusCode, pasted.body).toBe(303);
    const id = importedId(pasted.headers.location);
    expect(card(await backpack(), id)).toContain('Status: verified');
    const byUrl = await importText(mine.credential);
    expect(importedId(byUrl.headers.location)).toBe(id);

    const svg = Buffer.from(await (await fetch(`${mine.credential}/baked.svg`)).arrayBuffer());
    for (const [path, type, image] of [
      ['baked.png', 'image/png', bakePng(PIXEL, json)],
      ['baked.svg', 'image/svg+xml', svg],
    ] as const) {
      const request = multipart(path, type, image);
      const baked = await t.app.inject({
        method: 'POST',
        url: '/backpack/imports',
        headers: { 'content-type': request.headers.get('content-type') as string, cookie: earner.cookie },
        payload: Buffer.from(await request.arrayBuffer()),
      });
      expect(baked.statusCode, baked.body).toBe(303);
      expect(importedId(baked.headers.location)).toBe(id);
    }
    const row = (await imports()).find((r) => r.id === id);
    expect(row?.status).toBe('verified');
    expect(row?.spec).toBe('ob3');
  });

  it('keeps a forged credential marked not verified, never valid', async () => {
    const credential = JSON.parse(await (await fetch(mine.credential)).text());
    credential.id = `${credential.id}-forged`;
    credential.credentialSubject.achievement.name = 'Forged Mastery';
    const forged = await importText(JSON.stringify(credential));
    expect(forged.statusCode, forged.body).toBe(303);
    const shown = card(await backpack(), importedId(forged.headers.location));
    expect(shown).toContain('Forged Mastery');
    expect(shown).toContain('Status: not verified');
    expect(shown).not.toContain('Status: verified');
    expect(shown).toMatch(/signature does not match/);
  });

  it('checks Ed25519Signature2020 (VC 1.1 shape, did:key) and VC-JWTs, and refuses a tampered JWT', async () => {
    const signed2020 = await importText(JSON.stringify(await ed25519Signature2020Credential(EMAIL)));
    expect(signed2020.statusCode, signed2020.body).toBe(303);
    const page = await backpack();
    expect(card(page, importedId(signed2020.headers.location))).toContain('Status: verified');
    const jwt = await importText(await vcJwt(EMAIL));
    expect(card(await backpack(), importedId(jwt.headers.location))).toContain('Status: verified');
    const tampered = await importText(await vcJwt(EMAIL, true));
    const shown = card(await backpack(), importedId(tampered.headers.location));
    expect(shown).toContain('Status: not verified');
    expect(shown).toMatch(/signature does not match/);
  });

  it('marks a badge of another address not verified, and reads revocation from the host and its status list', async () => {
    const theirs = await foreign.issueTo(OTHER, 'far:2');
    const stolen = await importText(theirs.assertion);
    expect(card(await backpack(), importedId(stolen.headers.location))).toMatch(/not verified[\s\S]*another address/);

    const later = await foreign.issueTo(EMAIL, 'far:3');
    const ob2 = importedId((await importText(later.assertion)).headers.location);
    const ob3 = importedId((await importText(later.credential)).headers.location);
    expect((await foreign.revoke(later.id)).statusCode).toBe(200);
    for (const id of [ob2, ob3]) {
      const again = await post(`/backpack/imports/${id}/check`, earner.form());
      expect(again.statusCode, again.body).toBe(303);
      expect(card(await backpack(), id)).toContain('Status: revoked by its issuer');
    }
  });

  it('refuses what is not a badge or is past the JSON-LD budget before any JSON-LD step, and caps imports per hour', async () => {
    const huge = JSON.stringify({
      type: ['VerifiableCredential'],
      credentialSubject: { many: Array.from({ length: 600 }, (_, i) => i) },
    });
    const refused = await importText(huge);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('JSON-LD processing is bounded');
    const notBadge = await importText('{"type":"Thing"}');
    expect(notBadge.statusCode).toBe(400);
    const before = (await imports()).length;
    let last = 400;
    for (let i = 0; i < IMPORTS_PER_HOUR; i++) last = (await importText('{"type":"Thing"}')).statusCode;
    expect(last).toBe(429);
    expect((await imports()).length).toBe(before);
  });

  it('keeps imports to their earner, audits them, and deletes them with the account', async () => {
    const rows = await imports();
    const other = await earnerSession(t.app, OTHER);
    const theirs = await post(`/backpack/imports/${rows[0]?.id}/delete`, other.form(), other.cookie);
    expect(theirs.statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: other.cookie } })).body,
    ).not.toContain('Distant Learning');
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('issuer_id', '=', 'earners')
      .where('action', 'in', ['earner.credential_imported', 'earner.import_checked'])
      .execute();
    expect(audit.length).toBeGreaterThanOrEqual(rows.length);
    expect(audit.every((r) => r.actor === `earner:${earner.accountId}`)).toBe(true);

    const removed = await post(`/backpack/imports/${rows[0]?.id}/delete`, earner.form());
    expect(removed.statusCode).toBe(303);
    expect(await imports()).toHaveLength(rows.length - 1);
    const deleted = await post('/backpack/account/delete', earner.form());
    expect(deleted.statusCode).toBe(200);
    expect(await imports()).toEqual([]);
    expect(
      await t.database.db
        .selectFrom('earner_import_attempts' as never)
        .selectAll()
        .where('account_id' as never, '=', earner.accountId as never)
        .execute(),
    ).toEqual([]);
  });
});
