import { open, seal } from '../../core/kek.js';
import type { BackpackSecrets } from '../backpack/backpack.secrets.js';

/**
 * The sealed key store's AES-256-GCM (core/kek.ts) under a key derived for sends alone (HKDF from
 * the store's key, the same on every replica), each sealed value bound to its row (`context` as
 * additional data), so a value copied to another row does not open.
 */
export function sendSealer(secrets: Pick<BackpackSecrets, 'derive'>) {
  let key: Buffer | null = null;
  const own = () => {
    key ??= secrets.derive('accolade/obapi/send-seal/v1');
    return key;
  };
  return {
    seal: (value: string, context: string): string => seal(own(), value, context),
    /** The value, or null when it was altered or sealed for another row. */
    open(sealed: string, context: string): string | null {
      try {
        return open(own(), sealed, context);
      } catch {
        return null;
      }
    },
  };
}
