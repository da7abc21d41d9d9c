import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { BackpackSecrets } from '../backpack/backpack.secrets.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM under a key derived for sends alone (HKDF from the sealed key store, the same on
 * every replica), each sealed value bound to its row (`context` as additional data), so a value
 * copied to another row does not open.
 */
export function sendSealer(secrets: Pick<BackpackSecrets, 'derive'>) {
  let key: Buffer | null = null;
  const own = () => {
    key ??= secrets.derive('accolade/obapi/send-seal/v1');
    return key;
  };
  return {
    seal(value: string, context: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', own(), iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    /** The value, or null when it was altered or sealed for another row. */
    open(sealed: string, context: string): string | null {
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', own(), bytes.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        return null;
      }
    },
  };
}
