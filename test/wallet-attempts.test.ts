import { base64url, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { JSONLD_BUDGET } from '../src/core/jsonld-budget.js';
import { createDatabase } from '../src/db/database.js';
import { DID_JWK_MAX_ID } from '../src/modules/wallet/wallet.holder.js';
import { LCW_BODY_LIMIT } from '../src/modules/wallet/wallet.routes.js';
import { LCW_ATTEMPTS, TX_CODE_ATTEMPTS } from '../src/modules/wallet/wallet.terms.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
  testConfig,
} from './helpers.js';
import { didAuth, didKeyWallet } from './lcw.support.js';

const BASE = 'https://badges.test';
const SECRET = { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' };
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

type App = TestApp['app'];

/**
 * Issue 48.2, 48.3 and 48.7 (wallet parts), and the conformance items: what a wallet's requests are
 * counted and bounded by, through two app instances on one database (two replicas), with parallel
 * requests where a race was found.
 */
describe.each(dialects)('wallet attempts, bounds and answers across two app instances on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let replica: { app: App; close(): Promise<void> };
  let a: TestIssuer;
  let definitionId: string;
  let serial = 0;

  /** The two replicas, taking turns. */
  const appFor = (i: number) => (i % 2 === 0 ? t.app : replica.app);

  async function offer(body: object = {}) {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: 'ada@example.test', completionKey: `attempts:${++serial}` },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    const made = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${issued.json().credentialId}/offers`,
      headers: auth(a.key),
      payload: body,
    });
    expect(made.statusCode, made.body).toBe(201);
    const json = made.json();
    const link = new URL(json.learnerCredentialWallet.url);
    return {
      code: (json.credentialOfferUri as string).split('/').pop() as string,
      txCode: json.txCode as string | undefined,
      challenge: link.searchParams.get('challenge') as string,
      exchange: (link.searchParams.get('vc_request_url') as string).slice(BASE.length),
    };
  }

  const token = (app: App, code: string, txCode?: string) =>
    app.inject({
      method: 'POST',
      url: `/v1/issuers/${a.slug}/oid4vci/token`,
      headers: FORM,
      payload: new URLSearchParams({
        grant_type: PRE_AUTH,
        'pre-authorized_code': code,
        ...(txCode === undefined ? {} : { tx_code: txCode }),
      }).toString(),
    });

  const exchange = (app: App, url: string, payload: unknown) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  async function counts(challengeOrCode: { code: string }) {
    const offers = await t.database.db
      .selectFrom('wallet_offers')
      .select(['tx_code_failures', 'lcw_attempts', 'code_hash'])
      .execute();
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(challengeOrCode.code).digest('hex');
    const row = offers.find((o) => o.code_hash === hash);
    if (!row) throw new Error('offer row missing');
    return { tx: Number(row.tx_code_failures), lcw: Number(row.lcw_attempts) };
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock, env: SECRET });
    const config = testConfig(t.testDb.url, SECRET);
    const database = createDatabase(config.database);
    const app = await buildApp({ config, database, clock, logger: false });
    await app.ready();
    replica = {
      app,
      close: async () => {
        await app.close();
        await database.close();
      },
    };
    a = await t.issuer({ slug: `wallet-attempts-${dialect}` });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Guessing games', description: 'Counted guesses' },
    });
    definitionId = definition.json().id;
  });
  afterAll(async () => {
    await replica.close();
    await t.close();
  });

  it(`200 parallel tx_code guesses through two replicas compare at most ${TX_CODE_ATTEMPTS} codes; then the right one is refused`, async () => {
    const made = await offer({ txCode: true });
    const right = made.txCode as string;
    const wrong = Array.from({ length: 200 }, (_, i) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0'));
    const answers = await Promise.all(wrong.map((guess, i) => token(appFor(i), made.code, guess)));
    const compared = answers.filter((res) => res.json().error_description?.includes('transaction code'));
    expect(compared).toHaveLength(TX_CODE_ATTEMPTS);
    for (const res of answers) {
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_grant');
    }
    expect((await counts(made)).tx).toBe(TX_CODE_ATTEMPTS);
    const late = await token(t.app, made.code, right);
    expect(late.statusCode).toBe(400);
    expect(late.json().error).toBe('invalid_grant');
  });

  it('a token request without the offer’s tx_code is invalid_request (OpenID4VCI 1.0 §6.3) and spends no attempt', async () => {
    const made = await offer({ txCode: true });
    for (let i = 0; i < TX_CODE_ATTEMPTS + 2; i++) {
      const res = await token(appFor(i), made.code);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    }
    expect((await counts(made)).tx).toBe(0);
    const wrong = made.txCode === '000000' ? '000001' : '000000';
    expect((await token(t.app, made.code, wrong)).json().error).toBe('invalid_grant');
    const res = await token(replica.app, made.code, made.txCode);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().token_type).toBe('Bearer');
    // The right code's attempt is given back: the column counts the one wrong code.
    expect((await counts(made)).tx).toBe(1);
  });

  it(`parallel failed LCW presentations through two replicas check at most ${LCW_ATTEMPTS}; the challenge is then dead`, async () => {
    const made = await offer();
    const holder = await didKeyWallet();
    const intruder = await didKeyWallet();
    const forged = await didAuth(holder.did, intruder.key, made.challenge);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => exchange(appFor(i), made.exchange, forged)));
    const statuses = answers.map((res) => res.statusCode);
    expect(statuses.filter((s) => s === 400)).toHaveLength(LCW_ATTEMPTS);
    expect(statuses.filter((s) => s === 404)).toHaveLength(20 - LCW_ATTEMPTS);
    expect((await counts(made)).lcw).toBe(LCW_ATTEMPTS);
    const good = await didAuth(holder.did, holder.key, made.challenge);
    expectErrorBody(await exchange(t.app, made.exchange, good), 404, 'not_found');
    // The OpenID4VCI code of the same offer keeps its own count: the earner can still use it.
    expect((await token(replica.app, made.code)).statusCode).toBe(200);
  });

  it('the LCW exchange refuses a body over its limit (413) and a presentation past the JSON-LD budget (400), before any check', async () => {
    const made = await offer();
    const holder = await didKeyWallet();
    const good = await didAuth(holder.did, holder.key, made.challenge);
    const big = { ...good, id: 'urn:x', proof: { ...(good.proof as object), junk: 'x'.repeat(LCW_BODY_LIMIT) } };
    expectErrorBody(await exchange(t.app, made.exchange, big), 413, 'payload_too_large');
    const numbers = {
      ...good,
      proof: { ...(good.proof as object), junk: new Array(JSONLD_BUDGET.arrayElements + 1).fill(0) },
    };
    expect(JSON.stringify(numbers).length).toBeLessThan(LCW_BODY_LIMIT);
    const counted = expectErrorBody(await exchange(replica.app, made.exchange, numbers), 400, 'validation_failed');
    expect(counted.issues).toEqual([expect.objectContaining({ code: 'arrayElements' })]);
    const inline = { ...good, '@context': [...(good['@context'] as string[]), { '@vocab': 'urn:v#' }] };
    const context = expectErrorBody(await exchange(t.app, made.exchange, inline), 400, 'validation_failed');
    expect(context.issues).toEqual([expect.objectContaining({ code: 'inlineContext' })]);
    // None of them was checked, so none spent an attempt: the holder's presentation gets the credential.
    expect((await counts(made)).lcw).toBe(0);
    const res = await exchange(replica.app, made.exchange, good);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().credentialSubject.id).toBe(holder.did);
  });

  it('the ldp_vc configuration names its proof algorithms as JOSE names and as the Linked Data suites Credo reads', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/.well-known/openid-credential-issuer/v1/issuers/${a.slug}`,
    });
    const configurations = res.json().credential_configurations_supported;
    const ldp = configurations.OpenBadgeCredential_ldp_vc;
    expect(ldp.proof_types_supported.jwt.proof_signing_alg_values_supported).toEqual([
      'EdDSA',
      'ES256',
      'Ed25519Signature2018',
      'Ed25519Signature2020',
    ]);
    expect(ldp.credential_signing_alg_values_supported).toEqual(['eddsa-rdfc-2022']);
    const jwt = configurations.OpenBadgeCredential_jwt_vc_json;
    expect(jwt.proof_types_supported.jwt.proof_signing_alg_values_supported).toEqual(['EdDSA', 'ES256']);
  });

  describe('the credential request', () => {
    async function accessToken() {
      const made = await offer();
      const res = await token(t.app, made.code);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().access_token as string;
    }
    async function nonce() {
      const res = await t.app.inject({ method: 'POST', url: `/v1/issuers/${a.slug}/oid4vci/nonce` });
      return res.json().c_nonce as string;
    }
    async function es256Holder(extra: Record<string, string> = {}) {
      const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
      const { kty, crv, x, y } = await exportJWK(publicKey);
      const did = `did:jwk:${base64url.encode(JSON.stringify({ kty, crv, x, y, ...extra }))}`;
      return { did, privateKey };
    }
    async function request(
      holder: Awaited<ReturnType<typeof es256Holder>>,
      options: { iat?: number | null; configuration?: string } = {},
    ) {
      const claims = new SignJWT({ nonce: await nonce() })
        .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', kid: `${holder.did}#0` })
        .setAudience(`${BASE}/v1/issuers/${a.slug}`);
      const now = Math.floor(clock.now().getTime() / 1000);
      if (options.iat !== null) claims.setIssuedAt(options.iat ?? now);
      const jwt = await claims.sign(holder.privateKey);
      return t.app.inject({
        method: 'POST',
        url: `/v1/issuers/${a.slug}/oid4vci/credential`,
        headers: { authorization: `Bearer ${await accessToken()}`, 'content-type': 'application/json' },
        payload: {
          credential_configuration_id: options.configuration ?? 'OpenBadgeCredential_ldp_vc',
          proofs: { jwt: [jwt] },
        },
      });
    }

    it('requires the proof’s iat, within the nonce’s lifetime and a minute of skew', async () => {
      const holder = await es256Holder();
      const now = Math.floor(clock.now().getTime() / 1000);
      for (const iat of [null, now - 3600, now - 361, now + 61, now + 86_400 * 365]) {
        const res = await request(holder, { iat });
        expect(res.statusCode, `iat ${iat}`).toBe(400);
        expect(res.json().error).toMatch(/^invalid_proof$|^invalid_credential_request$/);
      }
      for (const iat of [now, now - 300, now + 60]) {
        const res = await request(holder, { iat });
        expect(res.statusCode, `iat ${iat}: ${res.body}`).toBe(200);
      }
    });

    it(`bounds a did:jwk holder (${DID_JWK_MAX_ID} characters of JWK) before it becomes credentialSubject.id`, async () => {
      const padded = await es256Holder({ kid: 'k'.repeat(DID_JWK_MAX_ID) });
      const refused = await request(padded);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toBe('invalid_proof');
      const plain = await es256Holder({ use: 'sig' });
      const res = await request(plain);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().credentials[0].credential.credentialSubject.id).toBe(plain.did);
    });

    it('signs the holder-bound VC-JWT without a typ header', async () => {
      const res = await request(await es256Holder(), { configuration: 'OpenBadgeCredential_jwt_vc_json' });
      expect(res.statusCode, res.body).toBe(200);
      const header = decodeProtectedHeader(res.json().credentials[0].credential);
      expect(header.typ).toBeUndefined();
      expect(header).toMatchObject({ alg: 'EdDSA', kid: expect.stringMatching(/#jwk-1$/) });
    });
  });
});
