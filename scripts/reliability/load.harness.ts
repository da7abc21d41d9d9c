import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely, RawBuilder } from 'kysely';
import pino from 'pino';
import {
  answersOk,
  freePort,
  freshBenchDatabase,
  READY_WITHIN_MS,
  SERVER_NODE_FLAGS,
} from '../../bench/lib/harness.js';
import { loadConfig } from '../../src/config.js';
import { randomIds, systemClock } from '../../src/core/clock.js';
import type { Core } from '../../src/core/context.js';
import { createMetrics } from '../../src/core/metrics.js';
import { createDatabase, type Database, migrateToLatest } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { createServices } from '../../src/services.js';

/**
 * What every reliability script shares: building dist/, seeding an issuer, launching the built server
 * as its own process (with kill -9 and exit detection), reading the database beside it, and writing
 * reports/reliability-<name>.json.
 */

export type Engine = 'sqlite' | 'postgres';

export interface RunOptions {
  /** Full tier (the figures for docs/reliability.md); otherwise the quick tier CI runs. */
  full: boolean;
  /** A PostgreSQL server URL for the PostgreSQL legs; null runs SQLite only. */
  postgresUrl: string | null;
  /** Only the PostgreSQL legs of the scripts that run one leg per engine (enginesFor); needs postgresUrl. */
  postgresOnly?: boolean;
  log?: (line: string) => void;
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export interface ReliabilityReport {
  name: string;
  tier: 'quick' | 'full';
  pass: boolean;
  summary: string;
  startedAt: string;
  durationSeconds: number;
  /** The 1-minute load average when the script started (the machine is shared). */
  loadAverageAtStart: number;
  machine: ReturnType<typeof machineInfo>;
  checks: Check[];
  figures: Record<string, unknown>;
  file: string;
}

export function machineInfo() {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${readOsRelease()}`,
    /** Other work on the machine: the 1-minute load average when the report was written. */
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

function readOsRelease(): string {
  try {
    return /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}

/** Collects checks and figures for one script and writes its report. */
export function createReport(name: string, options: RunOptions) {
  const startedAt = new Date();
  const loadAverageAtStart = Math.round((loadavg()[0] ?? 0) * 100) / 100;
  const checks: Check[] = [];
  const figures: Record<string, unknown> = {};
  const log = options.log ?? ((line: string) => process.stdout.write(`[${name}] ${line}\n`));
  return {
    log,
    figures,
    check(checkName: string, pass: boolean, detail: string): boolean {
      checks.push({ name: checkName, pass, detail });
      log(`${pass ? 'ok  ' : 'FAIL'} ${checkName}: ${detail}`);
      return pass;
    },
    finish(summary: string): ReliabilityReport {
      const pass = checks.length > 0 && checks.every((c) => c.pass);
      // RELIABILITY_REPORTS_DIR keeps a full-tier measurement apart from quick runs writing reports/.
      const dir = process.env.RELIABILITY_REPORTS_DIR ?? 'reports';
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `reliability-${name}.json`);
      const report: ReliabilityReport = {
        name,
        tier: options.full ? 'full' : 'quick',
        pass,
        summary: `${name}: ${pass ? 'PASS' : 'FAIL'} (${options.full ? 'full' : 'quick'}) ${summary}`,
        startedAt: startedAt.toISOString(),
        durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 100) / 10,
        loadAverageAtStart,
        machine: machineInfo(),
        checks,
        figures,
        file,
      };
      writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
      log(report.summary);
      return report;
    },
  };
}

export type Report = ReturnType<typeof createReport>;

const BUILD_LOCK = join('dist', '.reliability-build.lock');

/**
 * Compiles src/ to dist/ (incremental) once at a time: several test files may ask at once, and the
 * server child runs the built code. Throws when the compiler emitted nothing usable.
 */
export async function ensureBuilt(): Promise<void> {
  mkdirSync('dist', { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      // A lock this old was left by a killed build.
      const age = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) rmdirSync(BUILD_LOCK);
      if (Date.now() > deadline) throw new Error('timed out waiting for another build of dist/');
      await sleep(250);
    }
  }
  try {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
      stdio: 'pipe',
    });
  } catch (err) {
    if (!existsSync('dist/src/server.js')) throw err;
    const out = (err as { stdout?: Buffer }).stdout?.toString() ?? '';
    process.stderr.write(`tsc reported errors (dist/ was still emitted):\n${out.slice(0, 2000)}\n`);
  } finally {
    rmdirSync(BUILD_LOCK);
  }
}

/** A PostgreSQL server to use: TEST_DATABASE_URL, else a postgres DATABASE_URL, else none. */
export function postgresUrlFromEnv(): string | null {
  const candidates = [process.env.TEST_DATABASE_URL, process.env.DATABASE_URL];
  return candidates.find((url) => url?.startsWith('postgres')) ?? null;
}

export interface SeededIssuer {
  issuerId: string;
  slug: string;
  key: string;
  definitionId: string;
}

export interface SeedOptions {
  slug?: string;
  plan?: string;
  /** Plan settings applied before the issuer is created (the server reads them at start-up and per key). */
  planSettings?: { issuanceQuota?: number | null; requestsPerMinute?: number };
}

/** Opens the database with the application's own code (migrations included) for seeding and checks. */
export async function openAppDatabase(databaseUrl: string): Promise<{ database: Database; core: Core }> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    BOOTSTRAP_ISSUER: 'false',
    WEBHOOK_DISPATCH: 'off',
  });
  const database = createDatabase(config.database);
  await migrateToLatest(database);
  const core: Core = {
    config,
    database,
    db: database.db,
    dialect: database.dialect,
    clock: systemClock,
    ids: randomIds,
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
  };
  return { database, core };
}

/** Creates an issuer with one definition in `databaseUrl` (enterprise plan, no rate limit unless told). */
export async function seedIssuer(databaseUrl: string, options: SeedOptions = {}): Promise<SeededIssuer> {
  const { database, core } = await openAppDatabase(databaseUrl);
  try {
    const services = createServices(core);
    const plan = options.plan ?? 'enterprise';
    await services.issuers.updatePlan(plan, options.planSettings ?? { requestsPerMinute: 100_000_000 });
    const slug = options.slug ?? `rel-${Math.random().toString(36).slice(2, 10)}`;
    const { issuer, key } = await services.issuers.createIssuer({
      name: `Reliability ${slug}`,
      slug,
      email: `ops@${slug}.example`,
      url: `https://${slug}.example`,
      plan,
    });
    const definition = await services.definitions.create(issuer.id, 'system', {
      name: 'Reliability Badge',
      description: 'Issued by the reliability scripts',
    });
    return { issuerId: issuer.id, slug: issuer.slug, key: key.key, definitionId: definition.id };
  } finally {
    await database.close();
  }
}

