import type { Compilable, CompiledQuery } from 'kysely';
import type { Dialect, Executor } from './database.js';

/**
 * A query whose SQL text never changes, compiled once per dialect and then run with its parameters.
 * Kysely builds and compiles a query at every call: on SQLite, where the statement itself runs in
 * process, building was about 13 % of a single issuance's CPU across its statements (a profile of
 * 2026-12-01, docs/performance.md). `build` compiles on any executor of the dialect; the parameters
 * given at each call take the places of the ones it was built with, in their order.
 */
export function compiledOnce<R>(build: (db: Executor) => Compilable<R>) {
  const byDialect = new Map<Dialect, CompiledQuery<R>>();
  return async (db: Executor, dialect: Dialect, parameters: readonly unknown[]): Promise<R[]> => {
    let query = byDialect.get(dialect);
    if (!query) {
      query = build(db).compile();
      byDialect.set(dialect, query);
    }
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
