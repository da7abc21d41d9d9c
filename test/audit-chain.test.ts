import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { recordHash } from '../src/modules/audit/audit.service.js';
import { auth, createTestApp, dialects, expectKeyRequired, type TestApp, type TestIssuer } from './helpers.js';

/*
 * Issue 22 items 4 and 5: `audit verify` holds every chain to its head, a kept checkpoint catches a
 * consistent rewrite, and a client recomputes the chains from the API output alone.
 */

async function populated(
  dialect: 'sqlite' | 'postgres',
  credentials = 12,
): Promise<{ t: TestApp; issuer: TestIssuer }> {
  const t = await createTestApp(dialect);
  const issuer = await t.issuer();
  const definition = await t.app.services.definitions.create(issuer.id, 'system', { name: 'Chain', description: 'x' });
  for (let i = 0; i < credentials; i++) {
    await t.app.services.issuance.issue(issuer.id, 'test', {
      definitionId: definition.id,
      recipientEmail: `chain${i}@example.test`,
      completionKey: `chain-${i}`,
      source: 'api',
    });
  }
  return { t, issuer };
}

/** Runs statements the append-only triggers would refuse, as the database's owner could. */
async function behindTheTriggers(t: TestApp, statements: RawBuilder<unknown>[]): Promise<void> {
  const db = t.database.db;
  if (t.database.dialect === 'sqlite') {
    await sql`drop trigger if exists audit_log_no_delete`.execute(db);
    await sql`drop trigger if exists audit_log_no_update`.execute(db);
    for (const statement of statements) await statement.execute(db);
    return;
  }
  await db.connection().execute(async (conn) => {
    await sql`set session_replication_role = replica`.execute(conn);
    for (const statement of statements) await statement.execute(conn);
    await sql`set session_replication_role = origin`.execute(conn);
  });
}

async function stripes(t: TestApp, issuerId: string) {
  return t.database.db
    .selectFrom('audit_log')
    .select(['stripe', (eb) => eb.fn.max<number>('seq').as('last')])
    .where('issuer_id', '=', issuerId)
    .groupBy('stripe')
    .orderBy('stripe')
    .execute();
}

