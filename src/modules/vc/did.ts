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

export function verificationMethod(did: string, key: PublicKey): VerificationMethod {
  return {
    id: verificationMethodId(did, key.version),
    type: 'Multikey',
    controller: did,
    publicKeyMultibase: key.publicKeyMultibase,
  };
}

/**
 * The issuer's DID document: every key it ever had (rotation only adds), each as a Multikey usable
 * for assertions; `alsoKnownAs` names the Open Badges 2.0 Issuer Profile of the same issuer.
 */
export function didDocument(did: string, keys: PublicKey[], ob2ProfileUrl: string) {
  const methods = keys.map((key) => verificationMethod(did, key));
  return {
    '@context': [DID_V1_CONTEXT, MULTIKEY_V1_CONTEXT],
    id: did,
    alsoKnownAs: [ob2ProfileUrl],
    verificationMethod: methods,
    assertionMethod: methods.map((m) => m.id),
  };
}
