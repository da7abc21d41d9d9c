import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

export type Engine = 'sqlite' | 'postgres';

export interface BenchDatabase {
  engine: Engine;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one measurement: a temp SQLite file or a new PostgreSQL database. */
export async function freshBenchDatabase(engine: Engine, postgresUrl: string | null): Promise<BenchDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'accolade-bench-'));
    return {
      engine,
      url: `sqlite:${join(dir, 'bench.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!postgresUrl) throw new Error('PostgreSQL benchmarks need DATABASE_URL=postgres://...');
  const name = `accolade_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    engine,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  url: string;
  pid: number;
  /** Peak resident set size seen while sampling, in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

/** The resident set size of process `pid` now, in MB (0 once it has exited). */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

/**
 * The V8 heap bounds `npm start`, the README and docs/deployment.md run the server with
 * (test/server-flags.test.ts keeps them equal to this list). Unbounded, V8 let the heap grow to about
 * four times its live data before a major collection: 398 MB of RSS in the verification workloads
 * on SQLite, 205 MB with the first two flags. The last two hold the heap to 1.25 times its live data
 * and stop V8 from allocating short-lived stream objects straight into the old generation (docs/decisions.md,
 * "Server memory: V8's heap growth and pretenuring").
 */
export const SERVER_NODE_FLAGS = [
  '--max-old-space-size=1024',
  '--max-semi-space-size=8',
  '--heap-growing-percent=25',
  '--no-allocation-site-pretenuring',
] as const;

/** Seconds of a phase's own load run, uncounted, before it is measured (caches filled, code compiled). */
export const WARM_UP_SECONDS = 2;

/**
 * How long a started server may take to answer ready (about 3 s on an idle machine). Generous for a
 * loaded 2-core machine, with the suite running two files at once.
 */
export const READY_WITHIN_MS = 45_000;

/** Whether `url` answers 2xx within 5 s; false while nothing listens there yet. */
export async function answersOk(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).ok;
  } catch {
    return false;
  }
}

/**
 * Spawns `script` listening on `port` of 127.0.0.1 (the built server with the production heap flags),
 * with the harness's environment under `env`. `readyUrl` is where it answers once it is ready.
 */
export function spawnServer(
  port: number,
  env: Record<string, string>,
  script = 'dist/src/server.js',
): { child: ChildProcess; url: string; readyUrl: string } {
  const isApp = script.endsWith('server.js');
  const flags = isApp ? SERVER_NODE_FLAGS : [];
  const child: ChildProcess = spawn(process.execPath, [...flags, script], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      BOOTSTRAP_ISSUER: 'false',
      // PostgreSQL refuses to start without a key-encryption secret for the signing keys.
      SIGNING_KEY_SECRET: 'bench-harness-signing-secret-not-for-production',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  return { child, url, readyUrl: isApp ? `${url}/health/ready` : `${url}/ready` };
}

/**
 * Polls `readyUrl` every `everyMs` until it answers 2xx (true) or `withinMs` have passed (false).
 * A server that exits first is an error.
 */
export async function untilReady(
  child: ChildProcess,
  readyUrl: string,
  withinMs: number,
  everyMs: number,
): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (await answersOk(readyUrl)) return true;
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Stops a spawned server with SIGTERM and waits until it has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Starts a server and waits until it answers ready; stops it and answers null when it does not in
 * time. A server that exits first is an error.
 */
async function launch(
  script: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string } | null> {
  const { child, url, readyUrl } = spawnServer(await freePort(), env, script);
  if (await untilReady(child, readyUrl, READY_WITHIN_MS, 100)) return { child, url };
  child.kill('SIGKILL');
  return null;
}

/**
 * Starts the built server (dist/) as its own process, as production runs it. A start that does not
 * answer ready in time is stopped and tried once more: in one CI run on 2026-11-22 a server hung for
 * good, apparently while Node loaded its modules (no handles, one file close pending, never
 * listening), with the suite running two files at once.
 */
export async function startServer(env: Record<string, string>, script = 'dist/src/server.js'): Promise<RunningServer> {
  let started = await launch(script, env);
  if (!started) {
    process.stderr.write(`${script} did not answer ready within ${READY_WITHIN_MS / 1000} s; starting it again\n`);
    started = await launch(script, env);
  }
  if (!started) throw new Error(`server did not become ready within ${READY_WITHIN_MS / 1000} s, twice`);
  const { child, url } = started;
  let peak = rssMb(child.pid ?? 0);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(child.pid ?? 0));
  }, 250);
  return {
    url,
    pid: child.pid ?? 0,
    peakRssMb: () => peak,
    stop: async () => {
      clearInterval(sampler);
      await stopChild(child);
    },
  };
}

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  non2xx: number;
  status: Record<string, number>;
}

/** An autocannon result as the harness reports it, at `rps` requests per second. */
function summary(result: Awaited<ReturnType<typeof autocannon>>, rps: number): LoadResult {
  return {
    rps: Math.round(rps),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    status: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  };
}

export async function load(options: Parameters<typeof autocannon>[0]): Promise<LoadResult> {
  const result = await autocannon(options);
  return summary(result, result.requests.average);
}

/**
 * Like `load` for a list of distinct requests, with each connection starting at its own place in the
 * list. autocannon gives every connection its own pass over `requests` from the first one, so the
 * connections would ask for the same ids at the same moments, and a server that reads concurrent
 * asks together would read each id once for many answers. One single-connection instance per
 * connection instead, each starting `requests.length / connections` further on, merged.
 */
export async function loadSpread(options: {
  url: string;
  connections: number;
  duration: number;
  requests: NonNullable<Parameters<typeof autocannon>[0]['requests']>;
}): Promise<LoadResult> {
  const { url, connections, duration, requests } = options;
  const results = await Promise.all(
    Array.from({ length: connections }, (_, i) => {
      const offset = Math.floor((i * requests.length) / connections);
      return autocannon({
        url,
        connections: 1,
        duration,
        requests: [...requests.slice(offset), ...requests.slice(0, offset)],
        skipAggregateResult: true,
      });
    }),
  );
  const result = autocannon.aggregateResult(results, { url, connections });
  // The merged per-second histogram is empty without the instances' own; the count is exact.
  return summary(result, result.requests.total / duration);
}

/** Runs `op` from `concurrency` loops for `seconds`; returns operations per second and p99 in ms. */
export async function inProcessRate(
  seconds: number,
  concurrency: number,
  op: (n: number) => Promise<unknown>,
): Promise<{ rps: number; p99Ms: number; operations: number }> {
  const latencies: number[] = [];
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await op(n++);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: Math.round(latencies.length / elapsed),
    p99Ms: Number((latencies[Math.floor(latencies.length * 0.99)] ?? 0).toFixed(2)),
    operations: latencies.length,
  };
}

/**
 * Runs `task(i)` once for each `i` below `count`, taken in turn by `clients` concurrent loops; answers
 * the seconds the whole run took, the p50 and p99 of the tasks in ms, and how many answered false.
 */
export async function eachOnce(
  count: number,
  clients: number,
  task: (i: number) => Promise<boolean>,
): Promise<{ seconds: number; p50Ms: number; p99Ms: number; failures: number }> {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t0 = performance.now();
        const ok = await task(i);
        latencies.push(performance.now() - t0);
        if (!ok) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number((latencies[Math.floor(latencies.length * q)] ?? 0).toFixed(1));
  return { seconds, p50Ms: at(0.5), p99Ms: at(0.99), failures };
}
