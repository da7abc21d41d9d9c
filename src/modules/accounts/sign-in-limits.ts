import { normaliseEmail, sha256Hex } from '../../core/hashing.js';
import type { Counter } from '../../core/rate-limit.js';

const WINDOW_MS = 15 * 60_000;
/** Sign-ins per client address in a window that failed or are still being checked. */
export const ADDRESS_FAILURES_MAX = 30;
/** Failures an account takes before an address that has failed must wait between its attempts. */
export const ACCOUNT_FREE_FAILURES = 5;
/** That wait starts at one second and doubles with each further failure of the account, up to this. */
export const ACCOUNT_DELAY_MAX_MS = 5 * 60_000;
/** Password checks running at once per account and per address on one server; more are refused, not queued. */
export const CHECKS_IN_FLIGHT_MAX = 2;

/** The wait an account's `failures` impose on an address that has failed, in milliseconds. */
export function accountDelayMs(failures: number): number {
  if (failures < ACCOUNT_FREE_FAILURES) return 0;
  return Math.min(1000 * 2 ** (failures - ACCOUNT_FREE_FAILURES), ACCOUNT_DELAY_MAX_MS);
}

/** An attempt let through to the password check: call exactly one of these once the check is done. */
export interface SignInTicket {
  /** The password matched: the attempt is taken back from both counts. */
  succeeded(): Promise<void>;
  /** It did not: the attempt stays counted. */
  failed(): void;
}

export type Admission = { ticket: SignInTicket } | { retryAfterSeconds: number };

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Sign-in limits over the service's rate-limit counts (shared through Redis when configured). Every
 * attempt is counted before its password is hashed, in one atomic increment per count, and taken
 * back when it succeeds, so parallel guesses cannot all pass a check made before any of them is
 * counted. Accounts are counted by their email's SHA-256, never the address itself.
 * - Per client address: at most ADDRESS_FAILURES_MAX failed (or running) attempts in 15 minutes.
 * - Per account: no lockout. Past ACCOUNT_FREE_FAILURES failures, an address that has itself failed
 *   in the window gets one attempt at the account per delay (1 s, doubling with each failure, at most
 *   ACCOUNT_DELAY_MAX_MS). An address with no failures is never delayed, so guessing at someone's
 *   account cannot keep them out.
 * - Per account and per address, at most CHECKS_IN_FLIGHT_MAX password checks run at once on this
 *   server; further attempts are refused at once rather than queued on the KDF's thread pool.
 */
export function createSignInLimits(count: Counter) {
  const inFlight = new Map<string, number>();

  /** Takes a check slot under each key, all or none; synchronous, so it cannot be raced. */
  function takeSlots(keys: string[]): boolean {
    if (keys.some((key) => (inFlight.get(key) ?? 0) >= CHECKS_IN_FLIGHT_MAX)) return false;
    for (const key of keys) inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    return true;
  }

  function releaseSlots(keys: string[]): void {
    for (const key of keys) {
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else inFlight.delete(key);
    }
  }

  /**
   * Counts the attempt at `account` (its email's hash) from `address`: 0 when it may go on, else the
   * milliseconds to wait (a refused attempt is not left counted).
   */
  async function reserve(account: string, address: string): Promise<number> {
    const addressKey = `signin-ip:${address}`;
    const accountKey = `signin-account:${account}`;
    const byAddress = await count(addressKey, WINDOW_MS, 1);
    if (byAddress.current > ADDRESS_FAILURES_MAX) return byAddress.ttl;
    const byAccount = await count(accountKey, WINDOW_MS, 1);
    const delayMs = accountDelayMs(byAccount.current - 1);
    if (byAddress.current > 1 && delayMs > 0) {
      const gate = await count(`signin-account-gate:${account}`, delayMs, 1);
      if (gate.current > 1) {
        await count(accountKey, WINDOW_MS, -1);
        await count(addressKey, WINDOW_MS, -1);
        return gate.ttl;
      }
    }
    return 0;
  }

  return {
    /** Lets the attempt through to the password check (with its ticket), or says how long to wait. */
    async admit(email: string, address: string): Promise<Admission> {
      const account = sha256Hex(normaliseEmail(email));
      const slots = [`account:${account}`, `address:${address}`];
      if (!takeSlots(slots)) return { retryAfterSeconds: 1 };
      let waitMs: number;
      try {
        waitMs = await reserve(account, address);
      } catch (err) {
        releaseSlots(slots);
        throw err;
      }
      if (waitMs > 0) {
        releaseSlots(slots);
        return { retryAfterSeconds: seconds(waitMs) };
      }
      return {
        ticket: {
          async succeeded() {
            releaseSlots(slots);
            await count(`signin-account:${account}`, WINDOW_MS, -1);
            await count(`signin-ip:${address}`, WINDOW_MS, -1);
          },
          failed() {
            releaseSlots(slots);
          },
        },
      };
    },
  };
}
