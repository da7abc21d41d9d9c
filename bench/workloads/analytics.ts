import { createBenchSeeder } from '../../src/modules/reports/bench-seed.js';
import { type Engine, freshBenchDatabase, startServer } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

const RUNS = 5;

async function timed(
  url: string,
  headers: Record<string, string>,
): Promise<{ p50: number; max: number; status: number }> {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    status = res.status;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(times[Math.floor(RUNS / 2)] ?? 0), max: Math.round(times.at(-1) ?? 0), status };
}

/** Analytics and the issuance report over 1,000,000 credentials and 1,000,000 verification events. */
export async function analyticsWorkloads(
  engine: Engine,
  postgresUrl: string | null,
  size: number,
): Promise<WorkloadResult[]> {
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  const seeding = await createBenchSeeder(seeded.app.core).seed({
    issuerId: seeded.issuerId,
    credentials: size,
    verifications: size,
    engagements: Math.floor(size / 10),
    definitions: 20,
  });
  await seeded.close();
  const server = await startServer({ DATABASE_URL: db.url, WEBHOOK_DISPATCH: 'off' });
  const headers = { authorization: `Bearer ${seeded.key}` };
  try {
    const year = `from=${new Date(Date.now() - 365 * 86_400_000).toISOString()}&to=${new Date().toISOString()}`;
    const cases: [string, string][] = [
      ['analytics, default 30-day window', '/api/v1/analytics'],
      ['analytics, 365-day window', `/api/v1/analytics?${year}`],
      ['issuance report, all time', '/api/v1/reports/issuance'],
      ['issuance report, 365-day window', `/api/v1/reports/issuance?${year}`],
    ];
    const rows: WorkloadResult[] = [];
    for (const [name, path] of cases) {
      const t = await timed(`${server.url}${path}`, headers);
      rows.push({
        workload: `${name} (${size.toLocaleString('en')} + ${size.toLocaleString('en')} rows)`,
        rps: 0,
        p50Ms: t.p50,
        p99Ms: t.max,
        rssMb: server.peakRssMb(),
        target: '< 1,000 ms',
        pass: t.status === 200 && t.max < 1_000,
        notes: `HTTP ${t.status}; ${RUNS} runs, p99 column is the slowest; seeded in ${seeding.seconds} s`,
      });
    }
    return rows;
  } finally {
    await server.stop();
    await db.drop();
  }
}
