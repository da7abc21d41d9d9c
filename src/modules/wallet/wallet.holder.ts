import type { JwtSigner } from '@openid4vc/oauth2';
import { base64url, type JWK } from 'jose';
import { vcLibraries } from '../vc/libraries.js';

/** An Ed25519 did:key (multicodec 0xed01, base58btc): the only did:key kind a holder may use here. */
const ED25519_DID_KEY = /^did:key:(z6Mk[1-9A-HJ-NP-Za-km-z]{44})(?:#(z6Mk[1-9A-HJ-NP-Za-km-z]{44}))?$/;
/**
 * A did:jwk's method-specific id: the base64url of its JWK (RFC 7517). An Ed25519 or P-256 public
 * key is 100–170 characters; 512 leave room for members such as `use` or `kid`, and bound what
 * goes into `credentialSubject.id` of the credential signed for the holder (issue 48.7).
 */
export const DID_JWK_MAX_ID = 512;
const DID_JWK = new RegExp(`^did:jwk:([A-Za-z0-9_-]{1,${DID_JWK_MAX_ID}})(?:#0)?$`);
/** The base64url length of a 32-byte coordinate: Ed25519's x, P-256's x and y. */
const COORDINATE_LENGTH = 43;
/** Public keys a holder may prove with: Ed25519 (EdDSA) and P-256 (ES256). */
const CURVES = new Set(['Ed25519', 'P-256']);

/** A public JWK of an accepted curve, reduced to its public members; null for anything else. */
function publicOnly(jwk: unknown): JWK | null {
  if (typeof jwk !== 'object' || jwk === null) return null;
  const { kty, crv, x, y, d } = jwk as Record<string, unknown>;
  const coordinate = (value: unknown): value is string =>
    typeof value === 'string' && value.length === COORDINATE_LENGTH;
  if (d !== undefined || typeof crv !== 'string' || !CURVES.has(crv) || !coordinate(x)) return null;
  if (kty === 'OKP' && crv === 'Ed25519') return { kty, crv, x };
  if (kty === 'EC' && crv === 'P-256' && coordinate(y)) return { kty, crv, x, y };
  return null;
}

/** The public key a did:key (Ed25519) or did:jwk URL names; null when it names none this issuer accepts. */
export async function jwkOfDid(didUrl: string): Promise<JWK | null> {
  const key = ED25519_DID_KEY.exec(didUrl);
  if (key?.[1]) {
    if (key[2] !== undefined && key[2] !== key[1]) return null;
    const { multikeyFrom, multikeyToJwk } = await vcLibraries();
    const pair = await multikeyFrom({ type: 'Multikey', publicKeyMultibase: key[1] });
    return publicOnly(await multikeyToJwk({ keyPair: pair }));
  }
  const jwk = DID_JWK.exec(didUrl);
  if (jwk?.[1]) {
    try {
      return publicOnly(JSON.parse(new TextDecoder().decode(base64url.decode(jwk[1]))));
    } catch {
      return null;
    }
  }
  return null;
}

/** The key a proof JWT's header names, for the library's signature check. */
export async function holderJwk(signer: JwtSigner): Promise<JWK | null> {
  if (signer.method === 'did') return jwkOfDid(signer.didUrl);
  if (signer.method === 'jwk') return publicOnly(signer.publicJwk);
  return null;
}

/** The holder's DID: the did:key or did:jwk it proved with, or the did:jwk of a bare jwk. */
export function holderDid(signer: JwtSigner, jwk: JWK): string {
  if (signer.method === 'did') return signer.didUrl.split('#')[0] ?? signer.didUrl;
  return `did:jwk:${base64url.encode(JSON.stringify(jwk))}`;
}
