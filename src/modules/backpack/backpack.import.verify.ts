import type { DocumentLoader } from '@digitalbazaar/vc';
import ed25519Context from 'ed25519-signature-2020-context';
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { AppError } from '../../core/errors.js';
import { hashRecipientEmail, normaliseEmail } from '../../core/hashing.js';
import { requireJsonLdBudget } from '../../core/jsonld-budget.js';
import { contextDocument } from '../vc/contexts.js';
import { publicJwk } from '../vc/did.js';
import { vcLibraries } from '../vc/libraries.js';
import { type ImportFetch, ImportFetchError } from './backpack.fetch.js';

/** What a verification found: the outcome the backpack shows, and why when it is not `verified`. */
export type ImportStatus = 'verified' | 'expired' | 'revoked' | 'suspended' | 'unverified';

export interface Checked {
  status: ImportStatus;
  reason: string | null;
}

type Json = Record<string, unknown>;

const DID_KEY = /^did:key:(z6Mk[1-9A-HJ-NP-Za-km-z]{44})$/;
const DID_WEB = /^did:web:([^:#/?]+)((?::[^:#/?]+)*)$/;
const STATUS_ENTRY = 'BitstringStatusListEntry';
const STATUS_PURPOSES = new Set(['revocation', 'suspension']);
const extraContexts = new Map<string, object>(ed25519Context.contexts);

/** Thrown inside a check: the import is kept, `unverified`, with this as its reason. */
export class Unverifiable extends Error {
  override name = 'Unverifiable';
}

const asObject = (value: unknown): Json | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
const asArray = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** A fetched document as JSON, measured against the JSON-LD budget before anything else reads it. */
export function parseForeignJson(body: string, what: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Unverifiable(`${what} is not JSON.`);
  }
  const object = asObject(parsed);
  if (!object) throw new Unverifiable(`${what} is not a JSON object.`);
  try {
    requireJsonLdBudget(object);
  } catch (error) {
    if (error instanceof AppError) throw new Unverifiable(`${what} is larger than the backpack checks.`);
    throw error;
  }
  return object;
}

async function fetchJson(fetch: ImportFetch, url: string, what: string, allowGone = false): Promise<Json> {
  const answer = await fetch(url);
  if (answer.status !== 200 && !(allowGone && answer.status === 410)) {
    throw new Unverifiable(`${what} at ${url} answered HTTP ${answer.status}.`);
  }
  return parseForeignJson(answer.body, what);
}

/**
 * The URL of a did:web DID document (did:web method specification §3.2.2 Read): the host (a port
 * percent-encoded), then the path, or `/.well-known`; https, except that with WEBHOOK_ALLOW_PRIVATE
 * (development, tests) a loopback host is read over http.
 */
export function didWebUrl(did: string, allowPrivate: boolean): string | null {
  const match = DID_WEB.exec(did);
  if (!match?.[1]) return null;
  const host = decodeURIComponent(match[1]);
  const path = match[2] ? match[2].slice(1).split(':').map(decodeURIComponent).join('/') : '.well-known';
  const loopback = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
  return `${allowPrivate && loopback ? 'http' : 'https'}://${host}/${path}/did.json`;
}

/** A did:key (Ed25519) as the did:key method specifies it: its one key, usable for assertions. */
function didKeyDocument(did: string, fragment: string | undefined): object | null {
  const key = DID_KEY.exec(did)?.[1];
  if (!key || (fragment !== undefined && fragment !== key)) return null;
  const method = { id: `${did}#${key}`, type: 'Ed25519VerificationKey2020', controller: did, publicKeyMultibase: key };
  if (fragment !== undefined) return { '@context': ed25519Context.CONTEXT_URL, ...method };
  return {
    '@context': ['https://www.w3.org/ns/did/v1', ed25519Context.CONTEXT_URL],
    id: did,
    verificationMethod: [method],
    assertionMethod: [method.id],
  };
}

/**
 * Resolves what verifying a foreign credential needs, and nothing else: the published JSON-LD
 * contexts this service holds (never fetched), did:key from its key, did:web through the guarded
 * fetch (the document's `id` must be the DID), and the status list credentials the credential
 * names. Each fetched document is measured against the JSON-LD budget first.
 */
export function foreignResolver(fetch: ImportFetch, allowPrivate: boolean) {
  const dids = new Map<string, Promise<Json>>();
  const statusLists = new Map<string, Promise<Json>>();

  function didDocument(did: string): Promise<Json> {
    const cached = dids.get(did);
    if (cached) return cached;
    const url = didWebUrl(did, allowPrivate);
    if (!url) return Promise.reject(new Unverifiable(`The DID ${did.slice(0, 120)} cannot be resolved.`));
    const loading = fetchJson(fetch, url, 'The DID document').then((document) => {
      if (document.id !== did) throw new Unverifiable('The DID document names another DID.');
      return document;
    });
    dids.set(did, loading);
    return loading;
  }

  async function resolve(url: string): Promise<object> {
    const known = contextDocument(url) ?? extraContexts.get(url);
    if (known) return known;
    const [did = '', fragment] = url.split('#');
    if (did.startsWith('did:key:')) {
      const document = didKeyDocument(did, fragment);
      if (document) return document;
    } else if (did.startsWith('did:web:')) {
      const document = await didDocument(did);
      if (fragment === undefined) return document;
      const method = asArray(document.verificationMethod)
        .map(asObject)
        .find((m) => m?.id === url || m?.id === `#${fragment}`);
      if (method) return { '@context': document['@context'], ...method, id: url };
    } else {
      const list = statusLists.get(url);
      if (list) return list;
    }
    throw new Unverifiable(`${url.slice(0, 120)} is not a document the backpack resolves.`);
  }

  const loader: DocumentLoader = async (url) => ({ document: await resolve(url), documentUrl: url, contextUrl: null });

  return {
    loader,
    didDocument,
    /** Allows the loader to answer `url`, fetched now: a status list credential the credential names. */
    statusList(url: string): Promise<Json> {
      const cached = statusLists.get(url);
      if (cached) return cached;
      const loading = fetchJson(fetch, url, 'The status list');
      statusLists.set(url, loading);
      return loading;
    },
  };
}

export type ForeignResolver = ReturnType<typeof foreignResolver>;

const issuerIdOf = (credential: Json): string | null => {
  const issuer = credential.issuer;
  const id = typeof issuer === 'string' ? issuer : asObject(issuer)?.id;
  return typeof id === 'string' ? id : null;
};

/** When the proof is checked: now, or the expiry once past, so an expired credential is still found authentic. */
function proofTime(credential: Json, now: Date): Date {
  const until = [credential.validUntil, credential.expirationDate].find((v) => typeof v === 'string');
  const end = typeof until === 'string' ? new Date(until) : null;
  return end && !Number.isNaN(end.getTime()) && end < now ? end : now;
}

/** A credential's proof by Data Integrity (eddsa-rdfc-2022) or Ed25519Signature2020, its key the issuer's. */
async function checkProof(credential: Json, resolver: ForeignResolver, now: Date): Promise<void> {
  const proofs = asArray(credential.proof).map(asObject);
  if (proofs.length === 0) throw new Unverifiable('The credential has no proof.');
  const supported = proofs.some(
    (p) =>
      p?.type === 'Ed25519Signature2020' || (p?.type === 'DataIntegrityProof' && p.cryptosuite === 'eddsa-rdfc-2022'),
  );
  if (!supported) {
    throw new Unverifiable(
      'The credential is signed in a way the backpack does not check (it checks eddsa-rdfc-2022 and Ed25519Signature2020).',
    );
  }
  const [{ verifyCredential, DataIntegrityProof, cryptosuite }, { Ed25519Signature2020 }] = await Promise.all([
    vcLibraries(),
    import('@digitalbazaar/ed25519-signature-2020'),
  ]);
  const result = await verifyCredential({
    credential: structuredClone(credential),
    suite: [new DataIntegrityProof({ cryptosuite }), new Ed25519Signature2020()],
    documentLoader: resolver.loader,
    now: proofTime(credential, now),
    // Status is checked by checkStatus below, with the fetch budget and the JSON-LD budget applied.
    checkStatus: async () => ({ verified: true }),
  }).catch((error: unknown) => ({ verified: false, error }));
  if (!result.verified) throw new Unverifiable(proofFailure(result.error));
}

/** The first reason a library gave, short, or a plain "the signature does not match". */
function proofFailure(error: unknown): string {
  const found: unknown[] = [error];
  for (let i = 0; i < found.length && i < 20; i++) {
    const e = found[i];
    if (e instanceof Unverifiable || e instanceof ImportFetchError) return e.message;
    const object = asObject(e);
    if (!object) continue;
    found.push(...asArray(object.errors), ...asArray(object.cause));
    for (const result of asArray(object.results)) found.push(asObject(result)?.error);
  }
  return 'The signature does not match the credential: it was changed or not signed by its issuer.';
}

/**
 * The credential's status (VC Bitstring Status List v1.0 §3.2 Validate): each BitstringStatusListEntry
 * of purpose revocation or suspension, its list fetched, its proof checked and its issuer the
 * credential's, then the bit at `statusListIndex`. A status of another type cannot be checked.
 */
async function checkStatus(credential: Json, resolver: ForeignResolver, now: Date): Promise<ImportStatus | null> {
  const issuer = issuerIdOf(credential);
  for (const value of asArray(credential.credentialStatus)) {
    const entry = asObject(value);
    if (!entry || entry.type !== STATUS_ENTRY || typeof entry.statusListCredential !== 'string') {
      throw new Unverifiable(
        `The credential's status (${String(entry?.type ?? 'unknown').slice(0, 60)}) cannot be checked.`,
      );
    }
    if (!STATUS_PURPOSES.has(String(entry.statusPurpose))) continue;
    const list = await resolver.statusList(entry.statusListCredential);
    await checkProof(list, resolver, now);
    if (issuerIdOf(list) !== issuer) throw new Unverifiable('The status list is not the credential issuer’s.');
    const subject = asObject(list.credentialSubject);
    if (!subject || subject.statusPurpose !== entry.statusPurpose || typeof subject.encodedList !== 'string') {
      throw new Unverifiable('The status list does not match the credential’s status entry.');
    }
    const index = Number(entry.statusListIndex);
    const { decodeList } = await import('@digitalbazaar/vc-bitstring-status-list');
    const bits = await decodeList({ encodedList: subject.encodedList }).catch(() => null);
    if (!bits || !Number.isInteger(index) || index < 0 || index >= bits.length) {
      throw new Unverifiable('The status list cannot be read at the credential’s index.');
    }
    if (bits.getStatus(index)) return entry.statusPurpose === 'revocation' ? 'revoked' : 'suspended';
  }
  return null;
}

/** Whether an email identity (OB 2.0 IdentityObject, OB 3.0 IdentityObject) is the earner's address. */
export function identityMatches(
  identity: { hashed?: unknown; identity?: unknown; identityHash?: unknown; salt?: unknown },
  address: string,
): boolean {
  const value = identity.identityHash ?? identity.identity;
  if (typeof value !== 'string') return false;
  const salt = typeof identity.salt === 'string' ? identity.salt : '';
  if (identity.hashed === true || value.startsWith('sha256$')) {
    return value.toLowerCase() === `sha256$${hashRecipientEmail(address, salt)}`;
  }
  return normaliseEmail(value) === normaliseEmail(address);
}

/** OB 3.0: the subject's email IdentityObjects (credentialSubject.identifier) name the earner's address. */
function recipientMatches(credential: Json, address: string | null): void {
  if (address === null) throw new Unverifiable('Sign in again so the backpack can check the badge is yours.');
  const subject = asObject(credential.credentialSubject);
  const emails = asArray(subject?.identifier)
    .map(asObject)
    .filter((i): i is Json => i !== null && i.identityType === 'emailAddress');
  if (emails.length === 0) {
    throw new Unverifiable('The credential names its recipient in a way the backpack cannot match to your address.');
  }
  if (!emails.some((i) => identityMatches(i, address))) {
    throw new Unverifiable('The credential was issued to another address than the one you signed in with.');
  }
}

/** validUntil (VC 2.0) or expirationDate (VC 1.1), when it has passed. */
export function credentialExpiry(credential: Json): string | null {
  const value = [credential.validUntil, credential.expirationDate].find((v) => typeof v === 'string');
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : null;
}

/**
 * An Open Badges 3.0 credential given as JSON (VC 1.1 or VC 2.0 shape): proof, recipient, status
 * and validity, in that order; the first failure is the reason it stays unverified.
 */
export async function checkCredential(
  credential: Json,
  resolver: ForeignResolver,
  address: string | null,
  now: Date,
): Promise<Checked> {
  try {
    await checkProof(credential, resolver, now);
    recipientMatches(credential, address);
    const status = await checkStatus(credential, resolver, now);
    if (status) return { status, reason: null };
    const expiry = credentialExpiry(credential);
    if (expiry && expiry <= now.toISOString()) return { status: 'expired', reason: null };
    return { status: 'verified', reason: null };
  } catch (error) {
    return unverified(error);
  }
}

export function unverified(error: unknown): Checked {
  if (error instanceof Unverifiable || error instanceof ImportFetchError) {
    return { status: 'unverified', reason: error.message };
  }
  throw error;
}

/** A DID document's verification method as a JWK: publicKeyJwk, or an Ed25519 Multikey's. */
function methodJwk(method: Json): JWK | null {
  const jwk = asObject(method.publicKeyJwk);
  if (jwk) return jwk as JWK;
  if (typeof method.publicKeyMultibase === 'string') {
    try {
      return publicJwk(method.publicKeyMultibase);
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * An Open Badges 3.0 VC-JWT (OB 3.0 §8.2.4.1 "Verify the signature"): the `kid` is a DID URL of
 * the issuer (`iss` and the credential's issuer), resolved to its key; a key given only in the
 * header (`jwk`) proves nothing of the issuer and is not accepted. Then the credential (the `vc`
 * claim of a VC 1.1 JWT, or the payload itself) is checked for recipient, status and validity.
 */
export async function checkJwt(
  jws: string,
  credential: Json,
  resolver: ForeignResolver,
  address: string | null,
  now: Date,
): Promise<Checked> {
  try {
    const header = decodeProtectedHeader(jws);
    const kid = typeof header.kid === 'string' ? header.kid : '';
    const payload = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as Json;
    const issuer = issuerIdOf(credential);
    const did = kid.split('#')[0] ?? '';
    if (!issuer || did !== issuer || (payload.iss !== undefined && payload.iss !== issuer)) {
      throw new Unverifiable('The token’s key is not one of the credential issuer’s (kid, iss and issuer must agree).');
    }
    if (header.alg !== 'EdDSA' && header.alg !== 'ES256' && header.alg !== 'RS256') {
      throw new Unverifiable(`The token is signed with ${String(header.alg)}, which the backpack does not check.`);
    }
    const method = asObject((await resolver.loader(kid)).document);
    const document = did.startsWith('did:web:') ? await resolver.didDocument(did) : null;
    const assertion = document ? asArray(document.assertionMethod) : [kid];
    const fragment = `#${kid.split('#')[1] ?? ''}`;
    if (!assertion.some((m) => m === kid || m === fragment || asObject(m)?.id === kid)) {
      throw new Unverifiable('The token’s key is not one the issuer uses for assertions.');
    }
    const jwk = method ? methodJwk(method) : null;
    if (!jwk) throw new Unverifiable('The issuer’s key cannot be read.');
    const key = await importJWK(jwk, header.alg).catch(() => null);
    if (!key) throw new Unverifiable('The issuer’s key cannot be read.');
    await compactVerify(jws, key, { algorithms: [header.alg] }).catch(() => {
      throw new Unverifiable('The signature does not match the token: it was changed or not signed by its issuer.');
    });
    recipientMatches(credential, address);
    const status = await checkStatus(credential, resolver, now);
    if (status) return { status, reason: null };
    const exp = typeof payload.exp === 'number' ? new Date(payload.exp * 1000).toISOString() : null;
    const expiry = credentialExpiry(credential) ?? exp;
    if (expiry && expiry <= now.toISOString()) return { status: 'expired', reason: null };
    return { status: 'verified', reason: null };
  } catch (error) {
    return unverified(error);
  }
}
