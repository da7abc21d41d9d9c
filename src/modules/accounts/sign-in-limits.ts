import { normaliseEmail, sha256Hex } from '../../core/hashing.js';
import type { Counter } from '../../core/rate-limit.js';

const WINDOW_MS = 15 * 60_000;
/** Failed sign-ins allowed per account and per client address in a window. */
export const ACCOUNT_FAILURES_MAX = 10;
export const ADDRESS_FAILURES_MAX = 30;

/**
 * Failed sign-ins counted per account (its email's SHA-256, never the address itself) and per client
 * address, over the service's rate-limit counts (shared through Redis when configured). A client
 * over either limit is refused before the password is hashed, so guessing costs it as much as us.
 */
export function createSignInLimits(count: Counter) {
  const keys = (email: string, address: string) => [
    { key: `signin-account:${sha256Hex(normaliseEmail(email))}`, max: ACCOUNT_FAILURES_MAX },
    { key: `signin-ip:${address}`, max: ADDRESS_FAILURES_MAX },
  ];
  return {
    /** Seconds until the attempt may be made, or 0 when it may be made now. */
    async retryAfter(email: string, address: string): Promise<number> {
      let wait = 0;
      for (const { key, max } of keys(email, address)) {
        const seen = await count(key, WINDOW_MS, 0);
        if (seen.current >= max) wait = Math.max(wait, Math.ceil(seen.ttl / 1000));
      }
      return wait;
    },
    async failed(email: string, address: string): Promise<void> {
      for (const { key } of keys(email, address)) await count(key, WINDOW_MS, 1);
    },
  };
}
