import {
  createPrivateKey,
  generateKeyPair as generateKeyPairCallback,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Core } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { keyEncryptionKey, open, seal } from '../../core/kek.js';
import type { Executor } from '../../db/types.js';
import type { AuditService } from '../audit/audit.service.js';
import type { LtiRepository } from './lti.repository.js';
import type { LtiToolKeysTable } from './lti.tables.js';

const generateKeyPair = promisify(generateKeyPairCallback);

/**
 * How long a replaced key stays in the JWKS. Security Framework 1.0 §6.3 ("Key Rotation"): a key set
 * keeps a retired key while tokens signed with it may still be checked and while platforms hold a
 * cached copy of the set; platforms cache key sets for hours, so a week is a generous margin.
 */
export const RETIRED_KEY_PUBLISHED_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * An issuer's owner rotates at most once in this time. With at most RETIRED_KEPT retired keys kept
 * per holder, a key leaves the set early only after two later rotations, so at least two hours
 * after it stopped signing: far beyond the five minutes a signed assertion or deep linking
 * response lives and the five minutes the JWKS may be cached (its max-age).
 */
export const MIN_ROTATION_INTERVAL_MS = 60 * 60 * 1000;
/** Retired keys published per holder (an issuer, or the service): the set stays small whatever rotates. */
const RETIRED_KEPT = 2;
const MODULUS_BITS = 2048;

const sealContext = (kid: string) => `lti_tool_keys:${kid}`;

export interface ToolSigningKey {
  kid: string;
  privateKey: KeyObject;
}

export interface ToolKeyView {
  kid: string;
  /** `issuer`: this issuer's own key; `service`: the key the service signs with for issuers without one. */
  holder: 'issuer' | 'service';
  signs: boolean;
  createdAt: string;
  retiredAt: string | null;
  /** When a retired key leaves the JWKS (at the latest). */
  publishedUntil: string | null;
}

export interface ToolKeyRotation {
  kid: string;
  createdAt: string;
  retiredKid: string | null;
  retiredPublishedUntil: string | null;
}

/**
 * The tool's RS256 keys (Security Framework 1.0 §6 "Key Management"). The service holds one key that
 * signs deep linking responses and client assertions for every issuer; an issuer whose owner
 * rotates gets a key of its own, which signs for that issuer's platforms only, so one tenant's
 * rotation never changes what another's platforms see. Every live key, and every key retired less
 * than RETIRED_KEY_PUBLISHED_MS ago (at most RETIRED_KEPT per holder), is published at /lti/jwks,
 * the URL every platform was given. The signing key is looked up at each use, so a rotation signs at
 * once on every replica. Private halves are sealed with the signing keys' key-encryption key
 * (core/kek.ts), as the issuers' Ed25519 keys are; the clear key lives only in this process's memory.
 */
