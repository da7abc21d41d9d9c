import { sql } from 'kysely';
import { type RunningServer, startServer } from '../../bench/lib/harness.js';
import {
  createReport,
  type Engine,
  enginesFor,
  inspectDatabase,
  type JsonResponse,
  type ReliabilityReport,
  type Report,
  type RunOptions,
  request,
  scalar,
  seedIssuer,
  tally,
  withDatabase,
} from './load.harness.js';

export const QUOTA = 100;
export const QUOTA_REQUESTS = 150;

/** A 429 as documented: Error body rate_limited with Retry-After and the X-RateLimit-* headers. */
function wellFormed429(res: JsonResponse): boolean {
  return (
    res.body.error === 'rate_limited' &&
    typeof res.body.message === 'string' &&
    res.headers.get('retry-after') !== null &&
    res.headers.get('x-ratelimit-limit') !== null &&
    res.headers.get('x-ratelimit-remaining') === '0' &&
    res.headers.get('x-ratelimit-reset') !== null
  );
}

function wellFormed402(res: JsonResponse): boolean {
  return res.body.error === 'quota_exceeded' && res.body.quota === QUOTA && typeof res.body.used === 'number';
}

interface LimitLeg {
  label: string;
  limit: number;
  requests: number;
  status: Record<string, number>;
  succeeded: number;
  overshoot: number;
  malformedRefusals: number;
}

/** 2L concurrent requests spread over the servers: exactly L may succeed. */
async function rateLimitStorm(
  label: string,
  urls: string[],
  limit: number,
  send: (url: string, n: number) => Promise<JsonResponse>,
): Promise<LimitLeg> {
  const answers = await Promise.all(
    Array.from({ length: 2 * limit }, (_, n) => send(urls[n % urls.length] as string, n)),
  );
  const succeeded = answers.filter((a) => a.status === 200).length;
  return {
    label,
    limit,
    requests: answers.length,
    status: tally(answers.map((a) => a.status)),
    succeeded,
    overshoot: succeeded - limit,
    malformedRefusals: answers.filter((a) => a.status !== 200 && !wellFormed429(a)).length,
  };
}

async function rateLimitLegs(report: Report, engine: Engine, options: RunOptions, limit: number): Promise<LimitLeg[]> {
  return withDatabase(engine, options.postgresUrl, async (databaseUrl) => {
    const keyed = await seedIssuer(databaseUrl, { plan: 'starter', planSettings: { requestsPerMinute: limit } });
    const env = { DATABASE_URL: databaseUrl, OPEN_RATE_LIMIT_PER_MINUTE: String(limit), LOG_LEVEL: 'error' };
    const legs: LimitLeg[] = [];
    const server = await startServer(env);
    try {
      legs.push(
        await rateLimitStorm(`${engine} per key`, [server.url], limit, (url) =>
          request(`${url}/api/v1/issuer/me`, { key: keyed.key }),
        ),
      );
      legs.push(
        await rateLimitStorm(`${engine} open (per address)`, [server.url], limit, (url) =>
          request(`${url}/api/v1/verify`, { body: { id: 'no-such-credential' } }),
        ),
      );
    } finally {
      await server.stop();
    }
    const redisUrl = process.env.REDIS_URL;
    if (redisUrl && engine === 'postgres') {
      // Two replicas sharing the Redis store: the limit holds across processes.
      const fresh = await seedIssuer(databaseUrl, { plan: 'starter', planSettings: { requestsPerMinute: limit } });
      const a = await startServer({ ...env, REDIS_URL: redisUrl });
      const b = await startServer({ ...env, REDIS_URL: redisUrl });
      try {
        legs.push(
          await rateLimitStorm(`${engine} per key, 2 processes + Redis`, [a.url, b.url], limit, (url) =>
            request(`${url}/api/v1/issuer/me`, { key: fresh.key }),
          ),
        );
      } finally {
        await a.stop();
        await b.stop();
      }
    } else if (engine === 'postgres') {
      report.log('REDIS_URL unset: the two-process rate-limit leg is skipped');
    }
    return legs;
  });
}

interface QuotaLeg {
  label: string;
  requests: number;
  status: Record<string, number>;
  created: number;
  overshoot: number;
  malformed402: number;
  /** Requests shed with 503 (waited past the pool's connection timeout) and their retries' statuses. */
  shed: number;
  retryStatus: Record<string, number>;
  credentials: number;
  usageCounted: number;
}

