import { createServer } from 'node:net';
import { SignJWT } from 'jose';
import { expect } from 'vitest';
import { sha256Hex } from '../src/core/hashing.js';
import { issuerDid, verificationMethodId } from '../src/modules/vc/did.js';
import { auth, type TestApp, type TestIssuer } from './helpers.js';

/** Shared set-up of the verification, page and embed suites. */

export async function createDefinition(
  t: TestApp,
  issuer: TestIssuer,
  body: Record<string, unknown> = {},
): Promise<{ id: string; slug: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/definitions',
    headers: auth(issuer.key),
    payload: { name: 'Data Literacy', description: 'Reads and questions data.', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export interface Issued {
  credentialId: string;
  assertionUrl: string;
  verifyUrl: string;
  badgeClassUrl: string;
}

export async function issue(
  t: TestApp,
  issuer: TestIssuer,
  definitionId: string,
  recipient: { email: string; name?: string; key?: string },
): Promise<Issued> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/credentials',
    headers: auth(issuer.key),
    payload: {
      definitionId,
      recipientEmail: recipient.email,
      // Opaque, as a completion key must be: one holding the email is refused.
      completionKey: recipient.key ?? `${sha256Hex(recipient.email).slice(0, 16)}:${definitionId}`,
      ...(recipient.name ? { recipientName: recipient.name } : {}),
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/**
 * A VC-JWT of the credential signed with the issuer's current key, as a wallet holds one: the
 * verify service checks its `kid`, its signature and that `jti` is a credential URL of that issuer.
 */
export async function signedJwt(t: TestApp, issuer: TestIssuer, credentialId: string): Promise<string> {
  const base = t.config.publicBaseUrl;
  const did = issuerDid(base, issuer.slug);
  const key = await t.app.services.vc.signingKeys.current(issuer.id, (v) => verificationMethodId(did, v), did);
  return new SignJWT({ iss: did, jti: `${base}/v1/issuers/${issuer.slug}/credentials/${credentialId}` })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: verificationMethodId(did, key.version) })
    .sign(key.keyObject);
}

/** `jwt` with another payload under its header and signature: its `kid` is real, its signature fails. */
export function forgedJwt(jwt: string, n: number): string {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  return `${header}.${Buffer.from(JSON.stringify({ ...claims, forged: n })).toString('base64url')}.${signature}`;
}

export async function revoke(t: TestApp, issuer: TestIssuer, credentialId: string, reason: string): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/credentials/${credentialId}/revoke`,
    headers: auth(issuer.key),
    payload: { reason },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** A loopback port nobody listens on right now (the app must know its public URL before it listens). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Debian's Chromium, headless. A missing browser fails the suite: these tests are never skipped. */
export { launchChromium } from '../scripts/lib/chromium.js';
