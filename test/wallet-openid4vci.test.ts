import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import {
  from as multikeyFrom,
  fromJwk as multikeyFromJwk,
  toJwk as multikeyToJwk,
} from '@digitalbazaar/ed25519-multikey';
import {
  base64url,
  type CryptoKey,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  jwtVerify,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logOptions } from '../src/app.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { verifier } from './vc.support.js';

/*
 * A wallet written for this test on jose alone, to reach every refusal the spec names (another
 * vendor's library runs the same flow in wallet-sphereon.test.ts). It does what OpenID4VCI 1.0 says
 * a wallet does, against the server listening on a port:
 * resolve the offer by reference, read the metadata at the well-known paths derived from the
 * credential_issuer, redeem the pre-authorized code, take a nonce and send a jwt proof.
 */

const BASE = 'https://badges.test';
const EMAIL = 'Grace.Hopper+Canary@Example.TEST';
const NAME = 'Grace Canary Hopper';
const SECRET = { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' };
/** A JSON document the wallet reads member by member, as a wallet does. */
// biome-ignore lint/suspicious/noExplicitAny: the protocol's documents are read by path, checked by the assertions
type Doc = Record<string, any>;
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

interface Holder {
  did: string;
  kid: string;
  privateKey: CryptoKey;
  alg: 'EdDSA' | 'ES256';
  jwk: JWK;
}

async function didKeyHolder(): Promise<Holder> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
  const jwk = await exportJWK(publicKey);
  const { publicKeyMultibase } = await multikeyFromJwk({ jwk: jwk as never });
  const did = `did:key:${publicKeyMultibase}`;
  return { did, kid: `${did}#${publicKeyMultibase}`, privateKey, alg: 'EdDSA', jwk };
}

async function didJwkHolder(): Promise<Holder> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const { kty, crv, x, y } = await exportJWK(publicKey);
  const jwk = { kty, crv, x, y } as JWK;
  const did = `did:jwk:${base64url.encode(JSON.stringify(jwk))}`;
  return { did, kid: `${did}#0`, privateKey, alg: 'ES256', jwk };
}

