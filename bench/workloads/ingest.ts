import { isoNow, randomIds } from '../../src/core/clock.js';
import { hashRecipientEmail } from '../../src/core/hashing.js';
import { type Engine, freshBenchDatabase, startServer } from '../lib/harness.js';
import { ratio, type WorkloadResult } from '../lib/results.js';
import { type Seeded, seed } from '../lib/setup.js';

export const CSV_ROWS = 50_000;
const CSV_PREFIX = 'csv';
const CONNECTOR_RECORDS = 1_000;
const CONNECTOR_CALLS = 5;

/**
 * Rows/s of plain multi-row credential INSERTs (500 per statement, 5,000 per transaction) of the
 * rows the CSV file makes, in file order: its completion keys, the recipient hashes of its emails,
 * ids drawn as the service draws them. `sequential` gives hashes in ascending hex order instead,
 * which fill the recipient indexes in order as no real email's hash can (the reference until
 * 2026-11-21, still printed beside it).
 */
async function rawBulkInsertRate(
  engine: Engine,
  postgresUrl: string | null,
  rows: number,
  hashes: 'file' | 'sequential',
): Promise<number> {
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  try {
    const now = isoNow({ now: () => new Date() });
    const { recipient_salt: salt } = await seeded.database.db
      .selectFrom('issuers')
      .select('recipient_salt')
      .where('id', '=', seeded.issuerId)
      .executeTakeFirstOrThrow();
    // Hashed before the clock starts: the reference times the inserts alone.
    const recipientHashes = Array.from({ length: rows }, (_, i) =>
      hashes === 'file'
        ? hashRecipientEmail(`${CSV_PREFIX}${i}@bench.example`, salt)
        : i.toString(16).padStart(64, '0'),
    );
    const started = performance.now();
    for (let tx = 0; tx < rows; tx += 5_000) {
      await seeded.database.db.transaction().execute(async (trx) => {
        for (let i = tx; i < Math.min(tx + 5_000, rows); i += 500) {
          const values = Array.from({ length: Math.min(500, rows - i) }, (_, k) => ({
            id: randomIds.ordered(),
            issuer_id: seeded.issuerId,
            definition_id: seeded.definitionId,
            recipient_hash: recipientHashes[i + k] as string,
            display_name: `Learner ${i + k}`,
            completion_key: `${CSV_PREFIX}-${i + k}`,
            issued_on: now,
            expires_on: null,
            revoked_at: null,
            revoked_reason: null,
            evidence_url: null,
            reissued_from: null,
            source: 'csv',
            expiry_announced_at: null,
            created_at: now,
          }));
          await trx.insertInto('credentials').values(values).execute();
        }
      });
    }
    return Math.round(rows / ((performance.now() - started) / 1000));
  } finally {
    await seeded.close();
    await db.drop();
  }
}

function csvText(rows: number): string {
  const lines = ['email,name,completion_key'];
  for (let i = 0; i < rows; i++) lines.push(`${CSV_PREFIX}${i}@bench.example,Learner ${i},${CSV_PREFIX}-${i}`);
  return lines.join('\n');
}

/** Runs per figure: a single 50,000-row import varies by a fifth from run to run on a shared machine. */
export const RUNS = 3;

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** What a CSV import measurement may change beside the plain import. */
export interface ImportOptions<T> {
  /** Connector calls of CONNECTOR_RECORDS records made after the import. */
  connectorCalls?: number;
  /** Server environment added to the database's. */
  env?: Record<string, string>;
  /** Fields added to the import request. */
  body?: Record<string, unknown>;
  /** Runs on the seeded database and the started server before the clock starts. */
  before?(seeded: Seeded, serverUrl: string): Promise<void>;
  /** Runs after the import while the server still runs; its answer is returned as `after`. */
  after?(seeded: Seeded, serverUrl: string): Promise<T>;
}