async function cli(t: TestApp, args: string[]): Promise<{ code: number; text: string }> {
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = t.testDb.url;
  process.env.LOG_LEVEL = 'silent';
  try {
    const lines: string[] = [];
    const code = await runCli(args, (line) => lines.push(line));
    return { code, text: lines.join('\n') };
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}

/** Two engines' worth of issuance and tampering on a shared two-core machine. */
const SLOW = 180_000;

describe.each(dialects)('audit chains and their heads on %s', (dialect) => {
  let t: TestApp | undefined;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'accolade-audit-chain-'));
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['the newest record of a stripe', 'newest'],
    ['a whole stripe', 'stripe'],
    ['all of the issuer’s records', 'all'],
  ] as const)(
    'reports %s deleted behind the triggers',
    async (_label, what) => {
      const made = await populated(dialect);
      t = made.t;
      const { issuer } = made;
      const intact = await t.app.services.audit.verify(issuer.id);
      // issuer.created, api_key.created, definition.created and 12 credential.issued
      expect(intact).toEqual([{ issuerId: issuer.id, records: 15, ok: true }]);
      const [longest] = (await stripes(t, issuer.id)).sort((a, b) => Number(b.last) - Number(a.last));
      const stripe = longest?.stripe ?? 0;
      const last = Number(longest?.last);
      const where =
        what === 'newest'
          ? sql`issuer_id = ${issuer.id} and stripe = ${stripe} and seq = ${last}`
          : what === 'stripe'
            ? sql`issuer_id = ${issuer.id} and stripe = ${stripe}`
            : sql`issuer_id = ${issuer.id}`;
      await behindTheTriggers(t, [sql`delete from audit_log where ${where}`]);

      const [report] = await t.app.services.audit.verify(issuer.id);
      expect(report?.ok).toBe(false);
      expect(report?.brokenAt?.reason).toMatch(/its head is at seq \d+ \(the newest records are missing\)/);
      if (what !== 'all') {
        expect(report?.brokenAt).toMatchObject({ stripe, seq: what === 'newest' ? last : 1 });
      }
      const run = await cli(t, ['audit', 'verify']);
      expect(run.code, run.text).toBe(2);
      expect(run.text).toContain(`${issuer.id}: CHAIN BROKEN at stripe`);
    },
    SLOW,
  );

  it(
    'reports records appended behind the service, past the head',
    async () => {
      const made = await populated(dialect, 3);
      t = made.t;
      const row = await t.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('issuer_id', '=', made.issuer.id)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      const forged = { ...row, id: `${row.id}-forged`, seq: row.seq + 1, prev_hash: row.hash, action: 'forged' };
      forged.hash = recordHash(forged);
      await t.database.db.insertInto('audit_log').values(forged).execute();
      const [report] = await t.app.services.audit.verify(made.issuer.id);
      expect(report?.brokenAt?.reason).toMatch(/past its head at seq \d+ \(records were added outside the service\)/);
    },
    SLOW,
  );

  it(
    'a kept checkpoint catches a consistent rewrite that recomputes every hash and the head',
    async () => {
      const made = await populated(dialect);
      t = made.t;
      const { issuer } = made;
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/audit/head', headers: auth(issuer.key) });
      expect(res.statusCode, res.body).toBe(200);
      const apiCheckpoint = join(dir, `${dialect}-api.json`);
      writeFileSync(apiCheckpoint, res.body);
      const head = await cli(t, ['audit', 'head', '--issuer', issuer.slug]);
      expect(head.code).toBe(0);
      const cliCheckpoint = join(dir, `${dialect}-cli.json`);
      writeFileSync(cliCheckpoint, head.text);
      expect(JSON.parse(head.text).issuers[0].stripes).toEqual(res.json().stripes);

      // The log grows after the checkpoint: it still extends it.
      await t.app.services.issuance.issue(issuer.id, 'test', {
        definitionId: (
          await t.app.services.definitions.create(issuer.id, 'system', { name: 'Later', description: 'x' })
        ).id,
        recipientEmail: 'later@example.test',
        completionKey: 'later',
        source: 'api',
      });
      for (const file of [apiCheckpoint, cliCheckpoint]) {
        const run = await cli(t, ['audit', 'verify', '--checkpoint', file]);
        expect(run.code, run.text).toBe(0);
        expect(run.text).toContain(`${issuer.id}: 17 records, chain intact, extends the checkpoint of`);
      }

      // Rewrite one stripe from its first record on, recomputing every hash and the head.
      const stripe = res.json().stripes[0].stripe as number;
      const rows = await t.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('issuer_id', '=', issuer.id)
        .where('stripe', '=', stripe)
        .orderBy('seq')
        .execute();
      let prevHash = '';
      const statements: RawBuilder<unknown>[] = [];
      for (const row of rows) {
        const rewritten = { ...row, actor: row.seq === 1 ? 'someone-else' : row.actor, prev_hash: prevHash };
        rewritten.hash = recordHash(rewritten);
        prevHash = rewritten.hash;
        statements.push(
          sql`update audit_log set actor = ${rewritten.actor}, prev_hash = ${rewritten.prev_hash}, hash = ${rewritten.hash} where id = ${row.id}`,
        );
      }
      statements.push(
        sql`update audit_heads set hash = ${prevHash} where issuer_id = ${issuer.id} and stripe = ${stripe}`,
      );
      await behindTheTriggers(t, statements);

      expect(await t.app.services.audit.verify(issuer.id)).toEqual([{ issuerId: issuer.id, records: 17, ok: true }]);
      for (const file of [apiCheckpoint, cliCheckpoint]) {
        const run = await cli(t, ['audit', 'verify', '--checkpoint', file]);
        expect(run.code, run.text).toBe(2);
        expect(run.text).toMatch(
          /CHAIN BROKEN at seq \d+ \(record .+\): stripe \d seq \d+ differs from the checkpoint/,
        );
      }

      writeFileSync(join(dir, 'not-a-checkpoint.json'), '{"takenAt":"x"}');
      expect((await cli(t, ['audit', 'verify', '--checkpoint', join(dir, 'not-a-checkpoint.json')])).code).toBe(64);
    },
    SLOW,
  );

  it(
    "GET /api/v1/audit/head answers the key's own issuer's stripes only",
    async () => {
      const made = await populated(dialect, 4);
      t = made.t;
      const other = await t.issuer();
      await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/audit/head' });
      const mine = (
        await t.app.inject({ method: 'GET', url: '/api/v1/audit/head', headers: auth(made.issuer.key) })
      ).json();
      const theirs = (
        await t.app.inject({ method: 'GET', url: '/api/v1/audit/head', headers: auth(other.key) })
      ).json();
      expect(mine.issuerId).toBe(made.issuer.id);
      expect(theirs.issuerId).toBe(other.id);
      expect(mine.stripes.reduce((n: number, s: { count: number }) => n + s.count, 0)).toBe(7);
      expect(theirs.stripes.reduce((n: number, s: { count: number }) => n + s.count, 0)).toBe(2);
      const records = (
        await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=200', headers: auth(made.issuer.key) })
      ).json().items as { stripe: number; seq: number; hash: string }[];
      for (const head of mine.stripes as { stripe: number; count: number; hash: string }[]) {
        expect(records.find((r) => r.stripe === head.stripe && r.seq === head.count)?.hash).toBe(head.hash);
      }
    },
    SLOW,
  );

  it(
    'a client recomputes every chain from the API output alone with the script in docs/audit.md',
    async () => {
      const made = await populated(dialect, 210);
      t = made.t;
      const { issuer } = made;
      const doc = readFileSync(new URL('../docs/audit.md', import.meta.url), 'utf8');
      const script = doc.slice(doc.indexOf('## Checking the chain from the API')).match(/```js\n([\s\S]*?)```/)?.[1];
      expect(script).toBeDefined();
      const file = join(dir, `${dialect}-verify-audit.mjs`);
      writeFileSync(file, script ?? '');
      const { verifyAuditLog } = (await import(pathToFileURL(file).href)) as {
        verifyAuditLog: (
          baseUrl: string,
          key: string,
          checkpoint?: unknown,
        ) => Promise<{ head: { stripes: unknown[] }; problems: string[] }>;
      };
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });

      const first = await verifyAuditLog(address, issuer.key);
      expect(first.problems).toEqual([]);
      expect(first.head.stripes.length).toBeGreaterThan(1);
      expect((await verifyAuditLog(address, issuer.key, first.head)).problems).toEqual([]);

      const row = await t.database.db
        .selectFrom('audit_log')
        .select(['id', 'stripe', 'seq'])
        .where('issuer_id', '=', issuer.id)
        .where('action', '=', 'credential.issued')
        .orderBy('seq')
        .limit(1)
        .executeTakeFirstOrThrow();
      await behindTheTriggers(t, [sql`update audit_log set details = '{"source":"csv"}' where id = ${row.id}`]);
      const tampered = await verifyAuditLog(address, issuer.key, first.head);
      expect(tampered.problems).toContain(`stripe ${row.stripe} seq ${row.seq}: the record does not match its hash`);
    },
    SLOW,
  );
});
