import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../core/clock.js';
import type { PlatformHttp } from './lti.http.js';

/** A platform's key set is kept this long, then fetched again at the next launch. */
const JWKS_FRESH_MS = 10 * 60 * 1000;
/** An unknown kid refetches the key set at most once in this time per platform (bounded refetching). */
const REFETCH_COOLDOWN_MS = 30 * 1000;
/**
 * A key set that could not be fetched (unreachable, not 200, not a JWK Set) is not asked for again
 * in this time: launches naming that platform are refused at once, so a broken or hostile platform
 * cannot make the tool fetch once per launch.
 */
export const JWKS_FAILURE_CACHED_MS = 60 * 1000;
/** Clock skew allowed on exp and iat (Security Framework 1.0 §5.1.3: "some small leeway"). */
export const CLOCK_SKEW_S = 60;
/** An id_token issued longer ago than this is refused, which also bounds how long nonces are kept. */
export const MAX_TOKEN_AGE_S = 10 * 60;

export type Refusal =
  | 'state'
  | 'signature'
  | 'unknown_kid'
  | 'algorithm'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'nonce'
  | 'deployment'
  | 'claims'
  | 'keys_unavailable';

export class LaunchRefused extends Error {
  override name = 'LaunchRefused';
  constructor(
    readonly reason: Refusal,
    message: string,
    /** The platform the refused launch claimed to come from, when it is known (for the audit record). */
    readonly platform: { id: string; issuerId: string } | null = null,
  ) {
    super(message);
  }
}

interface CachedKeys {
  keys: ReturnType<typeof createLocalJWKSet>;
  fetchedAt: number;
}

/**
 * Checks id_tokens as Security Framework 1.0 §5.1.3 ("Authentication Response Validation") lists:
 * the signature against the platform's published keys (RS256 only: `none`, HS256 and every other
 * algorithm are refused before a key is looked up), `iss` equal to the platform's issuer, `aud`
 * holding the tool's client id, `azp` equal to it when present (and present when `aud` names
 * several), `exp` not passed and `iat` recent, each with CLOCK_SKEW_S of leeway. The nonce, the
 * deployment and the LTI claims are the caller's: they need the login's state and the database.
 */
export function createIdTokenVerifier(http: Pick<PlatformHttp, 'getJson'>, clock: Clock) {
  const keySets = new LRUCache<string, CachedKeys>({ max: 1000 });
  /** When each key set last failed to fetch (the negative cache). */
  const failedAt = new LRUCache<string, number>({ max: 1000 });
  /** Fetches under way, shared by the launches that wait for the same key set. */
  const fetching = new Map<string, Promise<CachedKeys>>();
  const unavailable = () => new LaunchRefused('keys_unavailable', "The platform's public keys could not be read.");

  async function fetchOnce(jwksUri: string): Promise<CachedKeys> {
    let set: JSONWebKeySet | null = null;
    try {
      const answer = await http.getJson(jwksUri, 'application/json');
      const json = answer.json as JSONWebKeySet | null;
      if (answer.status === 200 && json && Array.isArray(json.keys)) set = json;
    } catch {
      set = null;
    }
    let keys: CachedKeys['keys'] | null = null;
    try {
      if (set) keys = createLocalJWKSet(set);
    } catch {
      keys = null;
    }
    if (!keys) {
      failedAt.set(jwksUri, clock.now().getTime());
      throw unavailable();
    }
    failedAt.delete(jwksUri);
    const entry = { keys, fetchedAt: clock.now().getTime() };
    keySets.set(jwksUri, entry);
    return entry;
  }

  function fetchKeys(jwksUri: string): Promise<CachedKeys> {
    const failed = failedAt.get(jwksUri);
    if (failed !== undefined && clock.now().getTime() - failed < JWKS_FAILURE_CACHED_MS) {
      return Promise.reject(unavailable());
    }
    let pending = fetching.get(jwksUri);
    if (!pending) {
      pending = fetchOnce(jwksUri).finally(() => fetching.delete(jwksUri));
      fetching.set(jwksUri, pending);
    }
    return pending;
  }

  async function verifyWith(token: string, keys: CachedKeys['keys'], platform: { issuer: string; clientId: string }) {
    return jwtVerify(token, keys, {
      algorithms: ['RS256'],
      issuer: platform.issuer,
      audience: platform.clientId,
      clockTolerance: CLOCK_SKEW_S,
      maxTokenAge: MAX_TOKEN_AGE_S,
      requiredClaims: ['iat', 'exp', 'nonce'],
      currentDate: clock.now(),
    });
  }

  function refusalOf(err: unknown): LaunchRefused {
    if (err instanceof LaunchRefused) return err;
    if (err instanceof joseErrors.JWKSNoMatchingKey)
      return new LaunchRefused('unknown_kid', 'The token names a key the platform does not publish.');
    if (err instanceof joseErrors.JOSEAlgNotAllowed)
      return new LaunchRefused('algorithm', 'The token is not signed with RS256.');
    if (err instanceof joseErrors.JWTExpired) return new LaunchRefused('expired', 'The token has expired.');
    if (err instanceof joseErrors.JWTClaimValidationFailed) {
      if (err.claim === 'iss') return new LaunchRefused('issuer', 'The token comes from another platform.');
      if (err.claim === 'aud') return new LaunchRefused('audience', 'The token is meant for another tool.');
      if (err.claim === 'iat')
        return new LaunchRefused('expired', 'The token was issued too long ago or in the future.');
      return new LaunchRefused('claims', `The token's ${err.claim} claim is missing or wrong.`);
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed)
      return new LaunchRefused('signature', 'The token signature does not verify.');
    return new LaunchRefused('signature', 'The token is not a well-formed signed JWT.');
  }

  return {
    async verify(
      token: string,
      platform: { issuer: string; clientId: string; jwksUri: string },
    ): Promise<JWTPayload & Record<string, unknown>> {
      try {
        const now = clock.now().getTime();
        let cached = keySets.get(platform.jwksUri);
        if (!cached || now - cached.fetchedAt > JWKS_FRESH_MS) cached = await fetchKeys(platform.jwksUri);
        let result: Awaited<ReturnType<typeof verifyWith>>;
        try {
          result = await verifyWith(token, cached.keys, platform);
        } catch (err) {
          // A key the platform added since the set was fetched (Security Framework 1.0 §6.3): fetch
          // again, at most once per cooldown, so forged kids cannot make the tool hammer the platform.
          if (!(err instanceof joseErrors.JWKSNoMatchingKey) || now - cached.fetchedAt < REFETCH_COOLDOWN_MS) throw err;
          result = await verifyWith(token, (await fetchKeys(platform.jwksUri)).keys, platform);
        }
        const { payload } = result;
        const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
        const azp = payload.azp;
        if ((audiences.length > 1 && azp === undefined) || (azp !== undefined && azp !== platform.clientId)) {
          throw new LaunchRefused('audience', 'The token is authorised for another party (azp).');
        }
        return payload as JWTPayload & Record<string, unknown>;
      } catch (err) {
        throw refusalOf(err);
      }
    },
  };
}

export type IdTokenVerifier = ReturnType<typeof createIdTokenVerifier>;
