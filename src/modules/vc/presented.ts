import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Core } from '../../core/context.js';
import { requireJsonLdBudget } from '../../core/jsonld-budget.js';
import { publicUrls } from '../../core/urls.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { documentLoader, MULTIKEY_V1_CONTEXT } from './contexts.js';
import { vcUrls } from './credential.builder.js';
import { didDocument, issuerDid, verificationMethod, verificationMethodId } from './did.js';
import { vcLibraries } from './libraries.js';
import type { SigningKeyService } from './signing-keys.service.js';

/** Three base64url segments: the shape of a compact JWS. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** A key of an issuer, as its Multikey (`#key-<n>`) or as its JsonWebKey (`#jwk-<n>`, VC-JWTs) method. */
const KID = /^(did:web:[^#]+)#(?:key|jwk)-([1-9][0-9]{0,8})$/;
/**
 * Imported verification keys kept, by `kid`. A key version of an issuer never changes once made
 * (keys are added, never edited or removed, and a slug is never reused), so an entry needs no
 * invalidation; a miss is never kept, so a key made later is found.
 */
const KEY_CACHE_MAX = 1000;

/** True when `input` has the shape of a compact JWS, so verifying it means checking a signature. */
const isCompactJws = (input: string) => COMPACT_JWS.test(input.trim());

export interface PresentedRef {
  issuerSlug: string;
  credentialId: string;
}

/** Reads an id's issuer: a string, or a Profile object with an `id`. */
function issuerIdOf(credential: Record<string, unknown>): unknown {
  const issuer = credential.issuer;
  return issuer !== null && typeof issuer === 'object' ? (issuer as { id?: unknown }).id : issuer;
}

/**
 * Reads Open Badges 3.0 credentials given to verification, as a VC-JWT or as the JSON object with
 * its Data Integrity proof. Either answers for a credential only when its signature checks with a
 * key of the very issuer whose credential URL it names, resolved from this service's database
 * (never fetched). Status and validity then come from the credential's record, which is what the
 * status list and `validUntil` publish. Anything else (another issuer's or a foreign DID, an
 * unknown context, a changed byte or field) is null: the caller answers `unknown`.
 */
export function createPresentedCredentialReader(
  core: Pick<Core, 'config' | 'clock'>,
  deps: { issuers: Pick<IssuerService, 'findIssuerBySlug'>; signingKeys: Pick<SigningKeyService, 'publicKeys'> },
) {
  const prefix = issuerDid(core.config.publicBaseUrl, '');
  const urls = publicUrls(core.config.publicBaseUrl);
  const vc = vcUrls(urls);

  /** The issuer of this service a DID names, with its published keys; null for any other DID. */
  async function localIssuer(did: string) {
    if (!did.startsWith(prefix)) return null;
    const issuer = await deps.issuers.findIssuerBySlug(decodeURIComponent(did.slice(prefix.length)));
    if (!issuer || issuerDid(core.config.publicBaseUrl, issuer.slug) !== did) return null;
    return { slug: issuer.slug, keys: await deps.signingKeys.publicKeys(issuer.id) };
  }

  async function resolveKey(kid: string) {
    const match = KID.exec(kid);
    if (!match?.[1] || !match[2]) return null;
    const issuer = await localIssuer(match[1]);
    const key = issuer?.keys.find((k) => k.version === Number(match[2]));
    if (!issuer || !key) return null;
    const { multikeyFrom, multikeyToJwk } = await vcLibraries();
    const multikey = await multikeyFrom(verificationMethod(match[1], key));
    return { slug: issuer.slug, key: await importJWK(await multikeyToJwk({ keyPair: multikey }), 'EdDSA') };
  }

  type ResolvedKey = Awaited<ReturnType<typeof resolveKey>>;
  const keys = new LRUCache<string, Promise<ResolvedKey>>({ max: KEY_CACHE_MAX });

  /**
   * The issuer and imported key a JWT's `kid` names, or null. Resolved once per `kid` (looking the
   * issuer's keys up and importing one costs about a millisecond): JWTs given together share the
   * lookup in flight, later ones the cached key.
   */
  function keyFor(kid: string): Promise<ResolvedKey> {
    const cached = keys.get(kid);
    if (cached) return cached;
    const resolving = resolveKey(kid).then(
      (resolved) => {
        if (!resolved) keys.delete(kid);
        return resolved;
      },
      (err: unknown) => {
        keys.delete(kid);
        throw err;
      },
    );
    keys.set(kid, resolving);
    return resolving;
  }

  /** The credential id of `url` when it is a credential URL of the issuer `slug`. */
  function credentialIdIn(slug: string, url: unknown): string | null {
    const own = vc.credential(slug, '');
    if (typeof url !== 'string' || !url.startsWith(own)) return null;
    const credentialId = decodeURIComponent(url.slice(own.length));
    return credentialId === '' || credentialId.includes('/') ? null : credentialId;
  }

  /** The published contexts, and the DID documents and keys of this service's issuers: nothing else resolves. */
  const loader = documentLoader(async (url) => {
    const [did = '', fragment] = url.split('#');
    const issuer = await localIssuer(did);
    if (!issuer) return undefined;
    if (fragment === undefined) return didDocument(did, issuer.keys, urls.issuerProfile(issuer.slug));
    const key = issuer.keys.find((k) => verificationMethodId(did, k.version) === url);
    return key ? { '@context': MULTIKEY_V1_CONTEXT, ...verificationMethod(did, key) } : undefined;
  });

  /**
   * When the proof is checked: now, or the credential's `validUntil` once that has passed, so an
   * expired credential is still found authentic and then answered `expired` from its record.
   */
  function proofTime(credential: Record<string, unknown>): Date {
    const now = core.clock.now();
    const until = typeof credential.validUntil === 'string' ? new Date(credential.validUntil) : null;
    return until && until.getTime() < now.getTime() ? until : now;
  }

  return {
    isJwt: isCompactJws,

    async jwt(input: string): Promise<PresentedRef | null> {
      const jws = input.trim();
      if (!isCompactJws(jws)) return null;
      try {
        const { kid, alg } = decodeProtectedHeader(jws);
        if (alg !== 'EdDSA' || typeof kid !== 'string') return null;
        const resolved = await keyFor(kid);
        if (!resolved) return null;
        const { payload } = await compactVerify(jws, resolved.key, { algorithms: ['EdDSA'] });
        const { jti } = JSON.parse(new TextDecoder().decode(payload)) as { jti?: unknown };
        const credentialId = credentialIdIn(resolved.slug, jti);
        return credentialId ? { issuerSlug: resolved.slug, credentialId } : null;
      } catch {
        return null;
      }
    },

    /** A credential as JSON with its Data Integrity proof, checked by @digitalbazaar/vc. */
    async json(credential: Record<string, unknown>): Promise<PresentedRef | null> {
      // Whoever calls, nothing past the JSON-LD budget reaches expansion (400, core/jsonld-budget.ts).
      requireJsonLdBudget(credential);
      const issuerId = issuerIdOf(credential);
      try {
        const issuer = typeof issuerId === 'string' ? await localIssuer(issuerId) : null;
        const credentialId = issuer ? credentialIdIn(issuer.slug, credential.id) : null;
        if (!issuer || !credentialId) return null;
        const { DataIntegrityProof, cryptosuite, verifyCredential } = await vcLibraries();
        const result = await verifyCredential({
          credential: structuredClone(credential),
          suite: new DataIntegrityProof({ cryptosuite }),
          documentLoader: loader,
          now: proofTime(credential),
          // The record answers for revocation below; the proof alone decides authenticity here.
          checkStatus: async () => ({ verified: true }),
        });
        return result.verified ? { issuerSlug: issuer.slug, credentialId } : null;
      } catch {
        return null;
      }
    },
  };
}

export type PresentedCredentialReader = ReturnType<typeof createPresentedCredentialReader>;
