import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_CACHE_MB_DEFAULT } from '../src/config.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { createTestApp, type TestApp, type TestIssuer } from './helpers.js';

/** This process's open files under `dir` (Linux). */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(dir));
}

/** A read that keeps SQLite busy for a while: a recursive count to five million. */
const SLOW_COUNT = sql<{ n: number }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000000)
  select count(*) as n from c`;

describe('the SQLite reader thread', () => {
  let t: TestApp;
  let a: TestIssuer;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    a = await t.issuer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is a connection of its own, apart from the main one', () => {
    expect(t.database.reader).not.toBe(t.database.db);
  });

  it('sees every write committed on the main connection before the read', async () => {
    const auth = { authorization: `Bearer ${a.key}` };
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth,
      payload: { name: 'Reader Badge', description: 'Read back at once' },
    });
    for (let i = 0; i < 3; i++) {
      const issued = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth,
        payload: {
          definitionId: definition.json().id,
          recipientEmail: `r${i}@reader.example`,
          completionKey: `r-${i}`,
        },
      });
      expect(issued.statusCode).toBe(201);
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/credentials?limit=1', headers: auth });
      expect(list.json().total).toBe(i + 1);
      expect(list.json().items[0].id).toBe(issued.json().credentialId);
    }
  });

  it('keeps the event loop turning while a long read runs', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    const started = performance.now();
    const { rows } = await SLOW_COUNT.execute(t.database.reader);
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    expect(Number(rows[0]?.n)).toBe(5_000_000);
    // On the main connection the same read would allow no tick at all until it returned.
    expect(elapsed).toBeGreaterThan(20);
    expect(ticks).toBeGreaterThan(5);
  });

  it('checkpoints the WAL into the database file in the background', async () => {
    const file = t.testDb.file ?? '';
    await sql`create table checkpoint_probe (payload text not null)`.execute(t.database.db);
    const before = statSync(file).size;
    // About 2 MiB: far below the main connection's own checkpoint threshold (40 MiB of WAL).
    for (let i = 0; i < 4; i++) {
      await sql`insert into checkpoint_probe (payload)
        select printf('%.1000c', 'x') from (with recursive n(x) as (select 1 union all select x + 1 from n where x < 500) select x from n)`.execute(
        t.database.db,
      );
    }
    // A wait on the condition, bounded for a loaded machine: the background checkpoint is a timer.
    const deadline = Date.now() + 20_000;
    while (statSync(file).size < before + 1_000_000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(statSync(file).size).toBeGreaterThan(before + 1_000_000);
  });

  it('sizes its page cache from SQLITE_CACHE_MB, as the main connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accolade-reader-'));
    try {
      const database = createDatabase({
        dialect: 'sqlite',
        path: join(dir, 'cache.db'),
        synchronous: 'FULL',
        cacheMb: 3,
      });
      try {
        await migrateToLatest(database);
        const size = sql<{ cache_size: number }>`pragma cache_size`;
        expect((await size.execute(database.reader)).rows[0]?.cache_size).toBe(-3 * 1024);
        expect((await size.execute(database.db)).rows[0]?.cache_size).toBe(-3 * 1024);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes its connections with the database, so the files are free (a volume can be unmounted)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accolade-reader-'));
    try {
      const database = createDatabase({
        dialect: 'sqlite',
        path: join(dir, 'closing.db'),
        synchronous: 'FULL',
        cacheMb: SQLITE_CACHE_MB_DEFAULT,
      });
      await migrateToLatest(database);
      await sql`select count(*) from credentials`.execute(database.reader);
      expect(openFilesUnder(dir).length).toBeGreaterThan(3);
      await database.close();
      expect(openFilesUnder(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs its thread only while there is work: none at start, one for reads and writes, none once idle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accolade-reader-'));
    // This process's threads (Linux): a worker thread is one of them from `new Worker` to its end.
    const threads = () => readdirSync('/proc/self/task').length;
    const until = async (condition: () => boolean) => {
      // Bounded for a loaded machine: the thread closes its connections and ends on its own.
      const deadline = Date.now() + 20_000;
      while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return condition();
    };
    try {
      const before = threads();
      const database = createDatabase(
        { dialect: 'sqlite', path: join(dir, 'idle.db'), synchronous: 'FULL', cacheMb: SQLITE_CACHE_MB_DEFAULT },
        undefined,
        { readerIdleMs: 50 },
      );
      try {
        expect(threads()).toBe(before);
        // Writes start the thread, which checkpoints them...
        await migrateToLatest(database);
        expect(threads()).toBe(before + 1);
        // ...and which ends once it has had nothing to do,
        expect(await until(() => threads() === before)).toBe(true);
        // having checkpointed what was written into the database file (the WAL alone would hold it).
        expect(statSync(join(dir, 'idle.db')).size).toBeGreaterThan(100_000);
        // The next read starts it again, and sees what was written.
        const { rows } = await sql<{
          n: number;
        }>`select count(*) as n from sqlite_master where name = 'credentials'`.execute(database.reader);
        expect(Number(rows[0]?.n)).toBe(1);
        expect(threads()).toBe(before + 1);
      } finally {
        await database.close();
      }
      expect(await until(() => threads() === before)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses writes and transactions, and reports SQL errors with their code', async () => {
    await expect(sql`delete from credentials`.execute(t.database.reader)).rejects.toThrow(/read-only/);
    await expect(t.database.reader.transaction().execute(async () => undefined)).rejects.toThrow(/read-only/);
    await expect(sql`select * from no_such_table`.execute(t.database.reader)).rejects.toMatchObject({
      code: 'SQLITE_ERROR',
    });
  });
});
