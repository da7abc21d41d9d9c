import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freshBenchDatabase } from '../../bench/lib/harness.js';
import { ensureBuilt, inspectDatabase, machineInfo, round, seedIssuer } from '../reliability/load.harness.js';
import { type Cluster, createClient, findNginx, NGINX_MISSING, nginxVersion, startCluster } from './cluster.js';
import {
  type CheckFn,
  type IdempotencyFigures,
  idempotencyLeg,
  type KillFigures,
  killLeg,
  type LegContext,
  type RateLimitFigures,
  rateLimitLeg,
  type ThroughputFigures,
  throughputLeg,
  type WebhookFigures,
  webhookLeg,
} from './legs.js';
import { startReceiver } from './receiver.js';

/**
 * `npx tsx scripts/scale-out/run.ts [--quick] [--no-build]`: issue 10 item 5, the scale-out proof.
 * Two API processes and `accolade worker` processes on one fresh PostgreSQL database and Redis,
 * behind nginx on loopback: shared rate limits, idempotency across replicas, exactly-once webhooks,
 * the steady issuance rate through the proxy (with CPU per request by component) and no lost work
 * when a replica is SIGKILLed under load. Writes reports/scale-out.json, prints a
 * one-line summary and exits 1 when any check fails. PostgreSQL: TEST_DATABASE_URL or DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres), where a database is created and dropped;
 * Redis: REDIS_URL (default redis://127.0.0.1:6379).
 */

export interface ScaleOutSizes {
  /** Requests per minute of the rate-limited plan and of the open limit per client address. */
  rateLimit: number;
  idempotencyRequests: number;
  idempotencyKeys: number;
  /** Credentials issued for the webhook leg, and how many of them are issued already expired. */
  webhookIssued: number;
  webhookExpiring: number;
  workers: number;
  /** Steady issuance through the proxy before the kill run: seconds and connections. */
  steadySeconds: number;
  steadyConnections: number;
  killRequests: number;
  killConnections: number;
  /** Fraction of the kill leg's answers received when replica 2 is SIGKILLed. */
  killAt: number;
}

export const FULL_SIZES: ScaleOutSizes = {
  rateLimit: 20,
  idempotencyRequests: 200,
  idempotencyKeys: 20,
  webhookIssued: 1_000,
  webhookExpiring: 200,
  workers: 2,
  steadySeconds: 20,
  steadyConnections: 32,
  killRequests: 20_000,
  killConnections: 32,
  killAt: 0.3,
};

export const QUICK_SIZES: ScaleOutSizes = {
  rateLimit: 20,
  idempotencyRequests: 200,
  idempotencyKeys: 20,
  webhookIssued: 100,
  webhookExpiring: 20,
  workers: 2,
  steadySeconds: 2,
  steadyConnections: 16,
  killRequests: 1_000,
  killConnections: 16,
  killAt: 0.3,
};

export interface ScaleOutOptions {
  postgresUrl: string;
  redisUrl: string;
  sizes: ScaleOutSizes;
  log?: (line: string) => void;
  /**
   * Given the emergency cleanup while the run holds processes and a database (null once released):
   * it signals every process by PID at once, then drops the database. For a signal handler.
   */
  onResources?: (abort: (() => Promise<void>) | null) => void;
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export interface ScaleOutReport {
  name: 'scale-out';
  pass: boolean;
  summary: string;
  startedAt: string;
  durationSeconds: number;
  /** The 1-minute load average when the run started: the machine is shared, and the rates show it. */
  loadAverageAtStart: number;
  machine: ReturnType<typeof machineInfo>;
  topology: Record<string, unknown>;
  sizes: ScaleOutSizes;
  checks: Check[];
  figures: {
    rateLimit?: RateLimitFigures;
    idempotency?: IdempotencyFigures;
    webhooks?: WebhookFigures;
    throughput?: ThroughputFigures;
    kill?: KillFigures;
  };
}

async function serverVersions(postgresUrl: string, redisUrl: string) {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  const postgres = String((await client.query('show server_version')).rows[0]?.server_version ?? 'unknown');
  await client.end();
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000 });
  try {
    await redis.connect();
    const info = await redis.info('server');
    return { postgres, redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown' };
  } finally {
    redis.disconnect();
  }
}

