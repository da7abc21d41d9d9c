import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase } from '../src/db/database.js';
import { relaxedTransaction } from '../src/db/dialect.js';
import { credentialCountsMigration } from '../src/db/migrations/0010_credential_counts.js';
import { credentialCountDeltasMigration } from '../src/db/migrations/0012_credential_count_deltas.js';
import { COMPACT_AFTER_DELTA_ROWS, createCountCompaction } from '../src/modules/credentials/counts.compaction.js';
import { createCredentialRepository } from '../src/modules/credentials/credentials.repository.js';
import { canvasCourseCompleted } from './connectors.fixtures.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer, testConfig } from './helpers.js';

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
  /** What the list's total must equal: a count of the rows themselves. */
  const counted = async (issuerId: string, definitionId?: string) => {
    let query = t.database.db
      .selectFrom('credentials')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('issuer_id', '=', issuerId);
    if (definitionId !== undefined) query = query.where('definition_id', '=', definitionId);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  const expectExactTotals = async () => {
    expect((await list(a.key, 'limit=1')).total).toBe(await counted(a.id));
    expect((await list(b.key, 'limit=1')).total).toBe(await counted(b.id));
    for (const id of definitions) {
      expect((await list(a.key, `definitionId=${id}&limit=1`)).total).toBe(await counted(a.id, id));
    }
  };
  /** PostgreSQL: the issuer's count deltas not folded yet. */
  const deltaRows = async (issuerId: string) => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::integer as n from credential_count_deltas where issuer_id = ${issuerId}
    `.execute(t.database.db);
    return rows[0]?.n;
  };
  const issue = (key: string, definitionId: string, completionKey: string, email = `${completionKey}@counts.example`) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(key),
      payload: { definitionId, recipientEmail: email, completionKey },
    });
  /** An import, tried again while the issuer's one import slot is taken (429 import_busy). */
  const importCsv = async (key: string, rows: [email: string, definitionId: string][]) => {
    for (;;) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/ingest/csv',
        headers: auth(key),
        payload: { csv: `email,definitionId\n${rows.map((row) => row.join(',')).join('\n')}\n` },
      });
      if (res.statusCode !== 429) return res;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
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
    const issueNth = (key: string, definitionId: string, n: number) =>
      issue(key, definitionId, `k-${n}`, `c${n}@counts.example`);
    for (let n = 0; n < 5; n++) expect((await issueNth(a.key, definitions[0] as string, n)).statusCode).toBe(201);
    for (let n = 5; n < 8; n++) expect((await issueNth(a.key, definitions[1] as string, n)).statusCode).toBe(201);
    expect((await issueNth(b.key, other.json().id, 0)).statusCode).toBe(201);
    // A replayed completion key creates nothing and so counts nothing.
    expect((await issueNth(a.key, definitions[0] as string, 0)).statusCode).toBe(200);
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

  it('stays equal to the rows through reissue, GDPR erase, a connector run, a moved and a deleted row', async () => {
    const original = (await list(a.key, `definitionId=${definitions[0]}&limit=1`)).items[0]?.id;
    const reissued = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${original}/reissue`,
      headers: auth(a.key),
      payload: {},
    });
    expect(reissued.statusCode).toBe(201);
    // Erasure revokes and forgets names: every credential still counts.
    const erased = await t.app.inject({
      method: 'POST',
      url: '/api/v1/gdpr/erase',
      headers: auth(a.key),
      payload: { recipientEmail: 'c1@counts.example' },
    });
    expect(erased.statusCode).toBe(200);
    const connector = await t.app.inject({
      method: 'POST',
      url: '/api/v1/connectors/canvas/completions',
      headers: auth(a.key),
      payload: { ...canvasCourseCompleted, definitionMap: { '2017.100.101.101-1': definitions[1] } },
    });
    expect(connector.json()).toMatchObject({ issued: 1 });
    await expectExactTotals();
    // No route moves or deletes a credential; an operator's SQL must keep the totals exact too.
    const moved = (await list(a.key, `definitionId=${definitions[0]}&limit=2`)).items.map((i) => i.id);
    await t.database.db
      .updateTable('credentials')
      .set({ definition_id: definitions[1] as string })
      .where('id', '=', moved[0] as string)
      .execute();
    await t.database.db
      .deleteFrom('credentials')
      .where('id', '=', moved[1] as string)
      .execute();
    // An update that moves nothing (here every credential of A) changes no count.
    await t.database.db
      .updateTable('credentials')
      .set({ expiry_announced_at: null })
      .where('issuer_id', '=', a.id)
      .execute();
    await expectExactTotals();
  });

  it.runIf(dialect === 'postgres')(
    'appends one delta per definition for an import batch, none for a replay',
    async () => {
      const before = await deltaRows(a.id);
      const rows = Array.from(
        { length: 6 },
        (_, n) => [`batch${n}@counts.example`, definitions[n % 2] as string] as [string, string],
      );
      expect((await importCsv(a.key, rows)).json().issued).toBe(6);
      expect(await deltaRows(a.id)).toBe((before ?? 0) + 2);
      expect((await importCsv(a.key, rows)).json().issued).toBe(0);
      expect((await issue(a.key, definitions[0] as string, 'k-0')).statusCode).toBe(200);
      expect(await deltaRows(a.id)).toBe((before ?? 0) + 2);
      await expectExactTotals();
    },
  );

  it.runIf(dialect === 'postgres')('folds the deltas into the counts: none left, totals unchanged', async () => {
    const before = { a: await list(a.key, ''), b: await list(b.key, '') };
    const bDeltas = await deltaRows(b.id);
    expect(await deltaRows(a.id)).toBeGreaterThan(0);
    expect(await t.app.services.countCompaction.compact(a.id)).toBe(true);
    expect(await deltaRows(a.id)).toBe(0);
    expect(await deltaRows(b.id)).toBe(bDeltas);
    expect((await list(a.key, '')).total).toBe(before.a.total);
    expect((await list(b.key, '')).total).toBe(before.b.total);
    await expectExactTotals();
    // Again with nothing to fold, and after further changes.
    expect(await t.app.services.countCompaction.compact(a.id)).toBe(true);
    expect((await issue(a.key, definitions[1] as string, 'after-fold')).statusCode).toBe(201);
    await expectExactTotals();
  });

  it.runIf(dialect === 'postgres')('skips a compaction while another holds the issuer', async () => {
    await t.database.db.transaction().execute(async (trx) => {
      expect(await createCredentialRepository(trx, 'postgres').tryLockCountFolding(a.id)).toBe(true);
      expect(await t.app.services.countCompaction.compact(a.id)).toBe(false);
      expect(await t.app.services.countCompaction.compact(b.id)).toBe(true);
    });
  });

  it.runIf(dialect === 'postgres')('starts a compaction from a list that summed many deltas', async () => {
    const template = (await list(a.key, `definitionId=${definitions[0]}&limit=1`)).items[0]?.id as string;
    // Single-row statements, as API issuance writes them: one delta row each.
    await sql`do $$ begin for i in 1..${sql.lit(COMPACT_AFTER_DELTA_ROWS)} loop
        insert into credentials (id, issuer_id, definition_id, recipient_hash, display_name, completion_key,
          issued_on, expires_on, revoked_at, revoked_reason, evidence_url, reissued_from, source, expiry_announced_at, created_at)
        select id || '-copy-' || i, issuer_id, definition_id, recipient_hash, display_name, completion_key || '-copy-' || i,
          issued_on, expires_on, revoked_at, revoked_reason, evidence_url, reissued_from, source, expiry_announced_at, created_at
        from credentials where id = ${sql.lit(template)};
      end loop; end $$`.execute(t.database.db);
    expect(await deltaRows(a.id)).toBeGreaterThanOrEqual(COMPACT_AFTER_DELTA_ROWS);
    expect((await list(a.key, 'limit=1')).total).toBe(await counted(a.id));
    await vi.waitFor(async () => expect(await deltaRows(a.id)).toBe(0));
    await expectExactTotals();
  });

  it.runIf(dialect === 'postgres')(
    'keeps counts and deltas equal to the rows while issuances race compactions',
    async () => {
      /** Both sides in one statement, hence one snapshot. */
      const consistent = async () => {
        const { rows } = await sql<{ rows: number; kept: number }>`
        select (select count(*) from credentials where issuer_id = ${a.id})::integer as rows,
          ((select coalesce(sum(credentials), 0) from credential_counts where issuer_id = ${a.id})
            + (select coalesce(sum(delta), 0) from credential_count_deltas where issuer_id = ${a.id}))::integer as kept
      `.execute(t.database.db);
        expect(rows[0]?.kept).toBe(rows[0]?.rows);
      };
      let issuing = true;
      let folds = 0;
      let checks = 0;
      const compacting = (async () => {
        while (issuing) {
          if (await t.app.services.countCompaction.compact(a.id)) folds++;
        }
      })();
      const checking = (async () => {
        while (issuing) {
          await consistent();
          checks++;
        }
      })();
      const issued = await Promise.all(
        Array.from({ length: 100 }, (_, n) =>
          n % 10 === 0
            ? importCsv(a.key, [
                [`race-csv-${n}a@counts.example`, definitions[0] as string],
                [`race-csv-${n}b@counts.example`, definitions[1] as string],
              ])
            : issue(a.key, definitions[n % 2] as string, `race-${n}`),
        ),
      );
      issuing = false;
      await Promise.all([compacting, checking]);
      expect(issued.every((res) => res.statusCode === 201 || res.statusCode === 200)).toBe(true);
      expect(folds).toBeGreaterThan(1);
      expect(checks).toBeGreaterThan(1);
      await consistent();
      await expectExactTotals();
      await t.app.services.countCompaction.compact(a.id);
      expect(await deltaRows(a.id)).toBe(0);
      await expectExactTotals();
    },
  );

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
    await expectExactTotals();
  });

  it.runIf(dialect === 'postgres')(
    'fills the counts when it migrates, and lets a non-owner role keep them',
    async () => {
      const db = t.database.db;
      const schema = t.testDb.schema as string;
      const role = `${schema}_app`;
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      // The README's grants, given before this migration existed: they cover no table it creates.
      await admin.query(`create role ${role} login nosuperuser`);
      await admin.query(`grant usage on schema ${schema} to ${role}`);
      await admin.query(`grant select, insert, update, delete on all tables in schema ${schema} to ${role}`);
      const before = await list(a.key, '');
      // Back to the schema before migration 0012, with the credentials kept, then migrate again.
      for (const trigger of ['insert', 'delete', 'move']) {
        await sql.raw(`drop trigger credential_counts_${trigger} on credentials`).execute(db);
      }
      await sql`drop function accolade_count_credentials()`.execute(db);
      await sql`drop table credential_counts, credential_count_deltas`.execute(db);
      await credentialCountDeltasMigration('postgres').up(db as unknown as Kysely<unknown>);
      expect(await deltaRows(a.id)).toBe(0);
      expect((await list(a.key, '')).total).toBe(before.total);
      await expectExactTotals();

      const url = new URL(t.testDb.url);
      url.username = role;
      const asApp = createDatabase(testConfig(url.toString()).database);
      try {
        // The role's insert runs the trigger, which appends a delta as that role.
        await sql`insert into credentials select id || '-by-app', issuer_id, definition_id, recipient_hash, display_name,
          completion_key || '-by-app', issued_on, expires_on, revoked_at, revoked_reason, evidence_url, reissued_from,
          source, expiry_announced_at, created_at from credentials where issuer_id = ${a.id} and definition_id = ${definitions[0]} limit 3`.execute(
          asApp.db,
        );
        const repo = createCredentialRepository(asApp.db, 'postgres');
        expect((await repo.page(a.id, { now: new Date().toISOString() }, 1, 0)).deltaRows).toBe(1);
        const compaction = createCountCompaction({ db: asApp.db, dialect: 'postgres', log: t.app.log });
        expect(await compaction.compact(a.id)).toBe(true);
        expect(await deltaRows(a.id)).toBe(0);
        expect((await repo.page(a.id, { now: new Date().toISOString() }, 1, 0)).total).toBe(before.total + 3);
        await expectExactTotals();
      } finally {
        await asApp.close();
        await admin.query(`drop owned by ${role}`);
        await admin.query(`drop role ${role}`);
        await admin.end();
      }
    },
  );
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
