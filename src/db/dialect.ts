import { createHash } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import {
  type Compilable,
  CompiledQuery,
  type DatabaseConnection,
  type Expression,
  type PostgresPool,
  type PostgresPoolClient,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  sql,
} from 'kysely';
import type pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { foldSearchText, SQLITE_FOLD_FUNCTION } from './search-fold.js';
import type { Db, Dialect, Executor } from './types.js';

/*
 * The only place where SQLite and PostgreSQL differ for services and repositories.
 * SQLite serialises every transaction on its single connection, so row locks are unnecessary there.
 */

/**
 * The rows of `rows` (a subquery, in its order) as one JSON array text of objects, each holding
 * `fields` (JSON key → column of `rows`, named `r.<column>`); `[]` when there are none. For reads that
 * bring a row's few children along in the same statement.
 */
/**
 * `column` contains `text`, ignoring case and accents (search-fold.ts) on both engines; `%`, `_`
 * and `\` in `text` are taken literally.
 */
export function foldedContains(dialect: Dialect, column: Expression<string | null>, text: string): RawBuilder<SqlBool> {
  const pattern = `%${foldSearchText(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (dialect === 'postgres') {
    return sql<SqlBool>`lower(regexp_replace(normalize(${column}, NFD), '[\\u0300-\\u036f]', '', 'g')) like ${pattern} escape '\\'`;
  }
  return sql<SqlBool>`${sql.raw(SQLITE_FOLD_FUNCTION)}(${column}) like ${pattern} escape '\\'`;
}

export function jsonRows(
  dialect: Dialect,
  rows: RawBuilder<unknown>,
  fields: Record<string, string>,
): RawBuilder<string> {
  const pairs = sql.join(
    Object.entries(fields).map(([key, column]) => sql`${sql.lit(key)}, ${sql.ref(`r.${column}`)}`),
  );
  return dialect === 'postgres'
    ? sql<string>`(select coalesce(json_agg(json_build_object(${pairs}))::text, '[]') from (${rows}) r)`
    : sql<string>`(select json_group_array(json_object(${pairs})) from (${rows}) r)`;
}

/** The values of one column of `rows` (a subquery, in its order) as a JSON array text; `[]` when none. */
export function jsonValues(dialect: Dialect, rows: RawBuilder<unknown>, column: string): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`(select coalesce(json_agg(${sql.ref(`r.${column}`)})::text, '[]') from (${rows}) r)`
    : sql<string>`(select json_group_array(${sql.ref(`r.${column}`)}) from (${rows}) r)`;
}

/** Adds FOR UPDATE on PostgreSQL; SQLite's single writer already serialises the transaction. */
export function forUpdate<DB, TB extends keyof DB, O>(
  dialect: Dialect,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate() : query;
}

/** Claims rows for a worker: FOR UPDATE SKIP LOCKED on PostgreSQL so several workers never share a row. */
export function forUpdateSkipLocked<DB, TB extends keyof DB, O>(
  dialect: Dialect,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/**
 * Runs `work` in a transaction whose commit does not wait for the disk. Only for data already
 * accepted with a bounded loss window (the buffered verification events): a crash may lose the last
 * few hundred milliseconds, never corrupt.
 * - PostgreSQL: `synchronous_commit = off` for this transaction alone.
 * - SQLite: `synchronous = NORMAL` on the connection for this transaction, held for its duration so
 *   no other transaction runs with it, then the configured level again. In WAL mode a NORMAL commit
 *   skips the fsync and stays consistent; the next FULL commit's fsync makes its frames durable too.
 */
export async function relaxedTransaction<T>(
  db: Db,
  database: DatabaseConfig,
  work: (trx: Executor) => Promise<T>,
): Promise<T> {
  if (database.dialect === 'postgres') {
    return db.transaction().execute(async (trx) => {
      await sql`set local synchronous_commit = off`.execute(trx);
      return work(trx);
    });
  }
  if (database.synchronous === 'NORMAL') return db.transaction().execute(work);
  const level = database.synchronous;
  return db.connection().execute(async (connection) => {
    await sql`pragma synchronous = NORMAL`.execute(connection);
    try {
      return await connection.transaction().execute(work);
    } finally {
      await sql.raw(`pragma synchronous = ${level}`).execute(connection);
    }
  });
}

/**
 * PostgreSQL: rows as `select * from unnest(<column arrays>)`, for `insertInto(...).columns(...)
 * .expression(...)`. One parameter per column whatever the number of rows, so the server parses and
 * plans the statement once, where a multi-row VALUES list grows with every row. Columns are text
 * unless `types` says otherwise.
 */
export function unnestRows<R, K extends keyof R & string>(
  rows: readonly R[],
  columns: readonly K[],
  types: Partial<Record<K, 'int4'>> = {},
) {
  return sql`select * from unnest(${sql.join(
    columns.map((key) => sql`${rows.map((row) => row[key])}::${sql.raw(types[key] ?? 'text')}[]`),
  )})`;
}

/**
 * PostgreSQL: like `unnestRows`, but a column that holds the same value in every row travels once,
 * as one scalar parameter, instead of as an array repeating it row after row. In a batch of
 * credentials or audit records the issuer, definition, dates, source, actor and empty columns are
 * the same on every row: sending them once halves what the client escapes and writes per row.
 */
export function unnestVaryingRows<R, K extends keyof R & string>(
  rows: readonly R[],
  columns: readonly K[],
  types: Partial<Record<K, 'int4'>> = {},
) {
  if (rows.length === 0) return unnestRows(rows, columns, types);
  const first = rows[0] as R;
  const varying = columns.filter((key) => rows.some((row) => row[key] !== first[key]));
  // One array at least gives the number of rows.
  if (varying.length === 0) varying.push(columns[0] as K);
  const type = (key: K) => sql.raw(types[key] ?? 'text');
  const list = columns.map((key) =>
    varying.includes(key) ? sql.ref(`u.${key}`) : sql`${first[key]}::${type(key)} as ${sql.id(key)}`,
  );
  return sql`select ${sql.join(list)} from unnest(${sql.join(
    varying.map((key) => sql`${rows.map((row) => row[key])}::${type(key)}[]`),
  )}) as u(${sql.join(varying.map((key) => sql.id(key)))})`;
}

/**
 * SQLite: the row counts of the statements that write `total` rows, each `most` or a power of two
 * below it (with 500, a remainder of 37 is 32 + 4 + 1). The driver keeps up to 500 prepared
 * statements, and a prepared VALUES statement holds about 90 bytes of C memory per value (0.9 KB a
 * row of ten columns): statements of every count up to 500 would hold about 110 MB (measured by
 * preparing them). These sizes hold about twice `most` rows' worth.
 */
export function sqliteChunkSizes(total: number, most: number): number[] {
  const sizes: number[] = [];
  let left = total;
  while (left >= most) {
    sizes.push(most);
    left -= most;
  }
  for (let size = 2 ** Math.floor(Math.log2(Math.max(1, left))); size >= 1; size /= 2) {
    if (left >= size) {
      sizes.push(size);
      left -= size;
    }
  }
  return sizes;
}

/**
 * SQLite: multi-row VALUES statements of `columns`, at most `most` rows each, whose SQL text is
 * compiled once per row count and then only given parameters. Building a Kysely query from every
 * value of a 500-row chunk and compiling it took about 0.2 s per table of a 50,000-row import.
 * `statement` builds the insert for its template rows (every column null, in `columns` order); the
 * text does not depend on the database, so one set of texts serves every SQLite connection. Rows are
 * split by `sqliteChunkSizes`, so the prepared statements of a table stay few whatever the counts
 * written; run the answered statements in order.
 */
export function valuesStatements<R>(
  columns: readonly (keyof R & string)[],
  most: number,
  statement: (executor: Executor, template: R[]) => Compilable,
) {
  const template = Object.fromEntries(columns.map((column) => [column, null])) as R;
  const texts = new Map<number, string>();
  const compiled = (executor: Executor, rows: readonly R[]): CompiledQuery => {
    let text = texts.get(rows.length);
    if (text === undefined) {
      text = statement(
        executor,
        Array.from({ length: rows.length }, () => template),
      ).compile().sql;
      texts.set(rows.length, text);
    }
    const parameters: unknown[] = [];
    for (const row of rows) for (const column of columns) parameters.push(row[column]);
    return CompiledQuery.raw(text, parameters);
  };
  return (executor: Executor, rows: readonly R[]): CompiledQuery[] => {
    const queries: CompiledQuery[] = [];
    let start = 0;
    for (const size of sqliteChunkSizes(rows.length, most)) {
      queries.push(compiled(executor, rows.slice(start, start + size)));
      start += size;
    }
    return queries;
  };
}

/** Runs `queries` one after another (as `valuesStatements` answers them); answers the rows they return. */
export async function executeAll<O>(executor: Executor, queries: readonly CompiledQuery[]): Promise<O[]> {
  const rows: O[] = [];
  for (const query of queries) rows.push(...(await executor.executeQuery<O>(query)).rows);
  return rows;
}

/** True when the error is a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when the database refused a statement because the table is append-only. */
export function isAppendOnlyRefusal(err: unknown): boolean {
  return err instanceof Error && /is append-only/.test(err.message);
}

/** True for errors meaning the database cannot be reached or is unavailable right now. */
export function isUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; statusCode?: unknown };
  // HTTP-level errors (a client aborting its request: ECONNRESET with a status) are not the database.
  if (typeof e.statusCode === 'number') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08001', '08003'].includes(
      code,
    ) ||
    code === 'SQLITE_BUSY' ||
    code === 'SQLITE_FULL' ||
    code.startsWith('SQLITE_IOERR') ||
    // pg refuses any query on a client whose connection broke, such as the ROLLBACK of a transaction
    // cut by a PostgreSQL restart; that refusal then replaces the error that ended the transaction.
    /timeout exceeded when trying to connect|Connection terminated|Query read timeout|database is locked|Client has encountered a connection error/i.test(
      message,
    )
  );
}

/**
 * SQLite rolls a transaction back by itself after some errors (SQLITE_FULL, IOERR, NOMEM); a second
 * ROLLBACK then fails with "no transaction is active" and would replace the real error (a 500 where
 * a full disk should answer 503). Roll back only what is still open.
 */
class SqliteDriverKeepingErrors extends SqliteDriver {
  constructor(
    private readonly handle: SQLite.Database,
    onWrite: () => void,
  ) {
    super({ database: withStatementCache(handle, onWrite) });
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.handle.inTransaction) await super.rollbackTransaction(connection);
  }
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; compiling SQL is a measurable share of a request's CPU. The
 * same SQL text reuses its prepared statement (better-sqlite3 statements are reusable once a call
 * returns, and Kysely never streams here). Oldest statements leave first when the cache is full.
 * `onWrite` hears of every statement that may change data (SQLite's `sqlite3_stmt_readonly` is false:
 * an INSERT, UPDATE or DELETE, RETURNING or not; BEGIN, COMMIT and reads are read-only), before it runs.
 */
function withStatementCache(handle: SQLite.Database, onWrite: () => void): SqliteDatabase {
  const cache = new Map<string, { statement: SQLite.Statement; writes: boolean }>();
  return {
    close: () => handle.close(),
    prepare(text: string) {
      let cached = cache.get(text);
      if (!cached) {
        const statement = handle.prepare(text);
        cached = { statement, writes: !statement.readonly };
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
        cache.set(text, cached);
      }
      if (cached.writes) onWrite();
      return cached.statement;
    },
  };
}

/** Kysely's SQLite dialect on `handle`, keeping the error that ended a transaction. */
export class SqliteDialectKeepingErrors extends SqliteDialect {
  /** `onWrite`: told before each statement that changes data runs (see withStatementCache). */
  constructor(
    private readonly handle: SQLite.Database,
    private readonly onWrite: () => void = () => {},
  ) {
    super({ database: handle });
  }

  override createDriver(): SqliteDriver {
    return new SqliteDriverKeepingErrors(this.handle, this.onWrite);
  }
}

/** The SQL texts PostgreSQL runs as named prepared statements, and their names. */
const preparedNames = new Map<string, string>();

/**
 * Runs `query` as a named prepared statement on PostgreSQL: each pooled connection parses and plans
 * it once, then only binds parameters. For the hot reads, whose text is compiled once at start-up:
 * the verification join by id went from 7,650 to 30,500 reads/s over a pool of 10 (docs/decisions.md).
 * Every marked text stays prepared on each connection for the connection's life, so mark only a
 * fixed set, never a text built per call (an `in` list of varying length). SQLite needs no mark:
 * its driver reuses a prepared statement for every repeated text.
 */
export function prepared<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  if (!preparedNames.has(query.sql)) {
    preparedNames.set(query.sql, `accolade_${createHash('sha256').update(query.sql).digest('hex').slice(0, 24)}`);
  }
  return query;
}

/**
 * The pg pool as Kysely uses it, running the texts marked `prepared` as named statements and
 * retiring a connection whose query timed out. pg leaves a timed-out query running on its
 * connection and takes the client back as healthy, so every later query on it waited behind the
 * stuck one: a stalled database held requests past the timeouts. After a timeout the client fails
 * further queries at once (a transaction's ROLLBACK too) and is destroyed on release.
 */
export function poolRetiringTimedOutClients(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let timedOut: Error | null = null;
      const query = async (text: string, values: readonly unknown[]) => {
        if (timedOut) throw timedOut;
        const name = preparedNames.get(text);
        try {
          return await (name ? client.query({ name, text, values: [...values] }) : client.query(text, [...values]));
        } catch (err) {
          if (err instanceof Error && err.message === 'Query read timeout') timedOut = err;
          throw err;
        }
      };
      return {
        // Kysely calls the cursor form only when a cursor class is configured; none is.
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(timedOut ?? undefined),
      };
    },
    end: () => pool.end(),
  };
}
