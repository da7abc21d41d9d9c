import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relaxedTransaction } from '../src/db/dialect.js';
import { credentialCountsMigration } from '../src/db/migrations/0010_credential_counts.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

describe.each(dialects)('credentials list totals on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  const definitions: string[] = [];

  const list = async (key: string, query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/credentials?${query}`, headers: auth(key) });
    expect(res.statusCode).toBe(200);
    return res.json() as { total: number; items: { id: string }[] };
  };

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer();
    b = await t.issuer();
    for (const name of ['Counted One', 'Counted Two']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: auth(a.key),
        payload: { name, description: 'For the list totals' },
      });
      definitions.push(res.json().id);
    }
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(b.key),
      payload: { name: 'Other issuer', description: 'Never in A totals' },
    });
    const issue = (key: string, definitionId: string, n: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(key),
        payload: { definitionId, recipientEmail: `c${n}@counts.example`, completionKey: `k-${n}` },
      });
    for (let n = 0; n < 5; n++) expect((await issue(a.key, definitions[0] as string, n)).statusCode).toBe(201);
    for (let n = 5; n < 8; n++) expect((await issue(a.key, definitions[1] as string, n)).statusCode).toBe(201);
    expect((await issue(b.key, other.json().id, 0)).statusCode).toBe(201);
    // A replayed completion key creates nothing and so counts nothing.
    expect((await issue(a.key, definitions[0] as string, 0)).statusCode).toBe(200);
    // A CSV import inserts in batches; those rows count too.
    const csv = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: auth(a.key),
      payload: {
        csv: 'email,definitionId\nx1@counts.example,D\nx2@counts.example,D\n'.replaceAll('D', definitions[1] as string),
      },
    });
    expect(csv.json().issued).toBe(2);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the issuer total, and the total per definition, equal to the credentials issued', async () => {
    expect((await list(a.key, 'limit=1')).total).toBe(10);
    expect((await list(a.key, `definitionId=${definitions[0]}`)).total).toBe(5);
    expect((await list(a.key, `definitionId=${definitions[1]}`)).total).toBe(5);
    expect((await list(b.key, 'limit=1')).total).toBe(1);
    expect((await list(b.key, `definitionId=${definitions[0]}`)).total).toBe(0);
  });

  it('pages a definition newest first, the rows matching the total', async () => {
    const page = await list(a.key, `definitionId=${definitions[0]}&limit=3`);
    const all = await list(a.key, `definitionId=${definitions[0]}&limit=200`);
    expect(page.items).toHaveLength(3);
    expect(all.items).toHaveLength(5);
    expect(page.items.map((i) => i.id)).toEqual(all.items.slice(0, 3).map((i) => i.id));
  });

  it('keeps status-filtered totals exact after a revocation', async () => {
    const victim = (await list(a.key, `definitionId=${definitions[1]}&limit=1`)).items[0]?.id;
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${victim}/revoke`,
      headers: auth(a.key),
      payload: { reason: 'Issued in error' },
    });
    expect(revoked.statusCode).toBe(200);
    expect((await list(a.key, 'status=revoked')).total).toBe(1);
    expect((await list(a.key, 'status=valid')).total).toBe(9);
    expect((await list(a.key, '')).total).toBe(10);
  });

  it.runIf(dialect === 'sqlite')('fills the counts from the credentials already stored when it migrates', async () => {
    const db = t.database.db;
    const before = await list(a.key, '');
    // Back to the schema before migration 0010, with the credentials kept, then migrate again.
    for (const trigger of ['insert', 'delete', 'move']) {
      await sql.raw(`drop trigger credential_counts_${trigger}`).execute(db);
    }
    await sql`drop table credential_counts`.execute(db);
    await sql`drop index credentials_issuer_definition_created`.execute(db);
    await sql`create index credentials_issuer_definition on credentials (issuer_id, definition_id)`.execute(db);
    await credentialCountsMigration('sqlite').up(db as unknown as Kysely<unknown>);
    expect((await list(a.key, '')).total).toBe(before.total);
    expect((await list(a.key, `definitionId=${definitions[0]}`)).total).toBe(5);
    expect((await list(b.key, '')).total).toBe(1);
  });
});

describe('a relaxed SQLite transaction', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const level = async (executor = t.database.db) =>
    (await sql<{ synchronous: number }>`pragma synchronous`.execute(executor)).rows[0]?.synchronous;

  it('commits with synchronous NORMAL, which no other transaction sees, then restores FULL', async () => {
    expect(t.config.database).toMatchObject({ dialect: 'sqlite', synchronous: 'FULL' });
    const FULL = 2;
    const NORMAL = 1;
    expect(await level()).toBe(FULL);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inside: number | undefined;
    const relaxed = relaxedTransaction(t.database.db, t.config.database, async (trx) => {
      inside = await level(trx);
      await held;
      await sql`select 1`.execute(trx);
    });
    // Queued behind the relaxed transaction on the single connection: it runs at the configured level.
    const other = t.database.db.transaction().execute((trx) => level(trx));
    release();
    await relaxed;
    expect(inside).toBe(NORMAL);
    expect(await other).toBe(FULL);
    expect(await level()).toBe(FULL);
  });

  it('restores the level when the transaction fails', async () => {
    await expect(
      relaxedTransaction(t.database.db, t.config.database, async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await level()).toBe(2);
  });
});
