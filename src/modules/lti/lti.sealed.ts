import type { Clock } from '../../core/clock.js';
import { open, seal } from '../../core/kek.js';

/**
 * Short-lived values the browser carries between the tool's own steps (the login's state and nonce,
 * a verified deep linking request, an instructor's verified launch), sealed with AES-256-GCM under
 * the key-encryption key with their purpose as associated data: the browser can neither read nor
 * forge them, one kind cannot be passed as another, and nothing is written to the database for them.
 */
export function createSealer(kek: () => Buffer, clock: Clock) {
  return {
    seal<T extends object>(purpose: string, value: T, seconds: number): string {
      const body = { ...value, exp: clock.now().getTime() + seconds * 1000 };
      return seal(kek(), JSON.stringify(body), `lti:${purpose}`);
    },
    /** The sealed value, or null when it is not one of `purpose`, was tampered with or has expired. */
    open<T extends object>(purpose: string, sealed: string | undefined): T | null {
      if (!sealed) return null;
      try {
        const value = JSON.parse(open(kek(), sealed, `lti:${purpose}`)) as T & { exp: number };
        return value.exp > clock.now().getTime() ? value : null;
      } catch {
        return null;
      }
    },
  };
}

export type Sealer = ReturnType<typeof createSealer>;
