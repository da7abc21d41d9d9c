import { type Engine, freshBenchDatabase, load, startServer } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

const SEGMENTS = 10;

/**
 * `total` issuances through the API in ten equal back-to-back segments on one growing database:
 * the p99 of the last segment must stay within 1.5x the p99 of the first.
 */
export async function flatLatencyWorkload(
  engine: Engine,
  postgresUrl: string | null,
  total: number,
): Promise<WorkloadResult[]> {
  const db = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(db.url);
  const server = await startServer({ DATABASE_URL: db.url, WEBHOOK_DISPATCH: 'off' });
  const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
  let n = 0;
  const request = {
    method: 'POST',
    path: '/api/v1/credentials',
    headers,
    setupRequest: (r: object) => {
      n++;
      return {
        ...r,
        body: JSON.stringify({
          definitionId: seeded.definitionId,
          recipientEmail: `flat${n}@bench.example`,
          completionKey: `flat-${n}`,
        }),
      };
    },
  };
  try {
    const segments = [];
    for (let s = 0; s < SEGMENTS; s++) {
      segments.push(
        await load({ url: server.url, connections: 32, amount: Math.floor(total / SEGMENTS), requests: [request] }),
      );
    }
    const first = segments[0];
    const last = segments.at(-1);
    if (!first || !last) return [];
    const errors = segments.reduce((sum, s) => sum + s.errors + s.non2xx, 0);
    return [
      {
        workload: `flat latency: ${total.toLocaleString('en')} issuances (last vs first 10 %)`,
        rps: Math.round(segments.reduce((sum, s) => sum + s.rps, 0) / SEGMENTS),
        p50Ms: last.p50Ms,
        p99Ms: last.p99Ms,
        rssMb: server.peakRssMb(),
        limit: { name: 'p99 ms of the first 10 %', rps: first.p99Ms },
        ratio: first.p99Ms > 0 ? Number((last.p99Ms / first.p99Ms).toFixed(2)) : 0,
        target: '<= 150 %',
        pass: last.p99Ms <= 1.5 * Math.max(first.p99Ms, 1) && errors === 0,
        notes: `p99 per segment (ms): ${segments.map((s) => s.p99Ms).join(', ')}; non-2xx + errors ${errors}`,
      },
    ];
  } finally {
    await server.stop();
    await seeded.close();
    await db.drop();
  }
}
