import {
  type Engine,
  freshBenchDatabase,
  inProcessRate,
  type LoadResult,
  loadSpread,
  startServer,
  WARM_UP_SECONDS,
} from '../lib/harness.js';
import { percent, ratio, type WorkloadResult } from '../lib/results.js';
import { type Seeded, seed } from '../lib/setup.js';

const CONNECTIONS = 32;
const CREDENTIALS = 2_000;

async function issueMany(seeded: Seeded, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const outcome = await seeded.app.services.issuance.issue(seeded.issuerId, 'bench', {
      definitionId: seeded.definitionId,
      recipientEmail: `verify${i}@bench.example`,
      recipientName: `Learner Number${i}`,
      completionKey: `verify-${i}`,
      source: 'api',
    });
    ids.push(outcome.row.id);
  }
  return ids;
}

/**
 * Requests built once, which each connection sends in turn: autocannon rebuilds a request that has
 * a `setupRequest` on every send, which cost its one process 2-3 times the CPU per request of the
 * bare route's fixed request, CPU the server then lacked on this 2-core machine.
 */
export function posts(path: string, bodies: readonly string[]) {
  return bodies.map((body) => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body }));
}

export function gets(paths: readonly string[]) {
  return paths.map((path) => ({ method: 'GET', path }));
}

type Requests = Parameters<typeof loadSpread>[0]['requests'];

/**
 * `requests` sent to `url` for `seconds` over `connections`, each starting at its own place in the
 * list, after WARM_UP_SECONDS of the same load that is not counted (the peer comparison of issue 26
 * was taken the same way): a first view pays for caches a running service has long filled, such as
 * the page's QR code, and V8 compiles the route's code in that time.
 */
export async function drive(url: string, seconds: number, requests: Requests, connections = CONNECTIONS) {
  await loadSpread({ url, connections, duration: WARM_UP_SECONDS, requests });
  return loadSpread({ url, connections, duration: seconds, requests });
}

/** Starts a reference server, loads it for `seconds` with the requests made for its URL, stops it. */
async function loadServer(
  script: string,
  env: Record<string, string>,
  seconds: number,
  requests: (url: string) => Requests,
) {
  const server = await startServer(env, script);
  try {
    return await drive(server.url, seconds, requests(server.url));
  } finally {
    await server.stop();
  }
}

/**
 * The bare Fastify route (HTTP ceiling), the raw in-process verify (read + event), the same work on
 * node:http without a framework, and over HTTP: single verify, bulk verify of 100 and 1,000 ids,
 * and the verification page.
 */
export async function verificationWorkloads(
  engine: Engine,
  postgresUrl: string | null,
  seconds: number,
): Promise<WorkloadResult[]> {
  const ceiling = await loadServer('bench/bare-server.mjs', {}, seconds, () => posts('/bare', ['{"id":"x"}']));

  const db = await freshBenchDatabase(engine, postgresUrl);
  try {
    return await serviceWorkloads(engine, db.url, seconds, ceiling);
  } finally {
    await db.drop();
  }
}

