import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../src/db/database.js';
import { unnestVaryingRows } from '../src/db/dialect.js';
import type { AuditEntry } from '../src/modules/audit/audit.service.js';
import { createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

/*
 * Batch issuance appends a transaction's audit records through one writer (`audit.chainsOf`): the
 * heads are locked once, the chains continue in memory across appends, and the heads move once.
 */
describe.each(dialects)('audit chains of a batch transaction on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
  });
  afterAll(async () => t.close());

  const entries = (from: number, count: number): AuditEntry[] =>
    Array.from({ length: count }, (_, i) => ({
      issuerId: issuer.id,
      actor: 'cli',
      action: 'credential.issued',
      targetType: 'credential',
      targetId: `batch-target-${from + i}`,
      details: { batchId: 'batch-1', n: from + i },
    }));
  const headTotal = async (db: Executor) => {
    const row = await db
      .selectFrom('audit_heads')
      .select((eb) => eb.fn.sum<number>('seq').as('n'))
      .where('issuer_id', '=', issuer.id)
      .executeTakeFirstOrThrow();
    return Number(row.n ?? 0);
  };
  const records = async () => {
    const row = await t.database.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('issuer_id', '=', issuer.id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('continues the chains across appends, including appends made while the heads are being locked', async () => {
    const before = await records();
    const headsBefore = await headTotal(t.database.db);
    let headsBeforeClose = -1;
    await t.database.db.transaction().execute(async (trx) => {
      const chains = t.app.services.audit.chainsOf(trx, issuer.id);
      await Promise.all([chains.append(entries(0, 40)), chains.append(entries(40, 40))]);
      await chains.append(entries(80, 40));
      headsBeforeClose = await headTotal(trx);
      await chains.close();
    });
    // The heads moved once, at close: before it the stored heads had not moved.
    expect(headsBeforeClose).toBe(headsBefore);
    expect(await headTotal(t.database.db)).toBe(headsBefore + 120);
    expect(await records()).toBe(before + 120);
    expect(await t.app.services.audit.verify(issuer.id)).toEqual([
      { issuerId: issuer.id, records: before + 120, ok: true },
    ]);
    // The target filter finds a record appended in the middle of the batch.
    const listed = await t.app.services.audit.list(issuer.id, 5, 0, { targetId: 'batch-target-77' });
    expect(listed.items.map((item) => item.details)).toEqual([{ batchId: 'batch-1', n: 77 }]);
  });

  it('leaves no record and no moved head when the transaction rolls back', async () => {
    const before = await records();
    const headsBefore = await headTotal(t.database.db);
    await expect(
      t.database.db.transaction().execute(async (trx) => {
        const chains = t.app.services.audit.chainsOf(trx, issuer.id);
        await chains.append(entries(1000, 30));
        await chains.close();
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await records()).toBe(before);
    expect(await headTotal(t.database.db)).toBe(headsBefore);
    // The next batch continues from the heads as they were.
    await t.database.db.transaction().execute(async (trx) => {
      const chains = t.app.services.audit.chainsOf(trx, issuer.id);
      await chains.append(entries(2000, 10));
      await chains.close();
    });
    expect(await t.app.services.audit.verify(issuer.id)).toEqual([
      { issuerId: issuer.id, records: before + 10, ok: true },
    ]);
  });
});

const postgresOnly = dialects.filter((d) => d === 'postgres');

describe.each(postgresOnly)('unnestVaryingRows on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => t.close());

  type Row = { a: string; b: number; c: string | null };
  const read = async (rows: Row[]) =>
    (await sql<Row>`${unnestVaryingRows(rows, ['a', 'b', 'c'], { b: 'int4' })}`.execute(t.database.db)).rows;

  it('returns the rows as given, whether columns vary, repeat one value or are empty', async () => {
    const cases: Row[][] = [
      [
        { a: 'x', b: 1, c: null },
        { a: 'y', b: 1, c: null },
        { a: 'z', b: 1, c: null },
      ],
      [
        { a: 'same', b: 1, c: 'p' },
        { a: 'same', b: 2, c: null },
      ],
      [
        { a: 'q "quoted", {braced}', b: 7, c: 'r' },
        { a: 'q "quoted", {braced}', b: 7, c: 'r' },
      ],
      [{ a: 'only', b: 3, c: null }],
    ];
    for (const rows of cases) expect(await read(rows)).toEqual(rows);
  });
});
