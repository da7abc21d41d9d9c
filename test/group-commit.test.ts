import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database, type Executor } from '../src/db/database.js';
import { createGroupCommit, GROUP_COMMIT_MAX } from '../src/db/group-commit.js';
import { freshDatabase, type TestDatabase, testConfig } from './helpers.js';

/** The shared transaction of SQLite's single issuances (src/db/group-commit.ts). */
describe('group commit on SQLite', () => {
  let testDb: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    testDb = await freshDatabase('sqlite');
    database = createDatabase(testConfig(testDb.url).database);
    await sql`create table group_items (n integer primary key)`.execute(database.db);
  });
  afterAll(async () => {
    await database.close();
    await testDb.drop();
  });
  beforeEach(async () => {
    vi.restoreAllMocks();
    await sql`delete from group_items`.execute(database.db);
  });

  const insert = (n: number) => async (trx: Executor) => {
    await sql`insert into group_items (n) values (${n})`.execute(trx);
    return n;
  };
  const stored = async () =>
    (await sql<{ n: number }>`select n from group_items order by n`.execute(database.db)).rows.map((r) => r.n);

  it('runs work that arrives together in one transaction, and answers each its own value', async () => {
    const transactions = vi.spyOn(database.db, 'transaction');
    const group = createGroupCommit(database.db);
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => group.run(insert(n))))).toEqual([1, 2, 3, 4, 5]);
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(await stored()).toEqual([1, 2, 3, 4, 5]);
  });

  it('undoes and rejects only the work that threw', async () => {
    const group = createGroupCommit(database.db);
    const refused = new Error('quota');
    const results = await Promise.allSettled([
      group.run(insert(1)),
      group.run(async (trx) => {
        await insert(2)(trx);
        throw refused;
      }),
      group.run(insert(3)),
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: refused },
      { status: 'fulfilled', value: 3 },
    ]);
    expect(await stored()).toEqual([1, 3]);
  });

  it('takes at most GROUP_COMMIT_MAX pieces a transaction, and what arrives meanwhile joins the next', async () => {
    const transactions = vi.spyOn(database.db, 'transaction');
    const group = createGroupCommit(database.db);
    const first = Array.from({ length: GROUP_COMMIT_MAX + 1 }, (_, n) => group.run(insert(n)));
    const late = group.run(insert(1_000));
    await Promise.all([...first, late]);
    expect(transactions).toHaveBeenCalledTimes(2);
    expect((await stored()).length).toBe(GROUP_COMMIT_MAX + 2);
  });

  it('gives what arrives while a transaction is open to the next one', async () => {
    const transactions = vi.spyOn(database.db, 'transaction');
    const group = createGroupCommit(database.db);
    let late: Promise<number> | undefined;
    await group.run(async (trx) => {
      late = group.run(insert(2));
      return insert(1)(trx);
    });
    expect(await late).toBe(2);
    expect(transactions).toHaveBeenCalledTimes(2);
    expect(await stored()).toEqual([1, 2]);
  });

  it('runs each piece in the async context of its own caller', async () => {
    const requests = new AsyncLocalStorage<string>();
    const group = createGroupCommit(database.db);
    const seen = await Promise.all(
      ['first', 'second', 'third'].map((name) => requests.run(name, () => group.run(async () => requests.getStore()))),
    );
    expect(seen).toEqual(['first', 'second', 'third']);
  });

  it('rejects every piece with the error after which SQLite rolled the whole transaction back', async () => {
    const group = createGroupCommit(database.db);
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const results = await Promise.allSettled([
      group.run(insert(1)),
      group.run(async (trx) => {
        await sql`rollback`.execute(trx);
        throw full;
      }),
      group.run(insert(3)),
    ]);
    expect(results).toEqual([
      { status: 'rejected', reason: full },
      { status: 'rejected', reason: full },
      { status: 'rejected', reason: full },
    ]);
    expect(await stored()).toEqual([]);
    expect(await group.run(insert(4))).toBe(4);
  });

  it('rejects every piece when the shared transaction fails to commit, and answers none before', async () => {
    const failure = new Error('disk I/O error');
    const real = database.db.transaction.bind(database.db);
    vi.spyOn(database.db, 'transaction').mockImplementationOnce(() => {
      const builder = real();
      return Object.assign(Object.create(builder), {
        execute: async <T>(work: (trx: Executor) => Promise<T>) => {
          await builder.execute(async (trx) => {
            await work(trx);
            throw failure;
          });
        },
      });
    });
    const group = createGroupCommit(database.db);
    const results = await Promise.allSettled([group.run(insert(1)), group.run(insert(2))]);
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
    expect(await stored()).toEqual([]);
  });
});
