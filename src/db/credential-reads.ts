import { type SelectQueryBuilder, sql } from 'kysely';
import { boundText } from './bound-text.js';
import { prepared } from './dialect.js';
import type { DB } from './schema.js';
import type { Dialect, Executor } from './types.js';

/** Ids per `where id in (...)` on SQLite: well under its bound-parameter limit. */
const CHUNK = 500;

/**
 * How the single-id reads run together (`coalescedReads`): at most 4 at once, leaving the rest of
 * the PostgreSQL pool (10) to writes; each takes up to CHUNK waiting ids.
 */
export const CONCURRENT_READS = { maxInFlight: 4, maxKeys: CHUNK };

type Joined<R> = SelectQueryBuilder<DB, 'credentials' | 'issuers' | 'definitions', R>;

/**
 * Rows of `query` (credentials joined with their issuer and definition) by credential id,
 * set-based whatever the ids' number or issuers: one statement on PostgreSQL (the ids as one array
 * parameter), one per CHUNK ids on SQLite. The public reads by credential id (verify, the page, the
 * hosted assertion) are the hottest queries of the service, and on PostgreSQL so is the many-id one
 * (concurrent reads go together): their statements are compiled once, then only given parameters
 * (half the cost of building the query per request), and prepared once per PostgreSQL connection.
 */
export function credentialsByIds<R extends { id: string }>(db: Executor, dialect: Dialect, query: () => Joined<R>) {
  // SQLite: the id as `cast(? as text)`, or each new id plans the join again (`boundText`).
  const id = dialect === 'sqlite' ? boundText('') : '';
  const one = prepared(query().where('credentials.id', '=', id).compile());
  // One parameter, an array, for any number of ids: a single prepared text.
  const many =
    dialect === 'postgres'
      ? prepared(
          query()
            .where(sql<boolean>`${sql.ref('credentials.id')} = any(${sql.val([])}::text[])`)
            .compile(),
        )
      : null;
  return async (ids: readonly string[]): Promise<Map<string, R>> => {
    const unique = [...new Set(ids)];
    const found = new Map<string, R>();
    const add = (rows: readonly R[]) => {
      for (const row of rows) found.set(row.id, row);
    };
    if (unique.length === 1) add((await db.executeQuery<R>({ ...one, parameters: unique })).rows);
    else if (many) add((await db.executeQuery<R>({ ...many, parameters: [unique] })).rows);
    else {
      for (let i = 0; i < unique.length; i += CHUNK) {
        add(
          await query()
            .where('credentials.id', 'in', unique.slice(i, i + CHUNK))
            .execute(),
        );
      }
    }
    return found;
  };
}
