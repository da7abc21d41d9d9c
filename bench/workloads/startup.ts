import { execFileSync } from 'node:child_process';
import { type Engine, freePort, freshBenchDatabase, spawnServer, stopChild, untilReady } from '../lib/harness.js';
import type { WorkloadResult } from '../lib/results.js';

/** Starts measured per row: the row shows the median (p50) and the slowest (p99 column). */
const STARTS = 3;
const FRESH_TARGET_MS = 3_000;
const WARM_TARGET_MS = 1_500;
/** `npm start`'s check when nothing changed: a walk of the source folders' times, no build. */
const CHECK_TARGET_MS = 500;
const CHECK_ONLY = "import { staleReason } from './scripts/build-if-stale.mjs'; staleReason();";
/** A start that has not answered by then has failed the row whatever it does later. */
const GIVE_UP_MS = 60_000;

/**
 * Milliseconds from spawning `node dist/src/server.js` (with the production heap flags) to its first
 * 200 from /health/ready, polled every 10 ms; the server is stopped again at once.
 */
async function timeToReady(databaseUrl: string): Promise<number> {
  const port = await freePort();
  const began = performance.now();
  const { child, readyUrl } = spawnServer(port, { DATABASE_URL: databaseUrl });
  try {
    await untilReady(child, readyUrl, GIVE_UP_MS, 10);
    return performance.now() - began;
  } finally {
    await stopChild(child);
  }
}

function row(workload: string, times: number[], targetMs: number, notes: string): WorkloadResult {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const slowest = sorted[sorted.length - 1] ?? 0;
  return {
    workload,
    rps: 0,
    p50Ms: Math.round(median),
    p99Ms: Math.round(slowest),
    target: `p50 <= ${targetMs.toLocaleString('en')} ms`,
    pass: median <= targetMs,
    notes: `${notes}; ${times.map((t) => Math.round(t)).join(', ')} ms`,
  };
}

/**
 * Issue 37, "Start in a second": how long the built server takes to answer /health/ready, on a
 * fresh database (it migrates first) and on a warm one (the same database again), and how long
 * `npm start`'s build check takes when dist/ is current.
 */
export async function startupWorkloads(engine: Engine, postgresUrl: string | null): Promise<WorkloadResult[]> {
  const fresh: number[] = [];
  const warm: number[] = [];
  for (let n = 0; n < STARTS; n++) {
    const db = await freshBenchDatabase(engine, postgresUrl);
    try {
      fresh.push(await timeToReady(db.url));
      warm.push(await timeToReady(db.url));
    } finally {
      await db.drop();
    }
  }
  // The check alone, in its own Node process as `npm start` runs it; whether it finds dist/ stale
  // does not matter here (files others save meanwhile would start a build, which is not measured).
  const check: number[] = [];
  for (let n = 0; n < STARTS; n++) {
    const began = performance.now();
    execFileSync(process.execPath, ['--input-type=module', '-e', CHECK_ONLY], { stdio: 'inherit' });
    check.push(performance.now() - began);
  }
  return [
    row('start: ready, fresh database', fresh, FRESH_TARGET_MS, 'spawn to first 200 from /health/ready, migrating'),
    row('start: ready, warm database', warm, WARM_TARGET_MS, 'spawn to first 200 from /health/ready'),
    row(
      'npm start: build check',
      check,
      CHECK_TARGET_MS,
      'a Node process running the check of scripts/build-if-stale.mjs, no build',
    ),
  ];
}
