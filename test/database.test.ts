import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../scripts/reliability/proxy.js';
import { createDatabase } from '../src/db/database.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, testConfig } from './helpers.js';

describe('SQLite when the database is full', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t.close());

  // Defect: SQLite rolls the transaction back itself on SQLITE_FULL, Kysely's ROLLBACK then failed
  // with "no transaction is active" and that error, not the full disk, reached the handler as a 500.
  it('keeps SQLITE_FULL as the error of the transaction and answers 503 with an Error body', async () => {
    const issuer = await t.issuer();
    const def = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Full', description: 'x' },
    });
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(t.database.db)).rows[0]?.page_count;
    await sql.raw(`pragma max_page_count = ${Number(pages) + 1}`).execute(t.database.db);
    await expect(
      t.database.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 100; i++)
          await sql`insert into audit_heads values (${`x${i}`}, 0, 0, ${'h'.repeat(4000)})`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: 'SQLITE_FULL' });

    let answered = 0;
    for (let i = 0; i < 50; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(issuer.key),
        payload: { definitionId: def.json().id, recipientEmail: `f${i}@example.test`, completionKey: `full-${i}` },
      });
      if (res.statusCode === 201) continue;
      expectErrorBody(res, 503, 'service_unavailable');
      expect(res.headers['retry-after']).toBe('5');
      answered++;
    }
    expect(answered).toBeGreaterThan(0);
    await sql.raw('pragma max_page_count = 1073741823').execute(t.database.db);
    const after = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId: def.json().id, recipientEmail: 'after@example.test', completionKey: 'full-after' },
    });
    expect(after.statusCode).toBe(201);
  });
});

describe.runIf(dialects.includes('postgres'))('PostgreSQL connection dropped while checked out', () => {
  // Defect: a pool client held by a transaction between statements emitted 'error' with no listener
  // when the server cut the connection (a restart), and that crashed the whole process.
  it('fails the transaction instead of crashing the process, and the next query works', async () => {
    const config = testConfig(process.env.TEST_DATABASE_URL as string);
    const errors: unknown[] = [];
    const database = createDatabase(config.database, { error: (obj) => errors.push(obj) });
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      await expect(
        database.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
          // The FATAL message arrives while the client is checked out and idle.
          await sleep(300);
          await sql`select 1`.execute(trx);
        }),
      ).rejects.toThrow();
      expect(errors.length).toBeGreaterThan(0);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows[0]?.one).toBe(1);
    } finally {
      await admin.end();
      await database.close();
    }
  });
});

describe.runIf(dialects.includes('postgres'))('PostgreSQL that stops answering (a stalled network)', () => {
  // Defect: pg leaves a timed-out query on its connection and the pool took the client back as
  // healthy, so the transaction's ROLLBACK and every later query on that client queued behind the
  // stuck one: requests outlived the 20 s query timeout (30 s measured in a 30 s stall).
  it('fails a transaction at one query timeout and retires the connection', async () => {
    const base = new URL(process.env.TEST_DATABASE_URL as string);
    const proxy = await startFaultProxy({ host: base.hostname, port: Number(base.port || 5432) });
    const url = new URL(base);
    url.port = String(proxy.port);
    const database = createDatabase(testConfig(url.toString()).database, { error: () => undefined });
    try {
      const started = Date.now();
      await expect(
        database.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          proxy.pause();
          await sql`select 2`.execute(trx);
        }),
      ).rejects.toThrow(/Query read timeout/);
      // One query timeout (20 s), not two (40 s): the ROLLBACK no longer queues behind the stuck
      // query. The bound sits between the two, with room for a loaded machine's slow timers.
      expect(Date.now() - started).toBeLessThan(36_000);
      // The stuck connection was retired: the next query asks for a new one (5 s connect timeout)
      // instead of queueing behind the stuck query for another 20 s.
      const next = Date.now();
      await expect(sql`select 3`.execute(database.db)).rejects.toThrow(/connection timeout/);
      // 5 s against the 20 s of the stuck query, with the same room.
      expect(Date.now() - next).toBeLessThan(16_000);
      proxy.resume();
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows[0]?.one).toBe(1);
    } finally {
      proxy.resume();
      await database.close();
      await proxy.close();
    }
  }, 120_000);
});
