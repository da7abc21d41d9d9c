import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { foldSearchText, SQLITE_FOLD_FUNCTION } from './search-fold.js';

/*
 * Long read-only queries on SQLite (a count over an issuer's credentials, a report) run in a worker
 * thread with its own read-only connection. better-sqlite3 is synchronous: on the main thread such a
 * query stops every other request for its whole duration. In WAL mode the worker's reads see every
 * transaction committed before they start, so a read after a write still sees the write.
 *
 * The worker runs only while there is work for it: it starts at the first read or write, and ends
 * once READER_IDLE_MS pass with neither. A worker thread is a whole second JavaScript runtime, about
 * 20 MB of resident memory, which a server answering only hosted documents and verifications (or
 * idle) does not need (issue 48, peak RSS; docs/decisions.md, "The SQLite reader runs while there
 * is work").
 */

/**
 * The worker: one read-only connection, statements prepared once per SQL text, and a second
 * connection that only checkpoints the WAL into the database file every CHECKPOINT_MS. PASSIVE
 * checkpoints wait for no reader or writer, and their writes and fsyncs no longer happen inside
 * whichever commit on the main thread crossed the automatic checkpoint's threshold.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -' + workerData.cacheMb * 1024);
const fold = ${foldSearchText.toString()};
db.function('${SQLITE_FOLD_FUNCTION}', { deterministic: true }, (value) => (typeof value === 'string' ? fold(value) : value));
const checkpointer = new Database(workerData.path, { fileMustExist: true });
checkpointer.pragma('synchronous = ' + workerData.synchronous);
const checkpoints = setInterval(() => {
  try {
    checkpointer.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A busy or full database: the next turn, or the main connection's own threshold, retries.
  }
}, workerData.checkpointMs);
const statements = new Map();
parentPort.on('message', ({ id, sql, parameters, close }) => {
  if (close) {
    clearInterval(checkpoints);
    try {
      checkpointer.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // As above: the main connection's own threshold is the backstop.
    }
    db.close();
    checkpointer.close();
    parentPort.close();
    return;
  }
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statements.size >= 200) statements.delete(statements.keys().next().value);
      statements.set(sql, statement);
    }
    if (!statement.reader) throw new Error('the SQLite reader runs read-only statements only');
    parentPort.postMessage({ id, rows: statement.all(parameters) });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String(err && err.message), code: err && err.code } });
  }
});
`;

interface Reply {
  id: number;
  rows?: unknown[];
  error?: { message: string; code?: string };
}

interface Waiting {
  worker: Worker;
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
}

/** How often the worker checkpoints the WAL. */
const CHECKPOINT_MS = 250;
/** How long a closing worker may take to close its connections before it is ended. */
const CLOSE_TIMEOUT_MS = 5_000;
/**
 * How long the worker stays without a read or a write before it ends. Long beside the checkpoints
 * (the WAL a burst of writes left is in the database file well before), short beside an idle hour;
 * a report after it pays the worker's start, about 30 ms, once.
 */
export const READER_IDLE_MS = 30_000;

/**
 * The worker, started at the first read or write and again after it ended (idle) or died; queries
 * wait in order.
 */
class ReaderThread {
  private worker: Worker | null = null;
  private idleCheck: NodeJS.Timeout | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private lastUse = 0;

  constructor(
    private readonly path: string,
    private readonly synchronous: 'FULL' | 'NORMAL',
    private readonly cacheMb: number,
    private readonly idleMs: number,
  ) {}