/** A read handle on the database a server child uses, for counting what it committed. */
export async function inspectDatabase(databaseUrl: string): Promise<{ db: Kysely<DB>; close(): Promise<void> }> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
  const database = createDatabase(config.database);
  return { db: database.db, close: () => database.close() };
}

/** The single number a `select count(*) as n ...` returns. */
export async function scalar(db: Kysely<DB>, query: RawBuilder<{ n: number | string }>): Promise<number> {
  const result = await query.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

export interface ServerProcess {
  url: string;
  pid: number;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  hasExited(): boolean;
  rssMb(): number;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

function rssOf(pid: number): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

/** The key-encryption secret of every server a harness starts: PostgreSQL refuses to start without one. */
export const HARNESS_SIGNING_KEY_SECRET = 'reliability-harness-signing-secret-not-for-production';

/**
 * Starts dist/src/server.js like bench/lib/harness.ts does, keeping hold of the child so a script can
 * kill -9 it and see whether it ever exits on its own.
 */
export async function launchServer(
  env: Record<string, string>,
  options: { port?: number; readyTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'dist/src/server.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'error',
      BOOTSTRAP_ISSUER: 'false',
      OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
      SIGNING_KEY_SECRET: HARNESS_SIGNING_KEY_SECRET,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let exitValue: number | string | null = null;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      exitValue = code ?? signal ?? 'unknown';
      resolve(exitValue);
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? READY_WITHIN_MS);
  for (;;) {
    if (exitValue !== null) throw new Error(`server exited with ${exitValue} before it was ready`);
    if (await answersOk(`${url}/health/ready`)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('server did not become ready');
    }
    await sleep(100);
  }
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    exited,
    hasExited: () => exitValue !== null,
    rssMb: () => rssOf(pid),
    async kill9() {
      if (exitValue === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (exitValue !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  ms: number;
}

/** One JSON request with a client-side deadline; a network failure is status 0. */
export async function request(
  url: string,
  init: { method?: string; key?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<JsonResponse> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(init.timeoutMs ?? 60_000),
    });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { raw: text.slice(0, 200) };
    }
    return { status: res.status, headers: res.headers, body, ms: performance.now() - started };
  } catch (err) {
    return {
      status: 0,
      headers: new Headers(),
      body: { error: err instanceof Error ? err.name : 'error' },
      ms: performance.now() - started,
    };
  }
}

/** Counts responses by status code. */
export function tally(statuses: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of statuses) out[String(s)] = (out[String(s)] ?? 0) + 1;
  return out;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Databases for one engine leg: a temp SQLite file, or a new database on the PostgreSQL server. */
export async function withDatabase<T>(
  engine: Engine,
  postgresUrl: string | null,
  work: (databaseUrl: string) => Promise<T>,
): Promise<T> {
  const fresh = await freshBenchDatabase(engine, postgresUrl);
  try {
    return await work(fresh.url);
  } finally {
    await fresh.drop();
  }
}

/** The engines a run covers. */
export function enginesFor(options: RunOptions): Engine[] {
  if (options.postgresOnly) {
    if (!options.postgresUrl) throw new Error('postgresOnly needs a PostgreSQL URL');
    return ['postgres'];
  }
  return options.postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** Reads the server's Prometheus text and returns one sample's value (first match). */
export async function metricValue(baseUrl: string, name: string): Promise<number | null> {
  const res = await fetch(`${baseUrl}/metrics`);
  const text = await res.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').pop()) : null;
}

export function sqliteFile(databaseUrl: string): string {
  return databaseUrl.slice('sqlite:'.length);
}
