import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { Ed25519VerificationKey2020 } from '@digitalbazaar/ed25519-verification-key-2020';
import { createPresentation, type DocumentLoader, signPresentation } from '@digitalbazaar/vc';
import didContext from 'did-context';
import ed25519Context from 'ed25519-signature-2020-context';

/*
 * A scripted Learner Credential Wallet: what LCW v2.2.10 does with its request link. It makes a
 * did:key (Ed25519), signs a DIDAuthentication presentation (VC 1.1, Ed25519Signature2020, purpose
 * authentication, the link's challenge, no domain) and POSTs it to vc_request_url without an
 * Authorization header; the answer is the credential.
 */

const contexts = new Map<string, object>([...credentialsContexts, ...didContext.contexts, ...ed25519Context.contexts]);

/** The VC 1.1, DID and Ed25519Signature2020 contexts, offline; any other URL is an error. */
export const loader: DocumentLoader = async (url) => {
  const document = contexts.get(url);
  if (!document) throw new Error(`not loaded: ${url}`);
  return { document, documentUrl: url, contextUrl: null };
};

/** The wallet's holder: a fresh Ed25519 did:key and its key. */
export async function didKeyWallet() {
  const key = await Ed25519VerificationKey2020.generate();
  const did = `did:key:${key.fingerprint()}`;
  key.controller = did;
  key.id = `${did}#${key.fingerprint()}`;
  return { did, key };
}

/** The DIDAuthentication presentation of `holder` for `challenge`, signed by `signer`. */
export async function didAuth(
  holder: string,
  signer: Awaited<ReturnType<typeof didKeyWallet>>['key'],
  challenge: string,
) {
  return signPresentation({
    presentation: createPresentation({ holder }),
    suite: new Ed25519Signature2020({ key: signer }),
    challenge,
    documentLoader: loader,
  });
}