export function createToolKeys(
  core: Pick<Core, 'config' | 'clock' | 'log'>,
  repo: Pick<
    LtiRepository,
    'transaction' | 'liveToolKeys' | 'publishedToolKeys' | 'insertToolKey' | 'retireToolKeys' | 'pruneToolKeys'
  >,
  audit: Pick<AuditService, 'append'>,
) {
  let kek: Buffer | null = null;
  const kekOnce = () => {
    kek ??= keyEncryptionKey(core.config);
    return kek;
  };
  const opened = new LRUCache<string, KeyObject>({ max: 1000 });

  async function newKey(issuerId: string | null, at: string): Promise<LtiToolKeysTable> {
    const { privateKey, publicKey } = await generateKeyPair('rsa', { modulusLength: MODULUS_BITS });
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(publicJwk);
    const privateJwk = privateKey.export({ format: 'jwk' }) as JsonWebKey;
    return {
      kid,
      issuer_id: issuerId,
      public_jwk: JSON.stringify({ ...publicJwk, kid, alg: 'RS256', use: 'sig' }),
      private_key_sealed: seal(kekOnce(), JSON.stringify(privateJwk), sealContext(kid)),
      created_at: at,
      retired_at: null,
    };
  }

  async function serviceKey(): Promise<LtiToolKeysTable> {
    const [live] = await repo.liveToolKeys(null);
    if (live) return live;
    const made = await newKey(null, core.clock.now().toISOString());
    await repo.transaction((trx) => repo.insertToolKey(trx, made));
    const [now] = await repo.liveToolKeys(null);
    if (!now) throw new Error('no LTI tool key could be made');
    return now;
  }

  const publishedUntil = (retiredAt: string | null) =>
    retiredAt === null ? null : new Date(Date.parse(retiredAt) + RETIRED_KEY_PUBLISHED_MS).toISOString();

  /** A new key for `issuerId` (null: the service's) that signs from now on; the one it replaces stays published. */
  async function replace(issuerId: string | null, record: (trx: Executor, rotation: ToolKeyRotation) => Promise<void>) {
    const at = core.clock.now().toISOString();
    const made = await newKey(issuerId, at);
    const rotation = await repo.transaction(async (trx) => {
      const [previous] = await repo.liveToolKeys(issuerId, trx);
      await repo.insertToolKey(trx, made);
      await repo.retireToolKeys(trx, issuerId, made.kid, at);
      await repo.pruneToolKeys(trx, issuerId, RETIRED_KEPT);
      const done: ToolKeyRotation = {
        kid: made.kid,
        createdAt: at,
        retiredKid: previous?.kid ?? null,
        retiredPublishedUntil: previous ? publishedUntil(at) : null,
      };
      await record(trx, done);
      return done;
    });
    return rotation;
  }

  return {
    /** The key that signs for `issuerId`'s platforms: its own when it rotated once, else the service's. */
    async current(issuerId: string): Promise<ToolSigningKey> {
      const [own] = await repo.liveToolKeys(issuerId);
      const row = own ?? (await serviceKey());
      let privateKey = opened.get(row.kid);
      if (!privateKey) {
        const jwk = JSON.parse(open(kekOnce(), row.private_key_sealed, sealContext(row.kid))) as JsonWebKey;
        privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
        opened.set(row.kid, privateKey);
      }
      return { kid: row.kid, privateKey };
    },

    /** The public key set: every live key and every key retired within its overlap window. */
    async jwks(): Promise<{ keys: JWK[] }> {
      await serviceKey();
      const cutoff = new Date(core.clock.now().getTime() - RETIRED_KEY_PUBLISHED_MS).toISOString();
      const rows = await repo.publishedToolKeys(cutoff);
      return { keys: rows.map((row) => JSON.parse(row.public_jwk) as JWK) };
    },

    /** The keys that sign or have signed for `issuerId` and are still published. */
    async list(issuerId: string): Promise<ToolKeyView[]> {
      const cutoff = new Date(core.clock.now().getTime() - RETIRED_KEY_PUBLISHED_MS).toISOString();
      const own = (await repo.publishedToolKeys(cutoff)).filter((row) => row.issuer_id === issuerId);
      const live = own.find((row) => row.retired_at === null);
      const rows = live ? own : [await serviceKey(), ...own];
      return rows.map((row) => ({
        kid: row.kid,
        holder: row.issuer_id === null ? 'service' : 'issuer',
        signs: row.retired_at === null,
        createdAt: row.created_at,
        retiredAt: row.retired_at,
        publishedUntil: publishedUntil(row.retired_at),
      }));
    },

    /**
     * The owner's rotation (API and console): `issuerId` gets a new key that signs at once; its
     * previous own key stays published. Refused within MIN_ROTATION_INTERVAL_MS of the last one
     * unless forced (the operator's CLI, after a suspected compromise).
     */
    async rotateForIssuer(
      issuerId: string,
      actor: string,
      options: { force?: boolean } = {},
    ): Promise<ToolKeyRotation> {
      const [live] = await repo.liveToolKeys(issuerId);
      const nextAt = live ? Date.parse(live.created_at) + MIN_ROTATION_INTERVAL_MS : 0;
      if (!options.force && nextAt > core.clock.now().getTime()) {
        throw new AppError(
          'lti_key_rotated_recently',
          `This issuer's LTI key was rotated less than an hour ago; it can be rotated again from ${new Date(nextAt).toISOString()}.`,
          { retryAt: new Date(nextAt).toISOString() },
        );
      }
      return replace(issuerId, (trx, rotation) =>
        audit.append(trx, {
          issuerId,
          actor,
          action: 'lti.tool_key.rotated',
          targetType: 'lti_tool_key',
          targetId: rotation.kid,
          details: { retiredKid: rotation.retiredKid, retiredPublishedUntil: rotation.retiredPublishedUntil },
        }),
      );
    },

    /** The operator's rotation of the service key (CLI): every issuer without its own key signs with the new one. */
    async rotateService(): Promise<ToolKeyRotation> {
      const rotation = await replace(null, async () => undefined);
      core.log.info({ action: 'lti.tool_key.rotated', kid: rotation.kid }, 'LTI service tool key rotated');
      return rotation;
    },
  };
}

export type ToolKeys = ReturnType<typeof createToolKeys>;
