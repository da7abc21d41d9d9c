import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { freePort } from '../../bench/lib/harness.js';
import {
  createReport,
  type Engine,
  enginesFor,
  inspectDatabase,
  launchServer,
  type ReliabilityReport,
  type RunOptions,
  request,
  round,
  type ServerProcess,
  scalar,
  seedIssuer,
  withDatabase,
} from './load.harness.js';

/** The seed of the kill points; printed in the report so a run can be repeated exactly. */
export const CRASH_SEED = 20261121;

/** A small deterministic PRNG (mulberry32), so the kill points follow from the seed alone. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Row counts at which the server is killed: `kills` distinct points between 5 % and 95 % of `rows`. */
export function killPoints(rows: number, kills: number, seed: number): number[] {
  const random = seededRandom(seed);
  const points = new Set<number>();
  while (points.size < kills) points.add(Math.floor(rows * (0.05 + 0.9 * random())));
  return [...points].sort((a, b) => a - b);
}

export interface WebhookReceiver {
  url: string;
  /** Deliveries received per credential id. */
  byCredential: Map<string, number>;
  deliveries(): number;
  close(): Promise<void>;
}

/** A local receiver that answers 200 to every delivery and remembers which credentials it heard of. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const byCredential = new Map<string, number>();
  let deliveries = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries++;
      try {
        const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { credentialId?: string } };
        const id = envelope.data?.credentialId;
        if (id) byCredential.set(id, (byCredential.get(id) ?? 0) + 1);
      } catch {
        // counted as a delivery; an unreadable body simply names no credential
      }
      res.writeHead(200).end('ok');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    byCredential,
    deliveries: () => deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function importCsv(rows: number, prefix: string): string {
  const lines = ['email,name,completion_key'];
  for (let i = 0; i < rows; i++) lines.push(`crash-${i}@example.test,Learner ${i},${prefix}${i}`);
  return `${lines.join('\n')}\n`;
}

export interface KillRecord {
  target: number;
  /** Credentials committed when the SIGKILL was sent. */
  atKill: number;
  /** Credentials committed once the killed process was gone (what the restart finds). */
  afterKill: number;
  /** True when the import was still running at the kill, i.e. it landed mid-import. */
  midImport: boolean;
}

export interface CrashLegResult {
  engine: Engine;
  rows: number;
  seed: number;
  kills: KillRecord[];
  finalImport: { status: number; total: unknown; issued: unknown; skipped: unknown; errored: unknown; seconds: number };
  credentials: number;
  distinctKeys: number;
  auditIssued: number;
  credentialsWithoutOneAudit: number;
  usageCounted: number;
  importBatches: number;
  integrity: string;
  webhooks: {
    credentialsNotified: number;
    deliveries: number;
    secondsToDeliverAll: number;
    outbox: Record<string, number>;
  };
}

/**
 * A kill mid-delivery leaves rows leased for 30 s; after that the restarted dispatcher sends them.
 * How long all of them take depends on the machine (a loaded 2-core machine delivered 3,651 of
 * 5,000 in 145 s, alone 3,914; issue 46), so the wait ends when nothing is missing, or when nothing
 * more arrived for STALL_MS (longer than a lease and the first retry: stuck, not slow), or at
 * MAX_WAIT_MS whatever happens. The check after it is on the count, never on the time.
 */
const STALL_MS = 150_000;
const MAX_WAIT_MS = 30 * 60_000;

async function untilAllArrive(missing: () => number): Promise<void> {
  const stop = Date.now() + MAX_WAIT_MS;
  let left = missing();
  let progressAt = Date.now();
  while (left > 0 && Date.now() - progressAt < STALL_MS && Date.now() < stop) {
    await sleep(250);
    const now = missing();
    if (now < left) progressAt = Date.now();
    left = now;
  }
}