function summaryOf(pass: boolean, checks: Check[], f: ScaleOutReport['figures']): string {
  const parts = [
    f.rateLimit &&
      `rate limit ${f.rateLimit.keyed.succeeded}/${f.rateLimit.keyed.requests} at ${f.rateLimit.limit}/min across replicas`,
    f.idempotency &&
      `idempotency ${f.idempotency.requests} requests/${f.idempotency.keys} keys → ${f.idempotency.credentials} credentials`,
    f.webhooks &&
      `webhooks ${f.webhooks.count.deliveries} delivered by ${f.webhooks.workers} workers, ${f.webhooks.count.repeatedDeliveryIds} repeats`,
    f.throughput && `steady ${f.throughput.rps} issues/s through nginx (p99 ${f.throughput.p99Ms} ms)`,
    f.kill &&
      `kill: ${f.kill.requests} issues at ${f.kill.rps}/s, ${f.kill.kill.failed} failed at the SIGKILL → retried, ${f.kill.rows} rows for ${f.kill.requests} keys, ${f.kill.lost} lost`,
  ].filter(Boolean);
  const failed = checks.filter((c) => !c.pass).map((c) => c.name);
  return `scale-out: ${pass ? 'PASS' : 'FAIL'} ${parts.join('; ')}${failed.length > 0 ? `; failed: ${failed.join(', ')}` : ''}`;
}