/** One CSV import of CSV_ROWS rows into a fresh database; its server then takes the connector calls. */
export async function csvImport<T = undefined>(
  engine: Engine,
  postgresUrl: string | null,
  options: ImportOptions<T> = {},
) {
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  const server = await startServer({ DATABASE_URL: db.url, WEBHOOK_DISPATCH: 'off', ...options.env });
  const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
  try {
    await options.before?.(seeded, server.url);
    const body = JSON.stringify({
      csv: csvText(CSV_ROWS),
      defaults: { definitionId: seeded.definitionId },
      ...options.body,
    });
    const started = performance.now();
    const res = await fetch(`${server.url}/api/v1/ingest/csv`, { method: 'POST', headers, body });
    const report = (await res.json()) as { issued: number; errored: number };
    const seconds = (performance.now() - started) / 1000;
    const after = await options.after?.(seeded, server.url);

    const latencies: number[] = [];
    let issued = 0;
    for (let call = 0; call < (options.connectorCalls ?? 0); call++) {
      const records = Array.from({ length: CONNECTOR_RECORDS }, (_, i) => ({
        email: `c${call}-${i}@bench.example`,
        name: `Connector ${i}`,
        definitionId: seeded.definitionId,
        completionKey: `conn-${call}-${i}`,
      }));
      const t0 = performance.now();
      const answer = await fetch(`${server.url}/api/v1/connectors/generic/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ records }),
      });
      issued += ((await answer.json()) as { issued: number }).issued;
      latencies.push(performance.now() - t0);
    }
    return {
      status: res.status,
      report,
      seconds,
      rate: Math.round(report.issued / seconds),
      connector: { issued, latencies },
      after,
      peakRssMb: server.peakRssMb(),
    };
  } finally {
    await server.stop();
    await seeded.close();
    await db.drop();
  }
}

/**
 * CSV import of 50,000 rows and connector calls of 1,000 records, beside the raw bulk-insert rate.
 * The raw rate and the import are each the median of RUNS runs, each on a fresh database, taken
 * alternately so a slow spell of the machine weighs on both.
 */
export async function ingestWorkloads(engine: Engine, postgresUrl: string | null): Promise<WorkloadResult[]> {
  const raws: number[] = [];
  const sequentials: number[] = [];
  const imports: Awaited<ReturnType<typeof csvImport>>[] = [];
  for (let run = 0; run < RUNS; run++) {
    raws.push(await rawBulkInsertRate(engine, postgresUrl, CSV_ROWS, 'file'));
    sequentials.push(await rawBulkInsertRate(engine, postgresUrl, CSV_ROWS, 'sequential'));
    imports.push(await csvImport(engine, postgresUrl, { connectorCalls: run === 0 ? CONNECTOR_CALLS : 0 }));
  }
  const raw = median(raws);
  const csvRate = median(imports.map((i) => i.rate));
  const middle = imports.find((i) => i.rate === csvRate) ?? imports[0];
  const first = imports[0];
  if (!middle || !first) throw new Error('no CSV import ran');
  const allIssued = imports.every((i) => i.status === 200 && i.report.issued === CSV_ROWS);
  const latencies = [...first.connector.latencies].sort((a, b) => a - b);
  const connectorSeconds = latencies.reduce((a, b) => a + b, 0) / 1000;
  return [
    {
      workload: 'raw bulk insert (in-process, rows/s)',
      rps: raw,
      p99Ms: 0,
      notes: `the CSV file's rows in file order; median of ${RUNS} runs: ${raws.join(', ')}. With ascending hex hashes instead (the earlier reference, which no real email's hash can follow): median ${median(sequentials)} (${sequentials.join(', ')})`,
    },
    {
      workload: `CSV import ${CSV_ROWS.toLocaleString('en')} rows (rows/s)`,
      rps: csvRate,
      p99Ms: Math.round(middle.seconds * 1000),
      rssMb: Math.max(...imports.map((i) => i.peakRssMb)),
      limit: { name: 'raw bulk insert', rps: raw },
      ratio: ratio(csvRate, raw),
      target: '>= 60 %',
      pass: allIssued && csvRate >= 0.6 * raw,
      notes: `median of ${RUNS} imports (rows/s ${imports.map((i) => i.rate).join(', ')}), each HTTP ${imports.map((i) => i.status).join('/')}, issued ${imports.map((i) => i.report.issued).join('/')}, errored ${imports.map((i) => i.report.errored).join('/')}; the median import took ${middle.seconds.toFixed(1)} s (p99 column: that whole request in ms)`,
    },
    {
      workload: `connector call ${CONNECTOR_RECORDS.toLocaleString('en')} records (records/s)`,
      rps: Math.round(first.connector.issued / connectorSeconds),
      p50Ms: latencies[Math.floor(latencies.length / 2)] ?? 0,
      p99Ms: latencies.at(-1) ?? 0,
      rssMb: first.peakRssMb,
      notes: `${CONNECTOR_CALLS} calls, ${first.connector.issued} issued (latency columns: per call)`,
    },
  ];
}
