import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { KeyPair } from '@digitalbazaar/ed25519-multikey';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { keyEncryptionKey, open, seal } from '../../core/kek.js';
import type { AuditService } from '../audit/audit.service.js';
import { vcLibraries } from './libraries.js';
import { createSigningKeyRepository, type SigningKeyRow } from './signing-keys.repository.js';

/** A usable signing key: the Multikey pair (Data Integrity) and the same key as a KeyObject (JOSE). */
export interface SigningKey {
  version: number;
  multikey: KeyPair;
  keyObject: KeyObject;
}

type PrivateJwk = JsonWebKey & { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };

const sealContext = (issuerId: string, version: number) => `signing_keys:${issuerId}:${version}`;

/**
 * The issuers' Ed25519 signing keys. A key is made on first need (issuers created before Open
 * Badges 3.0 included) and stored with its private half sealed under the key-encryption key; the
 * clear private key exists only in this process's memory. Rotation adds a version and signs with it
 * from then on; earlier versions stay published so what they signed still verifies.
 */
export function createSigningKeyService(
  core: Pick<Core, 'config' | 'db' | 'dialect' | 'clock'>,
  deps: { audit: Pick<AuditService, 'append'> },
) {
  let kek: Buffer | null = null;
  const kekOnce = () => {
    kek ??= keyEncryptionKey(core.config);
    return kek;
  };
  const unsealed = new Map<string, Promise<SigningKey>>();

  async function newRow(issuerId: string, version: number): Promise<SigningKeyRow> {
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = privateKey.export({ format: 'jwk' }) as PrivateJwk;
    const { multikeyFromJwk } = await vcLibraries();
    const multikey = await multikeyFromJwk({ jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } });
    return {
      issuer_id: issuerId,
      version,
      public_key_multibase: multikey.publicKeyMultibase,
      private_key_sealed: seal(kekOnce(), JSON.stringify(jwk), sealContext(issuerId, version)),
      created_at: isoNow(core.clock),
    };
  }

  async function ensureFirst(issuerId: string): Promise<void> {
    const repo = createSigningKeyRepository(core.db, core.dialect);
    if (await repo.get(issuerId, 1)) return;
    await repo.insert(await newRow(issuerId, 1));
  }

  async function unseal(row: SigningKeyRow, verificationMethodId: string, controller: string): Promise<SigningKey> {
    const jwk = JSON.parse(
      open(kekOnce(), row.private_key_sealed, sealContext(row.issuer_id, row.version)),
    ) as PrivateJwk;
    const { multikeyFromJwk } = await vcLibraries();
    const multikey = await multikeyFromJwk({ jwk, secretKey: true, id: verificationMethodId, controller });
    return { version: row.version, multikey, keyObject: createPrivateKey({ key: jwk, format: 'jwk' }) };
  }

  return {
    /** Every public key of the issuer, oldest first (creating the first on first need). */
    async publicKeys(issuerId: string): Promise<{ version: number; publicKeyMultibase: string }[]> {
      await ensureFirst(issuerId);
      const rows = await createSigningKeyRepository(core.db, core.dialect).list(issuerId);
      return rows.map((r) => ({ version: r.version, publicKeyMultibase: r.public_key_multibase }));
    },

    /** The key new signatures use: the latest version. `methodId` names it in proofs and JWT headers. */
    async current(issuerId: string, methodId: (version: number) => string, controller: string): Promise<SigningKey> {
      await ensureFirst(issuerId);
      const row = await createSigningKeyRepository(core.db, core.dialect).latest(issuerId);
      if (!row) throw new Error('signing key missing after creation');
      const cacheKey = `${issuerId}:${row.version}`;
      let key = unsealed.get(cacheKey);
      if (!key) {
        key = unseal(row, methodId(row.version), controller);
        unsealed.set(cacheKey, key);
        key.catch(() => unsealed.delete(cacheKey));
      }
      return key;
    },

    /** Adds the next key version (audited); returns it. */
    async rotate(issuerId: string, actor: string): Promise<{ version: number; publicKeyMultibase: string }> {
      await ensureFirst(issuerId);
      return core.db.transaction().execute(async (trx) => {
        const repo = createSigningKeyRepository(trx, core.dialect);
        await repo.lockFirst(issuerId);
        const latest = await repo.latest(issuerId);
        const row = await newRow(issuerId, (latest?.version ?? 0) + 1);
        await repo.insert(row);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'signing_key.rotated',
          targetType: 'signing_key',
          targetId: `${issuerId}#key-${row.version}`,
          details: { version: row.version },
        });
        return { version: row.version, publicKeyMultibase: row.public_key_multibase };
      });
    },
  };
}

export type SigningKeyService = ReturnType<typeof createSigningKeyService>;