/** Runs the proofs on a fresh database and returns the report (main writes it). */
export async function runScaleOut(options: ScaleOutOptions): Promise<ScaleOutReport> {
  const started = new Date();
  const loadAverageAtStart = round(loadavg()[0] ?? 0, 2);
  const log = options.log ?? ((line: string) => process.stdout.write(`[scale-out] ${line}\n`));
  const checks: Check[] = [];
  const check: CheckFn = (name, pass, detail) => {
    checks.push({ name, pass, detail });
    log(`${pass ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
    return pass;
  };
  const figures: ScaleOutReport['figures'] = {};
  const { sizes } = options;
  const nginx = findNginx();
  const topology: Record<string, unknown> = {
    apiProcesses: 2,
    workers: sizes.workers,
    proxy: nginx ? nginxVersion(nginx) : 'missing',
  };
  const finish = (): ScaleOutReport => {
    const pass = checks.length > 0 && checks.every((c) => c.pass);
    return {
      name: 'scale-out',
      pass,
      summary: summaryOf(pass, checks, figures),
      startedAt: started.toISOString(),
      durationSeconds: round((Date.now() - started.getTime()) / 1000),
      loadAverageAtStart,
      machine: machineInfo(),
      topology,
      sizes,
      checks,
      figures,
    };
  };
  if (!nginx) {
    check('nginx installed', false, NGINX_MISSING);
    return finish();
  }
  Object.assign(topology, await serverVersions(options.postgresUrl, options.redisUrl));

  const database = await freshBenchDatabase('postgres', options.postgresUrl);
  let cluster: Cluster | null = null;
  options.onResources?.(async () => {
    cluster?.killNow();
    await database.drop();
  });
  const receiver = await startReceiver();
  const inspector = await inspectDatabase(database.url);
  try {
    const tag = Math.random().toString(36).slice(2, 8);
    log(`database ${new URL(database.url).pathname.slice(1)}; seeding issuers`);
    // Plans are read per key at request time; they are set before the replicas start all the same.
    const limited = await seedIssuer(database.url, {
      slug: `scale-limit-${tag}`,
      plan: 'starter',
      planSettings: { requestsPerMinute: sizes.rateLimit },
    });
    const idempotent = await seedIssuer(database.url, { slug: `scale-idem-${tag}` });
    const hooked = await seedIssuer(database.url, { slug: `scale-hooks-${tag}` });
    const steady = await seedIssuer(database.url, { slug: `scale-steady-${tag}` });
    const loaded = await seedIssuer(database.url, { slug: `scale-kill-${tag}` });

    cluster = await startCluster({
      databaseUrl: database.url,
      redisUrl: options.redisUrl,
      replicas: 2,
      openRateLimitPerMinute: sizes.rateLimit,
      expirySweepIntervalMs: 500,
    });
    log(
      `nginx :${cluster.proxy.port} → replicas :${cluster.replicaPorts.join(', :')} (pids ${cluster.replicas.map((r) => r.pid).join(', ')})`,
    );
    const client = createClient(cluster.proxy.url);
    const ctx: LegContext = { cluster, client, db: inspector.db, receiver, check, log };
    try {
      log(`1. rate limits: ${2 * sizes.rateLimit} requests at ${sizes.rateLimit}/min`);
      figures.rateLimit = await rateLimitLeg(ctx, limited, sizes.rateLimit);
      log(`2. idempotency: ${sizes.idempotencyRequests} concurrent requests over ${sizes.idempotencyKeys} keys`);
      figures.idempotency = await idempotencyLeg(ctx, idempotent, sizes.idempotencyRequests, sizes.idempotencyKeys);
      log(
        `3. webhooks: ${sizes.webhookIssued} issued (${sizes.webhookExpiring} expired), then ${sizes.workers} workers`,
      );
      figures.webhooks = await webhookLeg(ctx, hooked, {
        issued: sizes.webhookIssued,
        expiring: sizes.webhookExpiring,
        workers: sizes.workers,
      });
      log(`4. steady issuance: ${sizes.steadySeconds} s at ${sizes.steadyConnections} connections`);
      figures.throughput = await throughputLeg(ctx, steady, {
        seconds: sizes.steadySeconds,
        connections: sizes.steadyConnections,
      });
      log(`5. kill: ${sizes.killRequests} issues at ${sizes.killConnections} connections, SIGKILL replica 2`);
      figures.kill = await killLeg(ctx, loaded, {
        requests: sizes.killRequests,
        connections: sizes.killConnections,
        killAt: sizes.killAt,
      });
    } finally {
      await client.close();
    }
  } catch (err) {
    check('run completed', false, err instanceof Error ? (err.stack ?? err.message) : String(err));
  } finally {
    await cluster?.close();
    await receiver.close();
    await inspector.close();
    await database.drop();
    options.onResources?.(null);
  }
  return finish();
}

function writeReport(report: ScaleOutReport): string {
  mkdirSync('reports', { recursive: true });
  const file = join('reports', 'scale-out.json');
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { quick: { type: 'boolean', default: false }, 'no-build': { type: 'boolean', default: false } },
  });
  if (!findNginx()) {
    process.stderr.write(`${NGINX_MISSING}\n`);
    return 1;
  }
  if (!values['no-build']) await ensureBuilt();
  const postgresUrl =
    [process.env.TEST_DATABASE_URL, process.env.DATABASE_URL].find((url) => url?.startsWith('postgres')) ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  let abort: (() => Promise<void>) | null = null;
  // Ctrl-C or a kill ends every process this run started and drops its database before exiting.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      const cleanup = abort ? abort() : Promise.resolve();
      const timer = setTimeout(() => process.exit(130), 10_000);
      cleanup.finally(() => {
        clearTimeout(timer);
        process.exit(130);
      });
    });
  }
  const report = await runScaleOut({
    postgresUrl,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    sizes: values.quick ? QUICK_SIZES : FULL_SIZES,
    onResources: (cleanup) => {
      abort = cleanup;
    },
  });
  const file = writeReport(report);
  process.stdout.write(`${report.summary} (${report.durationSeconds} s, ${file})\n`);
  return report.pass ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`scale-out: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
