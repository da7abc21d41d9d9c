import { createServer } from 'node:net';
import { OpenID4VCIClientV1_0_15 } from '@sphereon/oid4vci-client';
import type { Jwt } from '@sphereon/oid4vci-common';
import { base64url, decodeJwt, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logOptions } from '../src/app.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { verifier } from './vc.support.js';

/*
 * Another vendor's wallet library, not the one the issuer is built on: Sphereon's
 * @sphereon/oid4vci-client (OpenID4VCI 1.0), over real HTTP against the server listening on a
 * loopback port that is its public base URL. It resolves the offer by reference, reads both metadata
 * documents, redeems the pre-authorized code with the tx_code, takes a nonce and sends its own jwt
 * proof from a did:jwk holder, once per format. Its @sphereon/ssi-types dependency names a version
 * the registry does not have; package.json overrides it with the nearest published one.
 */

const SECRET = { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function didJwkHolder() {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const { kty, crv, x, y } = await exportJWK(publicKey);
  const jwk = { kty, crv, x, y } as JWK;
  const did = `did:jwk:${base64url.encode(JSON.stringify(jwk))}`;
  const kid = `${did}#0`;
  /** The client builds the proof's header and claims; the holder signs them. */
  const signCallback = async ({ header, payload }: Jwt) =>
    new SignJWT({ ...payload }).setProtectedHeader({ ...header, alg: 'ES256', kid }).sign(privateKey);
  return { did, kid, signCallback };
}

describe.each(dialects)('an independent OpenID4VCI wallet library on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let base: string;
  let definitionId: string;

  async function offer(completionKey: string) {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: 'sphereon@example.test', completionKey },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    const id = issued.json().credentialId as string;
    const made = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/offers`,
      headers: auth(a.key),
      payload: { txCode: true },
    });
    expect(made.statusCode, made.body).toBe(201);
    return { id, ...(made.json() as { offer: string; txCode: string }) };
  }

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { env: { ...SECRET, PUBLIC_BASE_URL: base }, logger: logOptions('error') });
    await t.app.listen({ host: '127.0.0.1', port });
    a = await t.issuer({ slug: `wallet-sphereon-${dialect}`, name: 'Sphereon Academy' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Interoperability', description: 'Works with wallets from other vendors.' },
    });
    definitionId = definition.json().id;
  });
  afterAll(async () => t.close());

  it('completes the pre-authorized flow with a tx_code and receives both formats, bound to its did:jwk', async () => {
    const { id, offer: uri, txCode } = await offer('sphereon:1');
    const client = await OpenID4VCIClientV1_0_15.fromURI({ uri, retrieveServerMetadata: true });
    expect(client.getIssuer()).toBe(`${base}/v1/issuers/${a.slug}`);
    await client.acquireAccessToken({ pin: txCode });
    const holder = await didJwkHolder();
    const request = (credentialConfigurationId: string, format: 'ldp_vc' | 'jwt_vc_json') =>
      client.acquireCredentials({
        credentialConfigurationId,
        format,
        proofCallbacks: { signCallback: holder.signCallback },
        kid: holder.kid,
        alg: 'ES256',
      });

    const ldp = await request('OpenBadgeCredential_ldp_vc', 'ldp_vc');
    const credential = ldp.credentials?.[0]?.credential as Record<string, never>;
    expect(credential.credentialSubject).toMatchObject({ id: holder.did });
    expect(credential.id).toBe(`${base}/v1/issuers/${a.slug}/credentials/${id}`);
    const checked = await verifier(t.app, base).verify(credential, new Date());
    expect(checked.verified, String(checked.error)).toBe(true);

    // A c_nonce proves one request (the client keeps the last one it was given): take a fresh one.
    await client.acquireNonce();
    const jwt = await request('OpenBadgeCredential_jwt_vc_json', 'jwt_vc_json');
    const compact = jwt.credentials?.[0]?.credential as string;
    const claims = decodeJwt(compact);
    expect(claims.sub).toBe(holder.did);
    expect(claims.jti).toBe(credential.id);
  });

  it('is refused the token with a wrong tx_code, and then gets it with the right one', async () => {
    const { offer: uri, txCode } = await offer('sphereon:2');
    const wrong = txCode === '000000' ? '000001' : '000000';
    const refused = await OpenID4VCIClientV1_0_15.fromURI({ uri, retrieveServerMetadata: true });
    await expect(refused.acquireAccessToken({ pin: wrong })).rejects.toThrow(/failed with status: 400/);
    const client = await OpenID4VCIClientV1_0_15.fromURI({ uri, retrieveServerMetadata: true });
    const token = await client.acquireAccessToken({ pin: txCode });
    expect(token.access_token).toBeTruthy();
  });
});
