/**
 * How long one client's verifications of one credential (on one channel) count as one: analytics
 * count people verifying, not requests replayed, and a replayed request must not write rows or send
 * `credential.verified` webhooks. Ten minutes covers a page reloaded or a bulk call repeated by a
 * script, and still counts the same person again later in the day (docs/decisions.md).
 */
export const VERIFIER_WINDOW_MS = 10 * 60_000;

/**
 * The most (credential, channel, client) entries remembered. At about 200 bytes an entry this is
 * ~10 MB at worst; past it the entries closest to expiry are forgotten first, so a flood of distinct
 * clients makes coalescing weaker but can never grow memory.
 */
export const VERIFIER_MAX_ENTRIES = 50_000;

export interface RecentVerifiers {
  /** True, and remembered for the window, when `key` was not admitted within the window before `now`. */
  admit(key: string, now: number): boolean;
  readonly size: number;
}

/**
 * A bounded map of key -> end of its window. Entries are (re)inserted when admitted, so the map's
 * insertion order is the order their windows end: expired entries are swept from the front, and the
 * front is what goes first when the map is full.
 */
export function createRecentVerifiers(
  options: { windowMs: number; maxEntries: number } = {
    windowMs: VERIFIER_WINDOW_MS,
    maxEntries: VERIFIER_MAX_ENTRIES,
  },
): RecentVerifiers {
  const until = new Map<string, number>();
  return {
    admit(key, now) {
      for (const [k, end] of until) {
        if (end > now) break;
        until.delete(k);
      }
      const end = until.get(key);
      if (end !== undefined && end > now) return false;
      until.delete(key);
      if (until.size >= options.maxEntries) {
        const oldest = until.keys().next();
        if (!oldest.done) until.delete(oldest.value);
      }
      until.set(key, now + options.windowMs);
      return true;
    },
    get size() {
      return until.size;
    },
  };
}