  query(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    const worker = this.inUse();
    const id = this.nextId++;
    // Held while a query is out (a CLI command may be waiting on nothing else), let go when idle.
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { worker, resolve, reject });
      worker.postMessage({ id, sql, parameters });
    });
  }

  /** The main connection wrote: the worker checkpoints what it wrote into the database file. */
  wrote(): void {
    this.inUse();
  }

  /** Closes the worker's connections (their files must be free once the database is closed), then ends it. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.stopped(worker);
    if (worker) await closeWorker(worker);
  }

  private inUse(): Worker {
    this.lastUse = performance.now();
    return this.worker ?? this.start();
  }

  /** Ends the worker once it has had nothing to do for `idleMs` (checkpointing first). */
  private endIfIdle(): void {
    const worker = this.worker;
    if (!worker || this.waiting.size > 0 || performance.now() - this.lastUse < this.idleMs) return;
    this.stopped(worker);
    void closeWorker(worker);
  }

  /** `worker` is no longer the one queries go to. */
  private stopped(worker: Worker | null): void {
    if (this.worker !== worker) return;
    this.worker = null;
    if (this.idleCheck) clearInterval(this.idleCheck);
    this.idleCheck = null;
  }

  private start(): Worker {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver,
        path: this.path,
        synchronous: this.synchronous,
        cacheMb: this.cacheMb,
        checkpointMs: CHECKPOINT_MS,
      },
    });
    // Idle, it must not keep the process alive (see query).
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiting = this.waiting.get(reply.id);
      if (!waiting) return;
      this.waiting.delete(reply.id);
      this.lastUse = performance.now();
      // An idle reader must not keep the process alive.
      if (this.waiting.size === 0) worker.unref();
      if (reply.error) waiting.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else waiting.resolve(reply.rows ?? []);
    });
    const fail = (err: Error) => {
      this.stopped(worker);
      for (const [id, waiting] of this.waiting) {
        if (waiting.worker !== worker) continue;
        this.waiting.delete(id);
        waiting.reject(err);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite reader thread exited (code ${code})`)));
    this.worker = worker;
    this.idleCheck = setInterval(() => this.endIfIdle(), Math.min(this.idleMs, READER_IDLE_CHECK_MS));
    this.idleCheck.unref();
    return worker;
  }
}

/** How often a running worker is asked whether it has been idle for long enough to end. */
const READER_IDLE_CHECK_MS = 5_000;

/** Asks `worker` to close its connections and waits for it to end (ends it after CLOSE_TIMEOUT_MS). */
async function closeWorker(worker: Worker): Promise<void> {
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.postMessage({ close: true });
  const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

class ReaderConnection implements DatabaseConnection {
  constructor(private readonly thread: ReaderThread) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: (await this.thread.query(compiled.sql, compiled.parameters)) as R[] };
  }

  // biome-ignore lint/correctness/useYield: Kysely's interface; the reader never streams.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite reader does not stream');
  }
}

class ReaderDriver implements Driver {
  private readonly connection: ReaderConnection;

  constructor(thread: ReaderThread) {
    this.connection = new ReaderConnection(thread);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }

  async beginTransaction(): Promise<void> {
    throw new Error('the SQLite reader is read-only: run transactions on the main connection');
  }

  async commitTransaction(): Promise<void> {}

  async rollbackTransaction(): Promise<void> {}

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {}
}

/** A Kysely dialect whose queries run on a read-only connection in a worker thread. */
export class SqliteReaderDialect implements Dialect {
  private readonly thread: ReaderThread;

  /**
   * `cacheMb`: the read-only connection's page cache, as the main connection's (SQLITE_CACHE_MB).
   * `idleMs`: how long the worker stays without work (READER_IDLE_MS).
   */
  constructor(path: string, synchronous: 'FULL' | 'NORMAL', cacheMb: number, idleMs = READER_IDLE_MS) {
    this.thread = new ReaderThread(path, synchronous, cacheMb, idleMs);
  }

  /**
   * Ends the worker after closing its connections. Kysely's `destroy` cannot do it: it skips a
   * driver that never ran a query, and the worker may run (checkpointing) after writes alone.
   */
  close(): Promise<void> {
    return this.thread.close();
  }

  /** The main connection wrote (the worker, started if it is not running, checkpoints it). */
  wrote(): void {
    this.thread.wrote();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    return new ReaderDriver(this.thread);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
