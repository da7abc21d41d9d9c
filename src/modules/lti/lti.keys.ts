import {
  createPrivateKey,
  generateKeyPair as generateKeyPairCallback,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { keyEncryptionKey, open, seal } from '../../core/kek.js';
import type { LtiRepository } from './lti.repository.js';

const generateKeyPair = promisify(generateKeyPairCallback);

/**
 * How long a replaced key stays in the JWKS. Security Framework 1.0 §6.3 ("Key Rotation") asks that a
 * key set keep a retired key while tokens signed with it may still be checked and platforms refetch
 * on an unknown kid; platforms cache key sets for hours, so a week is a generous margin.
 */
export const RETIRED_KEY_PUBLISHED_MS = 7 * 24 * 60 * 60 * 1000;
const MODULUS_BITS = 2048;
const CACHE_MS = 5 * 60 * 1000;

const sealContext = (kid: string) => `lti_tool_keys:${kid}`;

export interface ToolSigningKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * The tool's RS256 keys (Security Framework 1.0 §6 "Key Management"): one signs deep linking
 * responses and client assertions, every key not retired for more than a week is published at
 * /lti/jwks. The private half is sealed with the signing keys' key-encryption key (core/kek.ts), as
 * the issuers' Ed25519 keys are; the clear key lives only in this process's memory.
 */
export function createToolKeys(
  core: Pick<Core, 'config' | 'clock'>,
  repo: Pick<LtiRepository, 'toolKeys' | 'insertToolKey' | 'retireToolKeys'>,
) {
  let kek: Buffer | null = null;
  const kekOnce = () => {
    kek ??= keyEncryptionKey(core.config);
    return kek;
  };
  let cached: { key: ToolSigningKey; until: number } | null = null;

  async function create(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('rsa', { modulusLength: MODULUS_BITS });
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(publicJwk);
    const privateJwk = privateKey.export({ format: 'jwk' }) as JsonWebKey;
    await repo.insertToolKey({
      kid,
      public_jwk: JSON.stringify({ ...publicJwk, kid, alg: 'RS256', use: 'sig' }),
      private_key_sealed: seal(kekOnce(), JSON.stringify(privateJwk), sealContext(kid)),
      created_at: isoNow(core.clock),
      retired_at: null,
    });
    return kid;
  }

  async function current(): Promise<ToolSigningKey> {
    const now = core.clock.now().getTime();
    if (cached && cached.until > now) return cached.key;
    let row = (await repo.toolKeys()).find((key) => key.retired_at === null);
    if (!row) {
      await create();
      row = (await repo.toolKeys()).find((key) => key.retired_at === null);
    }
    if (!row) throw new Error('no LTI tool key could be made');
    const jwk = JSON.parse(open(kekOnce(), row.private_key_sealed, sealContext(row.kid))) as JsonWebKey;
    const key = { kid: row.kid, privateKey: createPrivateKey({ key: jwk, format: 'jwk' }) };
    cached = { key, until: now + CACHE_MS };
    return key;
  }

  return {
    current,

    /** The public key set: every live key and every key retired less than a week ago. */
    async jwks(): Promise<{ keys: JWK[] }> {
      await current();
      const cutoff = core.clock.now().getTime() - RETIRED_KEY_PUBLISHED_MS;
      const rows = (await repo.toolKeys()).filter(
        (row) => row.retired_at === null || Date.parse(row.retired_at) > cutoff,
      );
      return { keys: rows.map((row) => JSON.parse(row.public_jwk) as JWK) };
    },

    /** A new key signs from now on; the ones it replaces stay published for a week. */
    async rotate(): Promise<{ kid: string; retired: number }> {
      const kid = await create();
      const result = await repo.retireToolKeys(kid, isoNow(core.clock));
      cached = null;
      return { kid, retired: result.reduce((sum, r) => sum + Number(r.numUpdatedRows), 0) };
    },
  };
}

export type ToolKeys = ReturnType<typeof createToolKeys>;
