import { sql } from 'kysely';
import { type Engine, freshBenchDatabase, inProcessRate, load, startServer } from '../lib/harness.js';
import { ratio, type WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';

const CONNECTIONS = 32;

/**
 * HTTP issuance (unique completion keys) and replay at 32 clients, beside the raw in-process issue
 * transaction of the same engine, each on a fresh database.
 */
export async function issuanceWorkloads(
  engine: Engine,
  postgresUrl: string | null,
  seconds: number,
): Promise<WorkloadResult[]> {
  const rawDb = await freshBenchDatabase(engine, postgresUrl);
  const raw = await seed(rawDb.url);
  const rawRate = await inProcessRate(seconds, CONNECTIONS, (n) =>
    raw.app.services.issuance.issue(raw.issuerId, 'bench', {
      definitionId: raw.definitionId,
      recipientEmail: `raw${n}@bench.example`,
      completionKey: `raw-${n}`,
      source: 'api',
    }),
  );
  await raw.close();
  await rawDb.drop();

  const httpDb = await freshBenchDatabase(engine, postgresUrl);
  const seeded = await seed(httpDb.url);
  const server = await startServer({ DATABASE_URL: httpDb.url, WEBHOOK_DISPATCH: 'off' });
  const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
  try {
    const issue = await load({
      url: `${server.url}/api/v1/credentials`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: seconds,
      requests: [uniqueIssueRequest(headers, seeded.definitionId, 'http')],
    });
    const rows = await sql<{ n: number }>`select count(*) as n from credentials`.execute(seeded.database.db);
    // One client issuing one credential after another: the latency of a lone issuance (issue 26).
    const sequential = await load({
      url: `${server.url}/api/v1/credentials`,
      connections: 1,
      duration: seconds,
      requests: [uniqueIssueRequest(headers, seeded.definitionId, 'sequential')],
    });
    const stored = Number(rows.rows[0]?.n ?? 0);
    const created = issue.status['201'] ?? 0;

    const replayBody = JSON.stringify({
      definitionId: seeded.definitionId,
      recipientEmail: 'replay@bench.example',
      completionKey: 'replay-key',
    });
    await fetch(`${server.url}/api/v1/credentials`, { method: 'POST', headers, body: replayBody });
    const replay = await load({
      url: `${server.url}/api/v1/credentials`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: seconds,
      headers,
      body: replayBody,
    });
    const rawLimit = { name: `raw ${engine} issue tx`, rps: rawRate.rps };
    const issueTarget = engine === 'sqlite' ? 0.35 : 0.5;
    /** Issue 26: PostgreSQL issuance at 32 connections at least this many per second. */
    const floor = engine === 'postgres' ? 1_000 : 0;
    return [
      { workload: 'raw issue transaction (in-process)', rps: rawRate.rps, p99Ms: rawRate.p99Ms },
      {
        workload: 'HTTP issue (unique keys)',
        rps: issue.rps,
        p50Ms: issue.p50Ms,
        p99Ms: issue.p99Ms,
        rssMb: server.peakRssMb(),
        limit: rawLimit,
        ratio: ratio(issue.rps, rawRate.rps),
        target: `>= ${issueTarget * 100} %${floor ? ` and >= ${floor.toLocaleString('en')}/s` : ''}`,
        // A timed run abandons the requests in flight when it ends (at most one per connection);
        // they still commit, so rows may exceed the 201s counted by exactly that many, never fewer.
        pass:
          issue.rps >= issueTarget * rawRate.rps &&
          issue.rps >= floor &&
          issue.errors === 0 &&
          stored >= created &&
          stored - created <= CONNECTIONS,
        notes: `201 responses ${created}, rows stored ${stored} (up to ${CONNECTIONS} in flight at the end), errors ${issue.errors}, 5xx ${countFrom(issue.status, 5)}`,
      },
      {
        workload: 'HTTP issue, sequential (one connection)',
        rps: sequential.rps,
        p50Ms: sequential.p50Ms,
        p99Ms: sequential.p99Ms,
        rssMb: server.peakRssMb(),
        target: 'p50 <= 2 ms',
        pass: sequential.p50Ms <= 2 && sequential.errors === 0 && sequential.non2xx === 0,
        notes: `201 responses ${sequential.status['201'] ?? 0}, errors ${sequential.errors}, non-2xx ${sequential.non2xx}`,
      },
      {
        workload: 'HTTP replay (same key)',
        rps: replay.rps,
        p50Ms: replay.p50Ms,
        p99Ms: replay.p99Ms,
        rssMb: server.peakRssMb(),
        notes: `200 responses ${replay.status['200'] ?? 0}, errors ${replay.errors}`,
      },
    ];
  } finally {
    await server.stop();
    await seeded.close();
    await httpDb.drop();
  }
}

/** autocannon's idReplacement sends nothing in v8, so each request gets its own key here. */
function uniqueIssueRequest(headers: Record<string, string>, definitionId: string, prefix: string) {
  let n = 0;
  return {
    method: 'POST',
    headers,
    setupRequest: (request: object) => {
      n++;
      return {
        ...request,
        body: JSON.stringify({
          definitionId,
          recipientEmail: `${prefix}-${n}@bench.example`,
          completionKey: `${prefix}-${n}`,
        }),
      };
    },
  };
}

function countFrom(status: Record<string, number>, hundred: number): number {
  return Object.entries(status)
    .filter(([code]) => code.startsWith(String(hundred)))
    .reduce((sum, [, n]) => sum + n, 0);
}
