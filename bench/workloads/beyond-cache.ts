import { type Engine, freshBenchDatabase, type LoadResult, type RunningServer, startServer } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';
import { seed } from '../lib/setup.js';
import { drive, gets, posts } from './verification.js';

/**
 * The hosted read and single verify as a real host meets them: far more credentials than the read
 * cache holds (issue 48). The server's cache is made small (READ_CACHE_ENTRIES) rather than the
 * database large, so the working set is ten times the cache in a database seeded in seconds; every
 * connection walks the whole set, so nearly every request misses. The same two loads then run with
 * the cache off (READ_CACHE=false), the storage path alone. Each server's peak RSS is printed.
 */
const CACHE_ENTRIES = 1_000;
const WORKING_SET = 10 * CACHE_ENTRIES;

async function issueMany(databaseUrl: string): Promise<{ slug: string; ids: string[] }> {
  const seeded = await seed(databaseUrl, { SQLITE_SYNCHRONOUS: 'NORMAL' });
  try {
    const ids: string[] = [];
    for (let i = 0; i < WORKING_SET; i++) {
      const outcome = await seeded.app.services.issuance.issue(seeded.issuerId, 'bench', {
        definitionId: seeded.definitionId,
        recipientEmail: `beyond${i}@bench.example`,
        recipientName: `Learner Number${i}`,
        completionKey: `beyond-${i}`,
        source: 'api',
      });
      ids.push(outcome.row.id);
    }
    return { slug: seeded.issuerSlug, ids };
  } finally {
    await seeded.close();
  }
}

/** The working set in an order no two neighbouring connections share (a stride prime to its size). */
function spread(ids: readonly string[]): string[] {
  return ids.map((_, i) => ids[(i * 7919) % ids.length] ?? '');
}

function rows(label: string, hosted: LoadResult, single: LoadResult, server: RunningServer): WorkloadResult[] {
  const rss = server.peakRssMb();
  return [
    {
      workload: `hosted assertion read, ${label}`,
      rps: hosted.rps,
      p50Ms: hosted.p50Ms,
      p99Ms: hosted.p99Ms,
      rssMb: rss,
      notes: `${WORKING_SET.toLocaleString('en')} credentials; non-2xx ${hosted.non2xx}, errors ${hosted.errors}`,
    },
    {
      workload: `HTTP verify (single), ${label}`,
      rps: single.rps,
      p50Ms: single.p50Ms,
      p99Ms: single.p99Ms,
      rssMb: rss,
      notes: `${WORKING_SET.toLocaleString('en')} credentials; non-2xx ${single.non2xx}, errors ${single.errors}`,
    },
  ];
}

export async function beyondCacheWorkloads(
  engine: Engine,
  postgresUrl: string | null,
  seconds: number,
): Promise<WorkloadResult[]> {
  const db = await freshBenchDatabase(engine, postgresUrl);
  try {
    const { slug, ids } = await issueMany(db.url);
    const order = spread(ids);
    const out: WorkloadResult[] = [];
    const settings: { label: string; env: Record<string, string> }[] = [
      {
        label: `working set 10x the read cache (${CACHE_ENTRIES.toLocaleString('en')} entries)`,
        env: { READ_CACHE_ENTRIES: String(CACHE_ENTRIES) },
      },
      { label: 'read cache off', env: { READ_CACHE: 'false' } },
    ];
    let peak = 0;
    for (const { label, env } of settings) {
      const server = await startServer({
        DATABASE_URL: db.url,
        WEBHOOK_DISPATCH: 'off',
        OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
        ...env,
      });
      try {
        const hosted = await drive(
          server.url,
          seconds,
          gets(order.map((id) => `/v1/issuers/${slug}/assertions/${id}`)),
        );
        const single = await drive(
          server.url,
          seconds,
          posts(
            '/api/v1/verify',
            order.map((id) => JSON.stringify({ id: `${server.url}/v1/issuers/${slug}/assertions/${id}` })),
          ),
        );
        out.push(...rows(label, hosted, single, server));
        peak = Math.max(peak, server.peakRssMb());
      } finally {
        await server.stop();
      }
    }
    out.push({
      workload: 'peak RSS of the beyond-cache servers',
      rps: 0,
      p99Ms: 0,
      rssMb: peak,
      notes: `the larger of the two servers' peaks (sampled every 250 ms from /proc), ${WORKING_SET.toLocaleString('en')} credentials served`,
    });
    return out;
  } finally {
    await db.drop();
  }
}
