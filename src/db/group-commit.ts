import { sql } from 'kysely';
import type { Executor } from './database.js';

/** The most pieces of work one shared transaction takes; the rest wait for the next. */
export const GROUP_COMMIT_MAX = 64;

interface Pending {
  work: (trx: Executor) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for SQLite, whose one writing connection commits one transaction at a time, each
 * with its own fsync (synchronous = FULL): pieces of work that arrive while a transaction is open
 * or within the same turn of the event loop share the next transaction, and so one fsync. Each runs
 * in a savepoint of its own, so one that throws (a quota refusal) is undone alone and rejects alone;
 * the others are answered only once the shared transaction has committed, so nothing is answered
 * before it is durable. A failed commit rejects them all.
 */
export function createGroupCommit(db: Executor) {
  let queue: Pending[] = [];
  let open = false;

  async function commitNext(): Promise<void> {
    const batch = queue.slice(0, GROUP_COMMIT_MAX);
    queue = queue.slice(batch.length);
    const answers: (() => void)[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        if (batch.length === 1 && batch[0]) {
          const [only] = batch;
          const value = await only.work(trx);
          answers.push(() => only.resolve(value));
          return;
        }
        for (const item of batch) {
          await sql`savepoint accolade_group_item`.execute(trx);
          try {
            const value = await item.work(trx);
            await sql`release accolade_group_item`.execute(trx);
            answers.push(() => item.resolve(value));
          } catch (err) {
            await sql`rollback to accolade_group_item`.execute(trx);
            await sql`release accolade_group_item`.execute(trx);
            answers.push(() => item.reject(err));
          }
        }
      });
      for (const answer of answers) answer();
    } catch (err) {
      for (const item of batch) item.reject(err);
    }
  }

  function start(): void {
    if (open || queue.length === 0) return;
    open = true;
    // A turn of the event loop first: the requests that arrived while the last commit held the
    // thread (its fsync) are read, and join this transaction.
    setImmediate(() => {
      void commitNext().finally(() => {
        open = false;
        start();
      });
    });
  }

  return {
    /** Runs `work` inside the next shared transaction; resolves once that transaction committed. */
    run<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        start();
      });
    },
  };
}
