import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { startServer } from '../../bench/lib/harness.js';
import {
  createReport,
  type Engine,
  enginesFor,
  inspectDatabase,
  metricValue,
  percentile,
  type ReliabilityReport,
  type RunOptions,
  round,
  scalar,
  seedIssuer,
  withDatabase,
} from './load.harness.js';
import { LOAD_CONNECTIONS, mixedLoad } from './load.js';
import { pacedLoad } from './paced.js';

function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const median = (values: number[]) => percentile(values, 50);

/**
 * A control on the same machine: an idle Node process printing its own event-loop p99 every 5 s.
 * The machine is shared; when the control lags too, the server's lag is the machine's, not its own.
 */
function startControlLag(): { samples: number[]; stop(): void } {
  const samples: number[] = [];
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 }); h.enable();
       setInterval(() => { console.log(h.percentile(99) / 1e6); h.reset(); }, 5000);`,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) if (line.trim()) samples.push(Number(line));
  });
  return { samples, stop: () => child.kill('SIGTERM') };
}

export interface SoakLeg {
  engine: Engine;
  measuredMaxRps: number;
  targetRps: number;
  seconds: number;
  achievedRps: number;
  p99Ms: number;
  fiveXx: number;
  socketErrors: number;
  timeouts: number;
  rowDiscrepancy: number;
  rssMb: { baseline: number; end: number; max: number; growthPercent: number };
  eventLoopP99Ms: { median: number; worst: number; samples: number };
  /** The same figure for an idle process on the machine (see startControlLag). */
  controlEventLoopP99Ms: { median: number; worst: number; samples: number };
  loadAverage1m: { start: number; end: number };
  series: { atS: number; rssMb: number; heapUsedMb: number | null }[];
  fds: { start: number; end: number };
}

async function soakLeg(engine: Engine, options: RunOptions, seconds: number, probeSeconds: number): Promise<SoakLeg> {
  return withDatabase(engine, options.postgresUrl, async (databaseUrl) => {
    const seeded = await seedIssuer(databaseUrl);
    const server = await startServer({
      DATABASE_URL: databaseUrl,
      OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'error',
    });
    try {
      const probe = await mixedLoad(server.url, seeded, {
        seconds: probeSeconds,
        connections: LOAD_CONNECTIONS,
        keyPrefix: 'probe-',
      });
      // RELIABILITY_SOAK_RPS pins the rate when the shared machine makes a short probe unrepresentative.
      const pinned = Number(process.env.RELIABILITY_SOAK_RPS ?? '');
      const targetRps = pinned > 0 ? pinned : Math.max(1, Math.floor(probe.rps / 2));
      const rss: { at: number; mb: number }[] = [];
      const lag: number[] = [];
      const started = performance.now();
      const loadStart = round(loadavg()[0] ?? 0, 2);
      await sleep(2_000);
      const fdStart = openFds(server.pid);
      const rssTimer = setInterval(() => rss.push({ at: performance.now() - started, mb: rssMb(server.pid) }), 1_000);
      // Every 30 s: RSS beside the V8 heap in use, to tell a JavaScript leak from native memory.
      const series: { atS: number; rssMb: number; heapUsedMb: number | null }[] = [];
      const seriesTimer = setInterval(() => {
        const atS = Math.round((performance.now() - started) / 1000);
        metricValue(server.url, 'nodejs_heap_size_used_bytes').then(
          (heap) =>
            series.push({
              atS,
              rssMb: round(rssMb(server.pid)),
              heapUsedMb: heap === null ? null : round(heap / 2 ** 20),
            }),
          () => undefined,
        );
      }, 30_000);
      // prom-client resets its event-loop histogram at each scrape: each sample is the p99 since the last.
      await metricValue(server.url, 'nodejs_eventloop_lag_p99_seconds');
      const control = startControlLag();
      const lagTimer = setInterval(() => {
        metricValue(server.url, 'nodejs_eventloop_lag_p99_seconds').then(
          (v) => {
            if (v !== null) lag.push(v * 1000);
          },
          () => undefined,
        );
      }, 5_000);
      const prefix = 'soak-';
      const run = await pacedLoad(server.url, seeded, {
        seconds,
        connections: LOAD_CONNECTIONS,
        keyPrefix: prefix,
        rate: targetRps,
      });
      clearInterval(rssTimer);
      clearInterval(seriesTimer);
      clearInterval(lagTimer);
      control.stop();
      await sleep(2_000);
      const fdEnd = openFds(server.pid);
      const inspector = await inspectDatabase(databaseUrl);
      const rows = await scalar(
        inspector.db,
        sql`select count(*) as n from credentials where completion_key like ${`${prefix}%`} and completion_key <> ${`${prefix}verify-target`}`,
      );
      await inspector.close();
      const rowsAfterRun = rows - (run.replayStatus['201'] ?? 0);
      // Baseline: the first tenth of the run once warm; end: its last tenth.
      const tenth = (seconds * 1000) / 10;
      const baseline = median(rss.filter((r) => r.at >= Math.min(tenth, 60_000) && r.at < 2 * tenth).map((r) => r.mb));
      const end = median(rss.filter((r) => r.at >= 9 * tenth).map((r) => r.mb));
      return {
        engine,
        measuredMaxRps: probe.rps,
        targetRps,
        seconds,
        achievedRps: run.rps,
        p99Ms: run.p99Ms,
        fiveXx: run.fiveXx,
        socketErrors: run.socketErrors,
        timeouts: run.timeouts,
        rowDiscrepancy: rowsAfterRun - (run.issuance.created201 + run.committedWhileUnanswered),
        rssMb: {
          baseline: round(baseline),
          end: round(end),
          max: round(Math.max(...rss.map((r) => r.mb))),
          growthPercent: baseline > 0 ? round(((end - baseline) / baseline) * 100) : 0,
        },
        eventLoopP99Ms: { median: round(median(lag), 2), worst: round(Math.max(0, ...lag), 2), samples: lag.length },
        controlEventLoopP99Ms: {
          median: round(median(control.samples), 2),
          worst: round(Math.max(0, ...control.samples), 2),
          samples: control.samples.length,
        },
        loadAverage1m: { start: loadStart, end: round(loadavg()[0] ?? 0, 2) },
        series,
        fds: { start: fdStart, end: fdEnd },
      };
    } finally {
      await server.stop();
    }
  });
}

/**
 * Issue 9 item 10: a long run at half the measured maximum (mixed issue/verify/list) → RSS growth
 * under 10 % and event-loop p99 under 50 ms, read from the server's own /metrics.
 */
export async function runSoak(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('soak', options);
  const seconds = options.full ? 1_800 : 20;
  const probeSeconds = options.full ? 20 : 3;
  const legs: SoakLeg[] = [];
  for (const engine of enginesFor(options)) {
    report.log(`${engine}: ${probeSeconds} s probe for the maximum, then ${seconds} s at half of it`);
    const leg = await soakLeg(engine, options, seconds, probeSeconds);
    legs.push(leg);
    report.figures[engine] = leg;
    // Twenty seconds show no trend (the heap is still settling): the full tier's 30 minutes gate memory and lag.
    if (options.full) {
      report.check(
        `${engine} RSS growth`,
        leg.rssMb.growthPercent < 10,
        `${leg.rssMb.baseline} → ${leg.rssMb.end} MB (${leg.rssMb.growthPercent} %, max ${leg.rssMb.max} MB)`,
      );
      report.check(
        `${engine} event-loop p99`,
        leg.eventLoopP99Ms.samples > 0 && leg.eventLoopP99Ms.worst < 50,
        `worst 5-s window ${leg.eventLoopP99Ms.worst} ms, median ${leg.eventLoopP99Ms.median} ms over ${leg.eventLoopP99Ms.samples} windows (an idle process on the machine: worst ${leg.controlEventLoopP99Ms.worst} ms, median ${leg.controlEventLoopP99Ms.median} ms; load average ${leg.loadAverage1m.start} → ${leg.loadAverage1m.end})`,
      );
    }
    report.check(
      `${engine} errors`,
      leg.fiveXx === 0 && leg.socketErrors === 0 && leg.timeouts === 0 && leg.rowDiscrepancy === 0,
      `${leg.fiveXx} × 5xx, ${leg.socketErrors} socket errors, ${leg.timeouts} timeouts, rows-201 discrepancy ${leg.rowDiscrepancy}; ${leg.achievedRps} req/s of target ${leg.targetRps} (max ${leg.measuredMaxRps})`,
    );
    report.check(
      `${engine} file descriptors`,
      leg.fds.end <= leg.fds.start + 5,
      `${leg.fds.start} at start, ${leg.fds.end} at the end`,
    );
  }
  return report.finish(
    legs
      .map(
        (l) =>
          `${l.engine} ${l.seconds} s at ${l.targetRps} req/s: RSS ${l.rssMb.growthPercent} %, event-loop p99 worst ${l.eventLoopP99Ms.worst} ms`,
      )
      .join('; '),
  );
}
