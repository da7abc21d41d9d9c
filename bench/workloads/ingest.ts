import { isoNow } from '../../src/core/clock.js';
import { type Engine, freshBenchDatabase, startServer } from '../lib/harness.js';
import { ratio, type WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

const CSV_ROWS = 50_000;
const CONNECTOR_RECORDS = 1_000;
const CONNECTOR_CALLS = 5;

/** Rows/s of plain multi-row credential INSERTs (500 per statement, 5,000 per transaction). */
async function rawBulkInsertRate(engine: Engine, postgresUrl: string | null, rows: number): Promise<number> {
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  try {
    const now = isoNow({ now: () => new Date() });
    const started = performance.now();
    for (let tx = 0; tx < rows; tx += 5_000) {
      await seeded.database.db.transaction().execute(async (trx) => {
        for (let i = tx; i < Math.min(tx + 5_000, rows); i += 500) {
          const values = Array.from({ length: Math.min(500, rows - i) }, (_, k) => ({
            id: crypto.randomUUID(),
            issuer_id: seeded.issuerId,
            definition_id: seeded.definitionId,
            recipient_hash: `${(i + k).toString(16).padStart(64, '0')}`,
            display_name: `Learner ${i + k}`,
            completion_key: `raw-${i + k}`,
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

function csvText(rows: number, prefix: string): string {
  const lines = ['email,name,completion_key'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}${i}@bench.example,Learner ${i},${prefix}-${i}`);
  return lines.join('\n');
}

/** CSV import of 50,000 rows and connector calls of 1,000 records, beside the raw bulk-insert rate. */
export async function ingestWorkloads(engine: Engine, postgresUrl: string | null): Promise<WorkloadResult[]> {
  const raw = await rawBulkInsertRate(engine, postgresUrl, CSV_ROWS);
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  const server = await startServer({ DATABASE_URL: db.url, WEBHOOK_DISPATCH: 'off' });
  const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
  try {
    const body = JSON.stringify({ csv: csvText(CSV_ROWS, 'csv'), defaults: { definitionId: seeded.definitionId } });
    const started = performance.now();
    const res = await fetch(`${server.url}/api/v1/ingest/csv`, { method: 'POST', headers, body });
    const report = (await res.json()) as { issued: number; errored: number };
    const csvSeconds = (performance.now() - started) / 1000;
    const csvRate = Math.round(report.issued / csvSeconds);

    const latencies: number[] = [];
    let issued = 0;
    for (let call = 0; call < CONNECTOR_CALLS; call++) {
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
    const connectorSeconds = latencies.reduce((a, b) => a + b, 0) / 1000;
    latencies.sort((a, b) => a - b);
    return [
      { workload: 'raw bulk insert (in-process, rows/s)', rps: raw, p99Ms: 0 },
      {
        workload: `CSV import ${CSV_ROWS.toLocaleString('en')} rows (rows/s)`,
        rps: csvRate,
        p99Ms: Math.round(csvSeconds * 1000),
        rssMb: server.peakRssMb(),
        limit: { name: 'raw bulk insert', rps: raw },
        ratio: ratio(csvRate, raw),
        target: '>= 50 %',
        pass: res.status === 200 && report.issued === CSV_ROWS && csvRate >= 0.5 * raw,
        notes: `HTTP ${res.status}, issued ${report.issued}, errored ${report.errored}, ${csvSeconds.toFixed(1)} s (p99 column: whole request in ms)`,
      },
      {
        workload: `connector call ${CONNECTOR_RECORDS.toLocaleString('en')} records (records/s)`,
        rps: Math.round(issued / connectorSeconds),
        p50Ms: latencies[Math.floor(latencies.length / 2)] ?? 0,
        p99Ms: latencies.at(-1) ?? 0,
        rssMb: server.peakRssMb(),
        notes: `${CONNECTOR_CALLS} calls, ${issued} issued (latency columns: per call)`,
      },
    ];
  } finally {
    await server.stop();
    await seeded.close();
    await db.drop();
  }
}
