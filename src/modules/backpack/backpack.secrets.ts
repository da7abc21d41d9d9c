import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import { normaliseEmail } from '../../core/hashing.js';
import { keyEncryptionKey } from '../../core/kek.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;

/**
 * Keys of the backpack, each derived with HKDF (its own `info`) from the key-encryption key of the
 * sealed key store (SIGNING_KEY_SECRET, or the generated file beside an SQLite database), so every
 * replica derives the same keys and nothing of them is stored.
 */
export function backpackSecrets(config: Pick<Config, 'database' | 'signingKeySecret'>) {
  // Derived at first use: a process that never signs anyone in (the CLI, a worker) needs no secret.
  let root: Buffer | null = null;
  const derive = (info: string) => {
    root ??= keyEncryptionKey(config);
    return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), info, KEY_BYTES));
  };
  let keys: { emailKey: Buffer; linkKey: Buffer } | null = null;
  const own = () => {
    keys ??= {
      emailKey: derive('accolade/backpack/email-hash/v1'),
      linkKey: derive('accolade/backpack/sign-in-link/v1'),
    };
    return keys;
  };
  return {
    /**
     * The account's hash of an address: HMAC-SHA256 under a service key, not any issuer's salted
     * hash, and not guessable from a copy of the database alone (a dictionary of addresses needs the key).
     */
    emailHash: (email: string) => createHmac('sha256', own().emailKey).update(normaliseEmail(email)).digest('hex'),
    /** The address sealed (AES-256-GCM, bound to the link's token) so only the link carries it. */
    sealEmail(email: string, token: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', own().linkKey, iv);
      cipher.setAAD(Buffer.from(token, 'utf8'));
      const body = Buffer.concat([cipher.update(normaliseEmail(email), 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    /** The address of a link, or null when the sealed part was altered or belongs to another token. */
    openEmail(sealed: string, token: string): string | null {
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length <= IV_BYTES + 16) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', own().linkKey, bytes.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(token, 'utf8'));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + 16));
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + 16)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
    derive,
  };
}

export type BackpackSecrets = ReturnType<typeof backpackSecrets>;