async function crashLeg(engine: Engine, options: RunOptions, rows: number, kills: number): Promise<CrashLegResult> {
  return withDatabase(engine, options.postgresUrl, async (databaseUrl) => {
    const seeded = await seedIssuer(databaseUrl);
    const receiver = await startReceiver();
    const inspector = await inspectDatabase(databaseUrl);
    const port = await freePort();
    const env = { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_DISPATCH: 'inline' };
    let server: ServerProcess = await launchServer(env, { port });
    const db = inspector.db;
    const count = () => scalar(db, sql`select count(*) as n from credentials where issuer_id = ${seeded.issuerId}`);
    try {
      const sub = await request(`${server.url}/api/v1/webhooks`, {
        key: seeded.key,
        body: { url: receiver.url, events: ['credential.issued'] },
      });
      if (sub.status !== 201) throw new Error(`webhook subscription failed: ${sub.status} ${JSON.stringify(sub.body)}`);
      const csv = importCsv(rows, `crash-${engine}-`);
      const body = { csv, filename: 'crash.csv', defaults: { definitionId: seeded.definitionId } };
      const records: KillRecord[] = [];
      for (const target of killPoints(rows, kills, CRASH_SEED)) {
        let finished = false;
        const running = request(`${server.url}/api/v1/ingest/csv`, { key: seeded.key, body, timeoutMs: 600_000 }).then(
          (res) => {
            finished = true;
            return res;
          },
        );
        const deadline = Date.now() + 300_000;
        let seen = await count();
        while (seen < target && !finished && Date.now() < deadline) {
          await sleep(5);
          seen = await count();
        }
        const midImport = !finished;
        await server.kill9();
        await running;
        records.push({ target, atKill: seen, afterKill: await count(), midImport });
        server = await launchServer(env, { port });
      }
      const started = performance.now();
      const final = await request(`${server.url}/api/v1/ingest/csv`, { key: seeded.key, body, timeoutMs: 600_000 });
      const finalImport = {
        status: final.status,
        total: final.body.total,
        issued: final.body.issued,
        skipped: final.body.skipped,
        errored: final.body.errored,
        seconds: round((performance.now() - started) / 1000),
      };

      const credentials = await count();
      const ids = (
        await db.selectFrom('credentials').select('id').where('issuer_id', '=', seeded.issuerId).execute()
      ).map((r) => r.id);
      const waitStarted = performance.now();
      const missing = () => ids.filter((id) => !receiver.byCredential.has(id)).length;
      await untilAllArrive(missing);
      // A figure for the report, never a pass mark: how fast a machine delivers is the benchmark's business.
      const secondsToDeliverAll = round((performance.now() - waitStarted) / 1000);

      const outboxRows = await db
        .selectFrom('webhook_deliveries')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('issuer_id', '=', seeded.issuerId)
        .groupBy('status')
        .execute();
      const integrity =
        engine === 'sqlite'
          ? String(
              (await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db)).rows
                .map((r) => r.integrity_check)
                .join(','),
            )
          : 'n/a (PostgreSQL)';
      return {
        engine,
        rows,
        seed: CRASH_SEED,
        kills: records,
        finalImport,
        credentials,
        distinctKeys: await scalar(
          db,
          sql`select count(distinct completion_key) as n from credentials where issuer_id = ${seeded.issuerId}`,
        ),
        auditIssued: await scalar(
          db,
          sql`select count(*) as n from audit_log where issuer_id = ${seeded.issuerId} and action = 'credential.issued'`,
        ),
        credentialsWithoutOneAudit: await scalar(
          db,
          // One aggregate joined once (audit_log has no index on target_id: a per-row subquery is quadratic).
          sql`select count(*) as n from credentials c
            left join (select target_id, count(*) as k from audit_log
              where issuer_id = ${seeded.issuerId} and action = 'credential.issued' group by target_id) a
            on a.target_id = c.id
            where c.issuer_id = ${seeded.issuerId} and coalesce(a.k, 0) <> 1`,
        ),
        usageCounted: await scalar(
          db,
          sql`select coalesce(sum(issuance), 0) as n from usage_counters where issuer_id = ${seeded.issuerId}`,
        ),
        importBatches: await scalar(
          db,
          sql`select count(*) as n from import_batches where issuer_id = ${seeded.issuerId}`,
        ),
        integrity,
        webhooks: {
          credentialsNotified: ids.length - missing(),
          deliveries: receiver.deliveries(),
          secondsToDeliverAll,
          outbox: Object.fromEntries(outboxRows.map((r) => [r.status, Number(r.n)])),
        },
      };
    } finally {
      await server.stop();
      await receiver.close();
      await inspector.close();
    }
  });
}

/**
 * Issue 9 item 3: kill -9 the server at seeded points during a CSV import, restart it, re-run the
 * import → exactly N credentials, one audit record each, an intact database and every webhook sent.
 */
export async function runCrash(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('crash', options);
  const rows = options.full ? 50_000 : 5_000;
  const kills = options.full ? 5 : 2;
  const legs: CrashLegResult[] = [];
  for (const engine of enginesFor(options)) {
    report.log(`${engine}: ${kills} × kill -9 during a ${rows}-row CSV import (seed ${CRASH_SEED})`);
    const leg = await crashLeg(engine, options, rows, kills);
    legs.push(leg);
    report.figures[engine] = leg;
    const landed = leg.kills.filter((k) => k.midImport).length;
    report.check(
      `${engine} kills landed mid-import`,
      landed === kills,
      `${landed}/${kills} (committed at each kill: ${leg.kills.map((k) => k.afterKill).join(', ')})`,
    );
    report.check(
      `${engine} final import`,
      leg.finalImport.status === 200 && leg.finalImport.total === rows && leg.finalImport.errored === 0,
      `${leg.finalImport.status}: total ${leg.finalImport.total}, issued ${leg.finalImport.issued}, skipped ${leg.finalImport.skipped}, errored ${leg.finalImport.errored} in ${leg.finalImport.seconds} s`,
    );
    report.check(
      `${engine} exactly N credentials`,
      leg.credentials === rows && leg.distinctKeys === rows,
      `${leg.credentials} credentials, ${leg.distinctKeys} distinct completion keys (N = ${rows})`,
    );
    report.check(
      `${engine} one audit record each`,
      leg.auditIssued === rows && leg.credentialsWithoutOneAudit === 0,
      `${leg.auditIssued} credential.issued records; ${leg.credentialsWithoutOneAudit} credentials without exactly one`,
    );
    report.check(`${engine} quota count`, leg.usageCounted === rows, `${leg.usageCounted} issuances counted`);
    report.check(`${engine} integrity`, leg.integrity === 'ok' || engine === 'postgres', leg.integrity);
    report.check(
      `${engine} webhooks delivered`,
      leg.webhooks.credentialsNotified === rows,
      `${leg.webhooks.credentialsNotified}/${rows} credentials announced (${leg.webhooks.deliveries} deliveries, ${leg.webhooks.deliveries - leg.webhooks.credentialsNotified} repeats; all in ${leg.webhooks.secondsToDeliverAll} s after the final import; outbox ${JSON.stringify(leg.webhooks.outbox)})`,
    );
  }
  return report.finish(
    legs
      .map(
        (l) =>
          `${l.engine}: ${l.kills.length} kills, ${l.credentials}/${l.rows} credentials, ${l.distinctKeys} distinct keys, ${l.auditIssued} audit, integrity ${l.integrity}, ${l.webhooks.credentialsNotified} webhooks`,
      )
      .join('; '),
  );
}
