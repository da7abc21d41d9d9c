import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { isUnavailable, sqliteChunkSizes, valuesStatements } from '../src/db/dialect.js';

describe('database availability errors', () => {
  it.each([
    'SQLITE_FULL',
    'SQLITE_BUSY',
    'SQLITE_IOERR',
    'SQLITE_IOERR_WRITE',
    'SQLITE_IOERR_FSYNC',
    '57P01',
    'ECONNREFUSED',
  ])('treats %s as the database being unavailable (503), not a 500', (code) => {
    expect(isUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
  });

  it('treats a pg client whose connection broke (a ROLLBACK after a restart) as unavailable', () => {
    expect(isUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
  });

  it('leaves constraint errors and HTTP-level errors alone', () => {
    expect(isUnavailable(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }))).toBe(false);
    expect(isUnavailable(Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 }))).toBe(false);
  });
});

describe('SQLite VALUES statement sizes', () => {
  it.each([250, 500, 1_000])('split any count into statements of %i rows or a power of two', (most) => {
    const used = new Set<number>();
    for (let total = 0; total <= 2_500; total++) {
      const sizes = sqliteChunkSizes(total, most);
      expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(total);
      for (const size of sizes) used.add(size);
    }
    const powers = Array.from({ length: Math.ceil(Math.log2(most)) }, (_, k) => 2 ** k);
    expect([...used].sort((a, b) => a - b)).toEqual([...powers, most]);
  });

  it('answers one statement per size, with the values of the rows in order', () => {
    // Compiles only: the dialect's driver is never asked for a connection.
    const db = new Kysely<{ t: { a: number; b: string } }>({
      dialect: new SqliteDialect({
        database: async () => {
          throw new Error('unused');
        },
      }),
    });
    const insert = valuesStatements<{ a: number; b: string }>(['a', 'b'], 500, (executor, template) =>
      (executor as unknown as typeof db).insertInto('t').values(template),
    );
    const rows = Array.from({ length: 537 }, (_, n) => ({ a: n, b: `b${n}` }));
    const queries = insert(db as never, rows);
    expect(queries.map((query) => query.parameters.length / 2)).toEqual([500, 32, 4, 1]);
    expect(queries.flatMap((query) => query.parameters)).toEqual(rows.flatMap((row) => [row.a, row.b]));
    expect(queries[3]?.sql).toBe('insert into "t" ("a", "b") values (?, ?)');
  });
});
