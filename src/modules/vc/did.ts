import { DID_V1_CONTEXT, MULTIKEY_V1_CONTEXT } from './contexts.js';

const DID_WEB = 'did:web:';

/**
 * The did:web of an issuer: the public origin (a port percent-encoded, as did:web requires) and the
 * path of the issuer's documents, so it resolves to `<base>/v1/issuers/<slug>/did.json`.
 */
export function issuerDid(publicBaseUrl: string, slug: string): string {
  const origin = new URL(publicBaseUrl);
  return `${DID_WEB}${encodeURIComponent(origin.host)}:v1:issuers:${encodeURIComponent(slug)}`;
}

/** The URL a did:web of this shape resolves to; null for any other DID. */
export function didDocumentUrl(did: string): string | null {
  if (!did.startsWith(DID_WEB)) return null;
  const [host, ...path] = did.slice(DID_WEB.length).split(':');
  if (!host || path.length === 0) return null;
  return `https://${decodeURIComponent(host)}/${path.map(decodeURIComponent).join('/')}/did.json`;
}

export const verificationMethodId = (did: string, version: number) => `${did}#key-${version}`;

/** The same key as a `JsonWebKey` verification method: a VC-JWT's `kid`, which OB 3.0 §8.2 dereferences to a JWK. */
export const jwkMethodId = (did: string, version: number) => `${did}#jwk-${version}`;

/** The JSON-LD context that defines `JsonWebKey` and `publicKeyJwk` (W3C security vocabulary). */
export const JWK_V1_CONTEXT = 'https://w3id.org/security/jwk/v1';

const BASE58_BTC = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** The two-byte multicodec header of an Ed25519 public key (0xed, varint-encoded). */
const ED25519_PUB_HEADER = [0xed, 0x01];

/** The public JWK of an Ed25519 Multikey (`z` + base58btc of the multicodec header and the 32 key bytes). */
export function publicJwk(publicKeyMultibase: string): { kty: 'OKP'; crv: 'Ed25519'; x: string } {
  if (!publicKeyMultibase.startsWith('z')) throw new Error('not a base58btc multibase key');
  let value = 0n;
  for (const char of publicKeyMultibase.slice(1)) {
    const digit = BASE58_BTC.indexOf(char);
    if (digit < 0) throw new Error('not a base58btc multibase key');
    value = value * 58n + BigInt(digit);
  }
  const bytes = Buffer.from(value.toString(16).padStart(68, '0'), 'hex');
  if (bytes.length !== 34 || bytes[0] !== ED25519_PUB_HEADER[0] || bytes[1] !== ED25519_PUB_HEADER[1]) {
    throw new Error('not an Ed25519 Multikey');
  }
  return { kty: 'OKP', crv: 'Ed25519', x: bytes.subarray(2).toString('base64url') };
}

export interface PublicKey {
  version: number;
  publicKeyMultibase: string;
}

export interface VerificationMethod {
  id: string;
  type: 'Multikey';
  controller: string;
  publicKeyMultibase: string;
}

export interface JwkVerificationMethod {
  id: string;
  type: 'JsonWebKey';
  controller: string;
  publicKeyJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
}

export function jwkVerificationMethod(did: string, key: PublicKey): JwkVerificationMethod {
  return {
    id: jwkMethodId(did, key.version),
    type: 'JsonWebKey',
    controller: did,
    publicKeyJwk: publicJwk(key.publicKeyMultibase),
  };
}

export function verificationMethod(did: string, key: PublicKey): VerificationMethod {
  return {
    id: verificationMethodId(did, key.version),
    type: 'Multikey',
    controller: did,
    publicKeyMultibase: key.publicKeyMultibase,
  };
}

/**
 * The issuer's DID document: every key it ever had (rotation only adds), each twice, usable for
 * assertions: as a Multikey (`#key-<n>`, Data Integrity proofs) and as a JsonWebKey (`#jwk-<n>`,
 * the `kid` of VC-JWTs); `alsoKnownAs` names the Open Badges 2.0 Issuer Profile of the same issuer.
 */
export function didDocument(did: string, keys: PublicKey[], ob2ProfileUrl: string) {
  const methods = [
    ...keys.map((key) => verificationMethod(did, key)),
    ...keys.map((key) => jwkVerificationMethod(did, key)),
  ];
  return {
    '@context': [DID_V1_CONTEXT, MULTIKEY_V1_CONTEXT, JWK_V1_CONTEXT],
    id: did,
    alsoKnownAs: [ob2ProfileUrl],
    verificationMethod: methods,
    assertionMethod: methods.map((m) => m.id),
  };
}