describe.each(dialects)('OpenID4VCI issuance on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  const logs: string[] = [];
  let t: TestApp;
  let a: TestIssuer;
  let origin: string;
  let definitionId: string;
  let v: ReturnType<typeof verifier>;

  /** The wallet's HTTP client: the service's public URLs, reached at the port it listens on. */
  const http = (url: string, init?: RequestInit) => fetch(url.replace(BASE, origin), init);
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Doc });

  async function issueOne(completionKey: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: EMAIL, recipientName: NAME, completionKey },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId;
  }

  async function makeOffer(credentialId: string, body: object = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${credentialId}/offers`,
      headers: auth(a.key),
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { offer: string; credentialOfferUri: string; qr: string; txCode?: string; expiresAt: string };
  }

  /** Offer → credential offer object → both metadata documents → token. */
  async function redeem(offerUri: string, txCode?: string) {
    const reference = new URL(offerUri).searchParams.get('credential_offer_uri');
    expect(reference).toBeTruthy();
    const offer = await json(await http(reference as string));
    expect(offer.status).toBe(200);
    const issuerUrl = new URL(offer.body.credential_issuer);
    const metadata = await json(
      await http(`${issuerUrl.origin}/.well-known/openid-credential-issuer${issuerUrl.pathname}`),
    );
    expect(metadata.status).toBe(200);
    const as = await json(
      await http(`${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerUrl.pathname}`),
    );
    expect(as.status).toBe(200);
    expect(as.body.issuer).toBe(offer.body.credential_issuer);
    const form = new URLSearchParams({
      grant_type: PRE_AUTH,
      'pre-authorized_code': offer.body.grants[PRE_AUTH]['pre-authorized_code'],
      ...(txCode === undefined ? {} : { tx_code: txCode }),
    });
    const token = await json(
      await http(as.body.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      }),
    );
    return { offer: offer.body, metadata: metadata.body, token, form };
  }

  async function nonce(metadata: Doc): Promise<string> {
    const res = await json(await http(metadata.nonce_endpoint, { method: 'POST' }));
    expect(res.status).toBe(200);
    return res.body.c_nonce;
  }

  async function proofJwt(holder: Holder, audience: string, c_nonce: string, signWith?: CryptoKey) {
    return new SignJWT({ nonce: c_nonce })
      .setProtectedHeader({ alg: holder.alg, typ: 'openid4vci-proof+jwt', kid: holder.kid })
      .setAudience(audience)
      .setIssuedAt(Math.floor(clock.now().getTime() / 1000))
      .sign(signWith ?? holder.privateKey);
  }

  async function requestCredential(metadata: Doc, accessToken: string, configuration: string, jwt: string) {
    return json(
      await http(metadata.credential_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ credential_configuration_id: configuration, proofs: { jwt: [jwt] } }),
      }),
    );
  }

  async function issuedToWallets(): Promise<number> {
    const rows = await t.database.db
      .selectFrom('audit_log')
      .select('id')
      .where('issuer_id', '=', a.id)
      .where('action', '=', 'wallet_credential.issued')
      .execute();
    return rows.length;
  }

  /** jose against the issuer's did.json: the key the JWT's kid names. */
  async function verifyJwt(jwt: string) {
    const { kid } = JSON.parse(new TextDecoder().decode(base64url.decode(jwt.split('.')[0] as string)));
    const document = await json(await http(`${BASE}/v1/issuers/${a.slug}/did.json`));
    const method = document.body.verificationMethod.find((m: { id: string }) => m.id === kid);
    expect(method, `kid ${kid}`).toBeDefined();
    const jwk = method.publicKeyJwk ?? (await multikeyToJwk({ keyPair: await multikeyFrom(method) }));
    return jwtVerify(jwt, await importJWK(jwk, 'EdDSA'), { currentDate: clock.now() });
  }

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    t = await createTestApp(dialect, { clock, env: SECRET, logger: { ...logOptions('trace'), stream } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    v = verifier(t.app, BASE);
    a = await t.issuer({ slug: `wallet-a-${dialect}`, name: 'Wallet Academy' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Compilers', description: 'The first compiler.', criteriaNarrative: 'Write A-0.' },
    });
    definitionId = definition.json().id;
  });
  afterAll(async () => t.close());

  it('completes the pre-authorized flow with a tx_code and a did:key holder, in both formats, bound to the holder', async () => {
    const id = await issueOne('wallet:1');
    const made = await makeOffer(id, { txCode: true });
    expect(made.offer).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/);
    expect(made.credentialOfferUri.startsWith(`${BASE}/v1/issuers/${a.slug}/oid4vci/offers/`)).toBe(true);
    expect(made.qr).toMatch(/^data:image\/png;base64,/);
    expect(made.txCode).toMatch(/^[0-9]{6}$/);
    expect(Date.parse(made.expiresAt) - clock.now().getTime()).toBe(30 * 86_400_000);
    expect(made.offer).not.toContain(made.txCode);

    const wrong = made.txCode === '000000' ? '000001' : '000000';
    const refused = await redeem(made.offer, wrong);
    expect(refused.token.status).toBe(400);
    expect(refused.token.body.error).toBe('invalid_grant');
    expect(refused.offer.grants[PRE_AUTH].tx_code).toMatchObject({ input_mode: 'numeric', length: 6 });

    const { metadata, token, form } = await redeem(made.offer, made.txCode);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.token_type).toBe('Bearer');
    expect(metadata.credential_issuer).toBe(`${BASE}/v1/issuers/${a.slug}`);

    // A replayed offer: the code is spent.
    const replay = await json(
      await http(`${BASE}/v1/issuers/${a.slug}/oid4vci/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      }),
    );
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await http(made.credentialOfferUri)).status).toBe(404);

    const holder = await didKeyHolder();
    const hosted = await json(await http(`${BASE}/v1/issuers/${a.slug}/credentials/${id}`));
    const ldp = await requestCredential(
      metadata,
      token.body.access_token,
      'OpenBadgeCredential_ldp_vc',
      await proofJwt(holder, metadata.credential_issuer, await nonce(metadata)),
    );
    expect(ldp.status, JSON.stringify(ldp.body)).toBe(200);
    const credential = ldp.body.credentials[0].credential;
    expect(credential.credentialSubject.id).toBe(holder.did);
    expect(credential.id).toBe(hosted.body.id);
    expect(credential.issuer).toEqual(hosted.body.issuer);
    expect(credential.credentialStatus).toEqual(hosted.body.credentialStatus);
    expect(credential.credentialSubject.identifier).toEqual(hosted.body.credentialSubject.identifier);
    expect(credential.credentialSubject.achievement).toEqual(hosted.body.credentialSubject.achievement);
    const checked = await v.verify(credential, clock.now());
    expect(checked.verified, String(checked.error)).toBe(true);
    expect(checked.revoked).toBe(false);

    const jwt = await requestCredential(
      metadata,
      token.body.access_token,
      'OpenBadgeCredential_jwt_vc_json',
      await proofJwt(holder, metadata.credential_issuer, await nonce(metadata)),
    );
    expect(jwt.status, JSON.stringify(jwt.body)).toBe(200);
    const compact = jwt.body.credentials[0].credential as string;
    const { payload } = await verifyJwt(compact);
    expect(payload.sub).toBe(holder.did);
    expect(payload.iss).toBe(credential.issuer.id);
    expect(payload.jti).toBe(hosted.body.id);
    expect((payload as { credentialSubject: { id: string } }).credentialSubject.id).toBe(holder.did);
    const at = compact.length - 10;
    const tampered = `${compact.slice(0, at)}${compact[at] === 'A' ? 'B' : 'A'}${compact.slice(at + 1)}`;
    await expect(verifyJwt(tampered)).rejects.toThrow();

    // Each format once per access token.
    const again = await requestCredential(
      metadata,
      token.body.access_token,
      'OpenBadgeCredential_ldp_vc',
      await proofJwt(holder, metadata.credential_issuer, await nonce(metadata)),
    );
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_credential_request');
    expect(await issuedToWallets()).toBe(2);

    // Revoking the credential revokes the wallet's copy: it shares the status entry.
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/revoke`,
      headers: auth(a.key),
    });
    expect(revoke.statusCode).toBe(200);
    const after = await v.verify(credential, clock.now());
    expect(after.revoked).toBe(true);
    expect(after.verified).toBe(false);
    expect(decodeJwt(compact).credentialStatus).toEqual(hosted.body.credentialStatus);
  });

  it('accepts a did:jwk holder (ES256)', async () => {
    const made = await makeOffer(await issueOne('wallet:jwk'));
    const { metadata, token } = await redeem(made.offer);
    expect(token.status).toBe(200);
    const holder = await didJwkHolder();
    const res = await requestCredential(
      metadata,
      token.body.access_token,
      'OpenBadgeCredential_ldp_vc',
      await proofJwt(holder, metadata.credential_issuer, await nonce(metadata)),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.credentials[0].credential.credentialSubject.id).toBe(holder.did);
  });

  it('refuses a proof by another key, a stale or replayed nonce, an unknown token and an expired offer, and issues nothing', async () => {
    const before = await issuedToWallets();
    const made = await makeOffer(await issueOne('wallet:refusals'));
    const { metadata, token } = await redeem(made.offer);
    expect(token.status).toBe(200);
    const holder = await didKeyHolder();
    const other = await didKeyHolder();

    const forged = await requestCredential(
      metadata,
      token.body.access_token,
      'OpenBadgeCredential_ldp_vc',
      await proofJwt(holder, metadata.credential_issuer, await nonce(metadata), other.privateKey),
    );
    expect(forged.status).toBe(400);
    expect(forged.body.error).toBe('invalid_proof');

    const used = await nonce(metadata);
    const first = await requestCredential(
      metadata,
      'not-the-token',
      'OpenBadgeCredential_ldp_vc',
      await proofJwt(holder, metadata.credential_issuer, used),
    );
    expect(first.status).toBe(401);
    expect(first.body.error).toBe('invalid_token');

    const stale = await nonce(metadata);
    clock.advance(301_000);
    const late = await requestCredential(
      metadata,
      token.body.access_token,
      'OpenBadgeCredential_ldp_vc',
      await proofJwt(holder, metadata.credential_issuer, stale),
    );
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('invalid_nonce');
    const replayed = await requestCredential(
      metadata,
      token.body.access_token,
      'OpenBadgeCredential_ldp_vc',
      await proofJwt(holder, metadata.credential_issuer, stale),
    );
    expect(replayed.body.error).toBe('invalid_nonce');

    const expiring = await makeOffer(await issueOne('wallet:expiring'));
    clock.advance(30 * 86_400_000 + 1000);
    const expired = await redeem(expiring.offer).catch(() => null);
    expect(expired).toBeNull();
    const code = expiring.credentialOfferUri.split('/').pop() as string;
    const direct = await json(
      await http(`${BASE}/v1/issuers/${a.slug}/oid4vci/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }),
      }),
    );
    expect(direct.status).toBe(400);
    expect(direct.body.error).toBe('invalid_grant');
    expect(await issuedToWallets()).toBe(before);
  });

  it('makes offers only for the issuer’s own credentials, with its key', async () => {
    const id = await issueOne('wallet:scoped');
    const b = await t.issuer({ slug: `wallet-b-${dialect}` });
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/offers`,
      headers: auth(b.key),
      payload: {},
    });
    expect(foreign.statusCode).toBe(404);
    const anonymous = await t.app.inject({ method: 'POST', url: `/api/v1/credentials/${id}/offers`, payload: {} });
    expect(anonymous.statusCode).toBe(401);
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'details'])
      .where('issuer_id', '=', a.id)
      .where('action', '=', 'wallet_offer.created')
      .execute();
    expect(audit.length).toBeGreaterThan(0);
    expect(audit.every((r) => r.actor.startsWith('key:'))).toBe(true);
  });

  it('never writes the email, the name, a code or a token to a log line or an offer', () => {
    const text = logs.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const secret of [EMAIL, EMAIL.toLowerCase(), NAME, '/oid4vci/offers/ey', 'access_token', 'c_nonce']) {
      expect(text).not.toContain(secret);
    }
    const offerUrls = text.match(/oid4vci\/offers\/[^"\s]+/g) ?? [];
    expect(offerUrls.length).toBeGreaterThan(0);
    for (const url of offerUrls) expect(url).toBe('oid4vci/offers/[redacted]');
  });
});