/** Everything measured on a seeded database: the in-process verify, the frameworkless one and the service. */
async function serviceWorkloads(
  engine: Engine,
  databaseUrl: string,
  seconds: number,
  ceiling: LoadResult,
): Promise<WorkloadResult[]> {
  const seeded = await seed(databaseUrl);
  try {
    const ids = await issueMany(seeded, CREDENTIALS);
    const base = (origin: string) => ids.map((id) => `${origin}/v1/issuers/${seeded.issuerSlug}/assertions/${id}`);

    const rawUrls = base('http://localhost:3000');
    const raw = await inProcessRate(seconds, CONNECTIONS, (n) =>
      // A client per call: each verification is recorded, as when many people verify.
      seeded.app.services.verification.verify.verify(rawUrls[n % rawUrls.length] ?? '', {
        country: 'ZZ',
        client: `bench-${n}`,
      }),
    );
    await seeded.app.services.verification.events.flush();

    const unframed = await loadServer(
      'bench/verify-frameworkless-server.mjs',
      { DATABASE_URL: databaseUrl },
      seconds,
      (url) =>
        posts(
          '/',
          base(url)
            .slice(0, 500)
            .map((id) => JSON.stringify({ id })),
        ),
    );

    const server = await startServer({
      DATABASE_URL: databaseUrl,
      WEBHOOK_DISPATCH: 'off',
      OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
    });
    try {
      const urls = base(server.url);
      const single = await drive(
        server.url,
        seconds,
        posts(
          '/api/v1/verify',
          urls.slice(0, 500).map((id) => JSON.stringify({ id })),
        ),
      );
      // The same route for an id of another host: answered `unknown` without touching the database,
      // so this is the request path alone (hooks, validation, serialisation) beside the bare route.
      const foreign = await drive(
        server.url,
        seconds,
        posts('/api/v1/verify', [JSON.stringify({ id: 'https://elsewhere.example/v1/issuers/x/assertions/y' })]),
      );
      const hosted = await drive(
        server.url,
        seconds,
        gets(ids.slice(0, 500).map((id) => `/v1/issuers/${seeded.issuerSlug}/assertions/${id}`)),
      );
      const page = await drive(
        server.url,
        seconds,
        gets(ids.slice(0, 500).map((id) => `/verify/${seeded.issuerSlug}/${id}`)),
      );
      // Bulk verification last: its phases record about a million events, whose writes (and on
      // PostgreSQL the checkpoints and autovacuum they cause) would otherwise fall into the phases
      // after them.
      const bulkBodies = (size: number) =>
        Array.from({ length: 20 }, (_, k) =>
          JSON.stringify({ ids: urls.slice((k * 97) % (urls.length - size)).slice(0, size) }),
        );
      const bulk100 = await drive(server.url, seconds, posts('/api/v1/verify/bulk', bulkBodies(100)), 8);
      const bulk1000 = await drive(server.url, seconds, posts('/api/v1/verify/bulk', bulkBodies(1000)), 4);
      const ceilingLimit = { name: 'bare Fastify route', rps: ceiling.rps };
      const rss = server.peakRssMb();
      return [
        {
          workload: 'bare Fastify JSON route (HTTP ceiling)',
          rps: ceiling.rps,
          p50Ms: ceiling.p50Ms,
          p99Ms: ceiling.p99Ms,
        },
        { workload: 'raw verify read + event (in-process)', rps: raw.rps, p99Ms: raw.p99Ms },
        {
          workload: 'HTTP verify without a framework (node:http)',
          rps: unframed.rps,
          p50Ms: unframed.p50Ms,
          p99Ms: unframed.p99Ms,
          limit: ceilingLimit,
          ratio: ratio(unframed.rps, ceiling.rps),
          notes: `one read, the event and the answer with the service's views, no hooks (bench/verify-frameworkless-server.mjs); non-2xx ${unframed.non2xx}`,
        },
        {
          workload: 'HTTP verify (single)',
          rps: single.rps,
          p50Ms: single.p50Ms,
          p99Ms: single.p99Ms,
          rssMb: rss,
          limit: ceilingLimit,
          ratio: ratio(single.rps, ceiling.rps),
          target: '>= 20 %',
          pass: single.rps >= 0.2 * ceiling.rps && single.non2xx === 0 && single.errors === 0,
          notes: `${percent(ratio(single.rps, unframed.rps))} of the verify without a framework; non-2xx ${single.non2xx}, errors ${single.errors}`,
        },
        {
          workload: 'HTTP verify of a foreign id (no database)',
          rps: foreign.rps,
          p50Ms: foreign.p50Ms,
          p99Ms: foreign.p99Ms,
          limit: ceilingLimit,
          ratio: ratio(foreign.rps, ceiling.rps),
          notes: `the request path without the read or the event; non-2xx ${foreign.non2xx}`,
        },
        {
          workload: 'hosted assertion read (OB 2.0 JSON)',
          rps: hosted.rps,
          p50Ms: hosted.p50Ms,
          p99Ms: hosted.p99Ms,
          rssMb: rss,
          limit: ceilingLimit,
          ratio: ratio(hosted.rps, ceiling.rps),
          target: '>= 25 %',
          pass: hosted.rps >= 0.25 * ceiling.rps && hosted.non2xx === 0 && hosted.errors === 0,
          notes: `GET /v1/issuers/{slug}/assertions/{id}, 500 ids; non-2xx ${hosted.non2xx}, errors ${hosted.errors}`,
        },
        {
          workload: 'HTTP verify bulk (100 ids)',
          rps: bulk100.rps,
          p50Ms: bulk100.p50Ms,
          p99Ms: bulk100.p99Ms,
          rssMb: rss,
          notes: `${bulk100.rps * 100} ids/s, non-2xx ${bulk100.non2xx}`,
        },
        {
          workload: 'HTTP verify bulk (1,000 ids)',
          rps: bulk1000.rps,
          p50Ms: bulk1000.p50Ms,
          p99Ms: bulk1000.p99Ms,
          rssMb: rss,
          target: engine === 'sqlite' ? 'p99 < 150 ms' : undefined,
          pass: engine === 'sqlite' ? bulk1000.p99Ms < 150 && bulk1000.non2xx === 0 : undefined,
          notes: `${bulk1000.rps * 1000} ids/s, non-2xx ${bulk1000.non2xx}`,
        },
        {
          workload: 'verification page render',
          rps: page.rps,
          p50Ms: page.p50Ms,
          p99Ms: page.p99Ms,
          rssMb: rss,
          limit: ceilingLimit,
          ratio: ratio(page.rps, ceiling.rps),
          target: '>= 15 %',
          pass: page.rps >= 0.15 * ceiling.rps && page.non2xx === 0,
          notes: `non-2xx ${page.non2xx}`,
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    await seeded.close();
  }
}
