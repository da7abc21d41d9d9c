import { LRUCache } from 'lru-cache';
import type { Core } from '../../core/context.js';
import type { Counter } from '../../core/rate-limit.js';
import type { AuditService } from '../audit/audit.service.js';
import type { Refusal } from './lti.idtoken.js';

/** Per platform, refused launches are recorded one by one up to this many in a window... */
export const REFUSALS_RECORDED_PER_WINDOW = 5;
/** ...of this length; the rest of the window's refusals become one summary record. */
export const REFUSAL_WINDOW_MS = 10 * 60 * 1000;

interface Window {
  issuerId: string;
  startedAt: number;
  recorded: number;
  suppressed: Partial<Record<Refusal, number>>;
}

/**
 * The audit records of refused launches, bounded whatever an anonymous client sends. A refusal is
 * recorded only when the launch's state cookie named a registered platform (so the rows are that
 * issuer's), and per platform at most REFUSALS_RECORDED_PER_WINDOW of them are recorded one by one in
 * REFUSAL_WINDOW_MS; the others are counted in memory and written as one `lti.launch.refusals`
 * record with their count by reason, at the first refusal after the window or at the next
 * `flush()` (the score sync's pass). Each replica keeps its own windows, so a platform's records are
 * bounded by replicas × (REFUSALS_RECORDED_PER_WINDOW + 1) per window.
 */
export function createRefusalRecords(core: Pick<Core, 'db' | 'clock'>, audit: Pick<AuditService, 'append'>) {
  const windows = new LRUCache<string, Window>({ max: 10_000 });

  async function write(platformId: string, issuerId: string, action: string, details: Record<string, unknown>) {
    await core.db.transaction().execute((trx) =>
      audit.append(trx, {
        issuerId,
        actor: `lti:${platformId}`,
        action,
        targetType: 'lti_platform',
        targetId: platformId,
        details,
      }),
    );
  }

  async function summarise(platformId: string, window: Window) {
    const count = Object.values(window.suppressed).reduce((sum, n) => sum + (n ?? 0), 0);
    if (count === 0) return;
    await write(platformId, window.issuerId, 'lti.launch.refusals', {
      count,
      reasons: window.suppressed,
      from: new Date(window.startedAt).toISOString(),
      to: new Date(window.startedAt + REFUSAL_WINDOW_MS).toISOString(),
    });
  }

  return {
    async record(platform: { id: string; issuerId: string }, reason: Refusal): Promise<void> {
      const now = core.clock.now().getTime();
      let window = windows.get(platform.id);
      if (!window || now - window.startedAt >= REFUSAL_WINDOW_MS) {
        const ended = window;
        window = { issuerId: platform.issuerId, startedAt: now, recorded: 0, suppressed: {} };
        windows.set(platform.id, window);
        if (ended) await summarise(platform.id, ended);
      }
      if (window.recorded < REFUSALS_RECORDED_PER_WINDOW) {
        window.recorded++;
        await write(platform.id, platform.issuerId, 'lti.launch.refused', { reason });
        return;
      }
      window.suppressed[reason] = (window.suppressed[reason] ?? 0) + 1;
    },

    /** Writes the summaries of the windows that have ended, and forgets them. */
    async flush(): Promise<void> {
      const now = core.clock.now().getTime();
      for (const [platformId, window] of [...windows.entries()]) {
        if (now - window.startedAt < REFUSAL_WINDOW_MS) continue;
        windows.delete(platformId);
        await summarise(platformId, window);
      }
    },
  };
}

export type RefusalRecords = ReturnType<typeof createRefusalRecords>;

/** Launches from one client address that may fail in a minute; verified launches are given back. */
export const LAUNCH_FAILURES_PER_ADDRESS = 30;
const ADDRESS_WINDOW_MS = 60_000;

export type LaunchAdmission = { settle(verified: boolean): Promise<void> } | { retryAfterSeconds: number };

/**
 * The price of a launch, paid before any of its work (the platform lookup, a key set fetch, the
 * signature check, a refusal record): each launch is counted against its client address in one
 * atomic increment of the service's rate-limit counts (shared through Redis when configured), and
 * given back once its token verified. So parallel forgeries cannot all pass a check made before any
 * is counted, and a class behind one address is never held back by its own verified launches.
 */
export function createLaunchAdmission(count: Counter) {
  return async (address: string): Promise<LaunchAdmission> => {
    const key = `lti-launch-ip:${address}`;
    const spent = await count(key, ADDRESS_WINDOW_MS, 1);
    if (spent.current > LAUNCH_FAILURES_PER_ADDRESS) {
      return { retryAfterSeconds: Math.max(1, Math.ceil(spent.ttl / 1000)) };
    }
    return {
      async settle(verified) {
        if (verified) await count(key, ADDRESS_WINDOW_MS, -1);
      },
    };
  };
}
