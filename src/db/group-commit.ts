import { AsyncResource } from 'node:async_hooks';
import { sql } from 'kysely';
import type { Executor } from './types.js';

/** The most pieces of work one shared transaction takes; the rest wait for the next. */
export const GROUP_COMMIT_MAX = 64;

interface Pending {
  work: (trx: Executor) => Promise<unknown>;
  /** The caller's async context, which its work runs in (not the context that opened the batch). */
  context: AsyncResource;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for SQLite, whose one writing connection commits one transaction at a time, each
 * with its own fsync (synchronous = FULL): pieces of work that arrive while a transaction is open
 * or within the same turn of the event loop share the next transaction, and so one fsync. Each runs
 * in a savepoint of its own, so one that throws (a quota refusal) is undone alone and rejects alone;
 * the others are answered only once the shared transaction has committed, so nothing is answered
 * before it is durable. A failed commit rejects them all, and so does an error after which SQLite
 * rolled the whole transaction back itself (SQLITE_FULL, IOERR): with that error, not the failed
 * `rollback to` that follows it, so a full disk still answers 503.
 */
export function createGroupCommit(db: Executor) {
  const queue: Pending[] = [];
  let open = false;

  async function runPiece(trx: Executor, item: Pending, answers: (() => void)[]): Promise<void> {
    await sql`savepoint accolade_group_item`.execute(trx);
    let value: unknown;
    try {
      value = await item.context.runInAsyncScope(() => item.work(trx));
    } catch (err) {
      try {
        await sql`rollback to accolade_group_item`.execute(trx);
        await sql`release accolade_group_item`.execute(trx);
      } catch {
        throw err;
      }
      answers.push(() => item.reject(err));
      return;
    }
    await sql`release accolade_group_item`.execute(trx);
    answers.push(() => item.resolve(value));
  }

  async function commitNext(): Promise<void> {
    const batch = queue.splice(0, GROUP_COMMIT_MAX);
    const answers: (() => void)[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        const [only] = batch;
        if (batch.length === 1 && only) {
          const value = await only.context.runInAsyncScope(() => only.work(trx));
          answers.push(() => only.resolve(value));
          return;
        }
        for (const item of batch) await runPiece(trx, item, answers);
      });
      for (const answer of answers) answer();
    } catch (err) {
      for (const item of batch) item.reject(err);
    } finally {
      for (const item of batch) item.context.emitDestroy();
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
        const context = new AsyncResource('accolade.group-commit');
        queue.push({ work, context, resolve: resolve as (value: unknown) => void, reject });
        start();
      });
    },
  };
}
