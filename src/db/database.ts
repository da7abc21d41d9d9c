import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, type MigrationProvider, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { type ChangeFeed, type ChangeFeedLogger, createChangeFeed } from './change-feed.js';
import { poolRetiringTimedOutClients, SqliteDialectKeepingErrors } from './dialect.js';
import { migrationsFor } from './migrations/index.js';
import type { DB } from './schema.js';
import { registerSearchFold } from './search-fold.js';
import { createSqliteChangeFeed } from './sqlite-change-feed.js';
import { SqliteReaderDialect } from './sqlite-reader.js';
import type { Db, Dialect, Executor, Tx } from './types.js';

export type { Db, Dialect, Executor, Tx };

export interface Database {
  db: Db;
  /**
   * For long read-only queries (counts over many rows, reports): on SQLite a worker thread's own
   * read-only connection, so the event loop keeps serving meanwhile; on PostgreSQL the same pool as
   * `db`. Never for transactions, and never for a read that must see an open transaction's writes.
   */
  reader: Db;
  dialect: Dialect;
  /** The feed that keeps this process's read caches exact (src/db/read-cache.ts); not started. */
  changeFeed(log: ChangeFeedLogger): ChangeFeed;
  /** Cheap round trip used by readiness. */
  ping(): Promise<void>;
  /**
   * After personal data was erased: SQLite zeroes freed space itself (secure_delete), and a
   * truncating checkpoint drops the old page images from the WAL. PostgreSQL's autovacuum reclaims
   * dead row versions on its own schedule, so there it does nothing.
   */
  reclaimErased(): Promise<void>;
  close(): Promise<void>;
}

interface Logger {
  error(obj: unknown, msg?: string): void;
}

// pg returns bigint (int8) and numeric as strings; counts here are far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/** How long, and how far apart, an erasure's truncating checkpoint is tried again while SQLite answers busy. */
const TRUNCATE_RETRY_FOR_MS = 1_000;
const TRUNCATE_RETRY_MS = 25;

/** `readerIdleMs`: how long SQLite's reader thread stays without work (src/db/sqlite-reader.ts). */
export function createDatabase(
  config: DatabaseConfig,
  log?: Logger,
  options: { readerIdleMs?: number } = {},
): Database {
  if (config.dialect === 'sqlite') {
    if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
    const handle = new SQLite(config.path);
    handle.pragma('journal_mode = WAL');
    handle.pragma(`synchronous = ${config.synchronous}`);
    handle.pragma('busy_timeout = 5000');
    handle.pragma('foreign_keys = ON');
    handle.pragma('recursive_triggers = ON');
    handle.pragma('secure_delete = ON');
    // The reader thread checkpoints every 250 ms while it runs; this threshold (40 MiB of WAL) is the backstop.
    handle.pragma(`wal_autocheckpoint = ${config.path === ':memory:' ? 1000 : 10_000}`);
    handle.pragma('journal_size_limit = 67108864');
    // A negative cache_size is in KiB (SQLite's default is 2 MiB).
    handle.pragma(`cache_size = -${config.cacheMb * 1024}`);
    registerSearchFold(handle);
    // A private in-memory database has no file another connection could open.
    const readerDialect =
      config.path === ':memory:'
        ? null
        : new SqliteReaderDialect(config.path, config.synchronous, config.cacheMb, options.readerIdleMs);
    // Every write wakes the reader thread, which checkpoints the WAL it grows.
    const db = new Kysely<DB>({
      dialect: new SqliteDialectKeepingErrors(handle, readerDialect ? () => readerDialect.wrote() : undefined),
    });
    const reader = readerDialect ? new Kysely<DB>({ dialect: readerDialect }) : db;
    return {
      db,
      reader,
      dialect: 'sqlite',
      changeFeed: () => createSqliteChangeFeed(handle),
      async ping() {
        handle.prepare('select 1').get();
      },
      async reclaimErased() {
        // SQLite answers busy at once, without waiting, while another connection checkpoints (the
        // reader thread's PASSIVE checkpoint every 250 ms), leaving the erased bytes in the WAL.
        // A reader holding an old snapshot makes it wait busy_timeout first; then it is not tried again.
        const deadline = performance.now() + TRUNCATE_RETRY_FOR_MS;
        for (;;) {
          const [result] = handle.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
          if (result?.busy === 0 || performance.now() >= deadline) return;
          await new Promise((resolve) => setTimeout(resolve, TRUNCATE_RETRY_MS));
        }
      },
      async close() {
        await readerDialect?.close();
        await db.destroy();
      },
    };
  }

  const pool = new pg.Pool({
    connectionString: config.url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
    query_timeout: 20_000,
  });
  // Without a listener an idle client's error (e.g. the server restarting) crashes the process.
  pool.on('error', (err) => log?.error({ err }, 'postgres pool client error'));
  // A checked-out client (a transaction between statements) reports a dropped connection on itself.
  pool.on('connect', (client) => client.on('error', (err) => log?.error({ err }, 'postgres connection lost')));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: poolRetiringTimedOutClients(pool) }) });
  return {
    db,
    reader: db,
    dialect: 'postgres',
    changeFeed: (log) => createChangeFeed({ url: config.url, log }),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async reclaimErased() {},
    async close() {
      await db.destroy();
    },
  };
}

/** Applies every pending forward-only migration; a no-op when the schema is current. */
export async function migrateToLatest(database: Database): Promise<void> {
  const provider: MigrationProvider = {
    getMigrations: async () => migrationsFor(database.dialect),
  };
  // Kysely looks for its bookkeeping tables in every schema unless told which one; name the
  // current schema so databases that share a server (one schema per tenant or test) stay apart.
  const migrationTableSchema =
    database.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db: database.db,
    provider,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (!error && !failed) return;
    if (!failed && attempt < MIGRATE_TRIES && anotherSchemaVanished(error, migrationTableSchema)) continue;
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}

/**
 * Before it migrates, Kysely looks for its bookkeeping tables by reading the columns of every schema
 * on the server, and PostgreSQL's `has_schema_privilege` and `pg_get_serial_sequence` look each schema
 * up again by name as they go: a schema that another client drops during that read (one schema per
 * tenant or test) fails the read with "schema … does not exist" (3F000), naming a schema not ours.
 * Nothing was migrated then, so the migration is simply tried again.
 */
const MIGRATE_TRIES = 3;

function anotherSchemaVanished(error: unknown, own: string | undefined): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '3F000' && typeof message === 'string' && own !== undefined && !message.includes(`"${own}"`);
}
