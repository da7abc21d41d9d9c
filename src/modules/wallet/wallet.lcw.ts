import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import type { DocumentLoader } from '@digitalbazaar/vc';
import didContext from 'did-context';
import ed25519Context from 'ed25519-signature-2020-context';
import { loadedOnce } from '../../core/loaded-once.js';

/** The Learner Credential Wallet's request link and its app deep link (same query). */
export interface LcwLinks {
  url: string;
  deepLink: string;
}

/**
 * The link LCW (v2.2.10) reads: the issuer, `auth_type=bearer`, the challenge its DIDAuthentication
 * presentation signs, and the exchange URL it POSTs that presentation to.
 */
export function lcwLinks(issuerUrl: string, challenge: string): LcwLinks {
  const query = new URLSearchParams({
    issuer: issuerUrl,
    auth_type: 'bearer',
    challenge,
    vc_request_url: `${issuerUrl}/lcw/exchanges/${challenge}`,
  }).toString();
  return { url: `https://lcw.app/request.html?${query}`, deepLink: `dccrequest://request?${query}` };
}

const ED25519_DID_KEY = /^did:key:(z6Mk[1-9A-HJ-NP-Za-km-z]{44})$/;
const contexts = new Map<string, object>([...credentialsContexts, ...didContext.contexts, ...ed25519Context.contexts]);

/**
 * The published contexts, and a did:key (Ed25519) resolved from the key it names, as the did:key
 * method specifies: its one key authenticates for it. Nothing else is fetched.
 */
const documentLoader: DocumentLoader = async (url) => {
  const known = contexts.get(url);
  if (known) return { document: known, documentUrl: url, contextUrl: null };
  const [did = '', fragment] = url.split('#');
  const key = ED25519_DID_KEY.exec(did)?.[1];
  if (!key || (fragment !== undefined && fragment !== key)) throw new Error('only did:key (Ed25519) is resolved');
  const method = {
    id: `${did}#${key}`,
    type: 'Ed25519VerificationKey2020',
    controller: did,
    publicKeyMultibase: key,
  };
  const document =
    fragment === undefined
      ? {
          '@context': [didContext.CONTEXT_URL, ed25519Context.CONTEXT_URL],
          id: did,
          verificationMethod: [method],
          authentication: [method.id],
          assertionMethod: [method.id],
        }
      : { '@context': ed25519Context.CONTEXT_URL, ...method };
  return { document, documentUrl: url, contextUrl: null };
};

const libraries = loadedOnce(async () => {
  const [vc, suite] = await Promise.all([import('@digitalbazaar/vc'), import('@digitalbazaar/ed25519-signature-2020')]);
  return { verify: vc.verify, Ed25519Signature2020: suite.Ed25519Signature2020 };
});

export interface DidAuthPresentation {
  holder?: unknown;
  proof?: unknown;
}

/**
 * The holder's DID when `presentation` is a DIDAuthentication LCW sends: an Ed25519Signature2020
 * proof for `authentication` over `challenge`, by a key of the presentation's own holder (a did:key).
 * Null when anything is off. The signer being the holder is checked here: a valid signature by some
 * other DID over the challenge proves nothing about the holder named.
 */
export async function didAuthHolder(presentation: DidAuthPresentation, challenge: string): Promise<string | null> {
  const holder = typeof presentation.holder === 'string' ? presentation.holder : null;
  if (!holder || !ED25519_DID_KEY.test(holder)) return null;
  const proofs = Array.isArray(presentation.proof) ? presentation.proof : [presentation.proof];
  if (proofs.length !== 1) return null;
  const proof = proofs[0] as { type?: unknown; verificationMethod?: unknown; proofPurpose?: unknown } | undefined;
  if (proof?.type !== 'Ed25519Signature2020' || proof.proofPurpose !== 'authentication') return null;
  if (typeof proof.verificationMethod !== 'string' || proof.verificationMethod.split('#')[0] !== holder) return null;
  const { verify, Ed25519Signature2020 } = await libraries();
  const result = await verify({
    presentation,
    challenge,
    suite: new Ed25519Signature2020(),
    documentLoader,
  }).catch(() => ({ verified: false }));
  return result.verified ? holder : null;
}
