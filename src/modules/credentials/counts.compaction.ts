import type { Core } from '../../core/context.js';
import type { Job } from '../../core/job.js';
import { createCredentialRepository } from './credentials.repository.js';

/**
 * Unfolded count deltas a list total may sum before the list starts a compaction. Summing 500
 * index entries costs well under a millisecond; folding them is one short statement, so the list
 * stays cheap and a compaction runs at most once per ~500 issuance statements of an issuer.
 */
export const COMPACT_AFTER_DELTA_ROWS = 500;

export interface CountCompaction extends Job {
  /** Starts a compaction of the issuer's count deltas unless one runs in this process; never throws. */
  request(issuerId: string): void;
  /** Folds the issuer's deltas now; false when another compaction (in any replica) holds the issuer. */
  compact(issuerId: string): Promise<boolean>;
}

/**
 * PostgreSQL keeps the credentials list's counts as appended deltas (migration 0012), which the
 * list sums. The list itself asks for a compaction once it summed too many: the work then happens
 * only for issuers whose lists are read, in proportion to their issuance, and needs no timer or
 * scan of all issuers. Issuers that never list keep their deltas until their first list.
 *
 * A compaction is one transaction under an advisory lock per issuer: a second compactor (another
 * request, another replica) skips instead of queueing behind it. The fold is correct without the
 * lock too, as deleted deltas cannot be deleted twice; the lock only saves the wasted wait.
 * Requests do not wait for it; a failure is logged and the next list asks again.
 */
export function createCountCompaction(core: Pick<Core, 'db' | 'dialect' | 'log'>): CountCompaction {
  const running = new Map<string, Promise<void>>();
  let stopped = false;

  async function compact(issuerId: string): Promise<boolean> {
    return core.db.transaction().execute(async (trx) => {
      const repo = createCredentialRepository(trx, core.dialect);
      if (!(await repo.tryLockCountFolding(issuerId))) return false;
      await repo.foldCountDeltas(issuerId);
      return true;
    });
  }

  return {
    name: 'credential-count-compaction',
    compact,

    request(issuerId) {
      if (stopped || running.has(issuerId)) return;
      const run = compact(issuerId)
        .then(
          () => undefined,
          (err: unknown) =>
            core.log.warn({ err, issuerId }, 'credential count compaction failed; the next list retries'),
        )
        .finally(() => running.delete(issuerId));
      running.set(issuerId, run);
    },

    start() {
      stopped = false;
    },

    /** Lets running compactions finish, so a shutdown closes the pool only after them. */
    async stop() {
      stopped = true;
      await Promise.all(running.values());
    },
  };
}