async function quotaLeg(engine: Engine, options: RunOptions, processes: number): Promise<QuotaLeg> {
  return withDatabase(engine, options.postgresUrl, async (databaseUrl) => {
    const seeded = await seedIssuer(databaseUrl, {
      plan: 'free',
      planSettings: { issuanceQuota: QUOTA, requestsPerMinute: 100_000_000 },
    });
    const servers: RunningServer[] = [];
    for (let i = 0; i < processes; i++)
      servers.push(await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' }));
    try {
      const issue = (n: number) =>
        request(`${(servers[n % servers.length] as RunningServer).url}/api/v1/credentials`, {
          key: seeded.key,
          body: {
            definitionId: seeded.definitionId,
            recipientEmail: `q${n}@example.test`,
            completionKey: `quota-${n}`,
          },
        });
      const answers = await Promise.all(Array.from({ length: QUOTA_REQUESTS }, (_, n) => issue(n)));
      // A request shed with 503 is retried once with the same key, as a client honouring Retry-After
      // would: its final answer must still be 402 (or 201 within the quota), never an overshoot.
      const shedIndexes = answers.flatMap((a, n) => (a.status === 503 && a.headers.get('retry-after') ? [n] : []));
      const retries: JsonResponse[] = [];
      for (const n of shedIndexes) retries.push(await issue(n));
      const finals = [...answers];
      shedIndexes.forEach((n, k) => {
        finals[n] = retries[k] as JsonResponse;
      });
      const inspector = await inspectDatabase(databaseUrl);
      try {
        const created = finals.filter((a) => a.status === 201).length;
        return {
          label: `${engine} ×${processes} process${processes > 1 ? 'es' : ''}`,
          requests: answers.length,
          status: tally(finals.map((a) => a.status)),
          created,
          overshoot: created - QUOTA,
          malformed402: finals.filter((a) => a.status === 402 && !wellFormed402(a)).length,
          shed: shedIndexes.length,
          retryStatus: tally(retries.map((a) => a.status)),
          credentials: await scalar(
            inspector.db,
            sql`select count(*) as n from credentials where issuer_id = ${seeded.issuerId}`,
          ),
          usageCounted: await scalar(
            inspector.db,
            sql`select coalesce(sum(issuance), 0) as n from usage_counters where issuer_id = ${seeded.issuerId}`,
          ),
        };
      } finally {
        await inspector.close();
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  });
}

/**
 * Issue 9 item 9: 2L concurrent requests against a limit of L per minute → exactly L succeed, the
 * rest 429 as documented; 150 concurrent issues at a quota of 100 → exactly 100 credentials.
 */
export async function runLimits(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('limits', options);
  const limit = options.full ? 600 : 60;
  const rate: LimitLeg[] = [];
  const quota: QuotaLeg[] = [];
  for (const engine of enginesFor(options)) {
    report.log(`${engine}: ${2 * limit} concurrent requests at a limit of ${limit}/min`);
    rate.push(...(await rateLimitLegs(report, engine, options, limit)));
    report.log(`${engine}: ${QUOTA_REQUESTS} concurrent issues at a quota of ${QUOTA}`);
    quota.push(await quotaLeg(engine, options, 1));
    if (engine === 'postgres') quota.push(await quotaLeg(engine, options, 2));
  }
  report.figures.rateLimit = rate;
  report.figures.quota = quota;
  for (const leg of rate) {
    report.check(
      `rate limit ${leg.label}`,
      leg.overshoot === 0 && leg.malformedRefusals === 0 && leg.status['429'] === leg.limit,
      `${leg.succeeded}/${leg.requests} succeeded at L = ${leg.limit} (overshoot ${leg.overshoot}); ${JSON.stringify(leg.status)}; ${leg.malformedRefusals} refusals without the documented body and headers`,
    );
  }
  for (const leg of quota) {
    report.check(
      `quota ${leg.label}`,
      leg.overshoot === 0 &&
        leg.status['402'] === QUOTA_REQUESTS - QUOTA &&
        leg.malformed402 === 0 &&
        leg.credentials === QUOTA &&
        leg.usageCounted === QUOTA,
      `${leg.created} × 201 (overshoot ${leg.overshoot}), final answers ${JSON.stringify(leg.status)}${leg.shed ? ` (${leg.shed} first shed with 503 + Retry-After, retried: ${JSON.stringify(leg.retryStatus)})` : ''}; ${leg.credentials} credentials, ${leg.usageCounted} counted`,
    );
  }
  return report.finish(
    `rate-limit overshoot ${rate.map((r) => `${r.label} ${r.overshoot}`).join(', ')}; quota overshoot ${quota.map((q) => `${q.label} ${q.overshoot}`).join(', ')}`,
  );
}
