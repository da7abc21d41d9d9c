import { get } from 'node:http';
import {
  createReport,
  type Engine,
  enginesFor,
  launchServer,
  percentile,
  type ReliabilityReport,
  type RunOptions,
  round,
  type SeededIssuer,
  type ServerProcess,
  seedIssuer,
  tally,
  withDatabase,
} from './load.harness.js';

/** Issue 21 item 2: what the service must hold while a tenant floods it with 10 MiB CSV imports. */
export const RSS_LIMIT_MB = 400;
export const FLOOD_REQUESTS = 32;
const DATA_ROWS = 50_000;
/** The CSV text: the JSON body around it stays under the route's 10 MiB limit. */
const CSV_BYTES = 10 * 1024 * 1024 - 200_000;
const HEALTH_EVERY_MS = 200;
/** "Answering": a probe that gets no 200 within this is a failure (the latency is published, not bounded). */
const HEALTH_TIMEOUT_MS = 10_000;

/** A 50,000-row file of distinct, valid rows just under the body limit: the most work one import can be. */
export function floodCsv(definitionId: string): string {
  const header = 'email,name,definition_id,date,evidence';
  const rowBytes = Math.floor((CSV_BYTES - header.length) / DATA_ROWS);
  const rows = [header];
  for (let i = 0; i < DATA_ROWS; i++) {
    const start = `flood-${i}@flood.example,Learner ${i},${definitionId},2026-01-01,https://evidence.example/${i}/`;
    rows.push(start.padEnd(rowBytes - 1, 'x'));
  }
  return `${rows.join('\n')}\n`;
}

function countOf(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const value of values) out[value] = (out[value] ?? 0) + 1;
  return out;
}

interface Answer {
  status: number;
  error: string | null;
  retryAfter: string | null;
  ms: number;
}

async function postImport(url: string, key: string, body: string): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}/api/v1/ingest/csv`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
      signal: AbortSignal.timeout(300_000),
    });
    const text = await res.text();
    let error: string | null = null;
    if (res.status !== 200) {
      try {
        error = String((JSON.parse(text) as { error?: unknown }).error);
      } catch {
        error = 'not an Error body';
      }
    }
    return { status: res.status, error, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started };
  } catch (err) {
    return {
      status: 0,
      error: err instanceof Error ? err.message : String(err),
      retryAfter: null,
      ms: performance.now() - started,
    };
  }
}

/**
 * Starts an import whose body never finishes and drops its connection after `holdMs`: the import
 * took its slot before its body was read, and must give it back when the connection goes.
 */
async function abandonedImport(url: string, key: string, holdMs: number): Promise<void> {
  const controller = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      stream.enqueue(new TextEncoder().encode(`{"dryRun":true,"csv":"email\\n${'a'.repeat(1024 * 1024)}`));
    },
  });
  const pending = fetch(`${url}/api/v1/ingest/csv`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
    duplex: 'half',
    signal: controller.signal,
  } as RequestInit).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  controller.abort();
  await pending;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}

/**
 * One /health probe on a connection of its own (status, 0 on failure or timeout): on the pool the
 * uploads use, a probe could be sent on a connection the server closes after refusing an upload.
 */
function probeHealth(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = get(`${url}/health`, { agent: false, timeout: HEALTH_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Samples the server's RSS and probes /health until stopped. */
function watch(server: ServerProcess) {
  let peakRssMb = server.rssMb();
  const rss = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, server.rssMb());
  }, 50);
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const probing = (async () => {
    while (running) {
      const started = performance.now();
      if ((await probeHealth(server.url)) === 200) latencies.push(performance.now() - started);
      else failures++;
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
    }
  })();
  return async () => {
    running = false;
    await probing;
    clearInterval(rss);
    return {
      peakRssMb: round(peakRssMb),
      healthProbes: latencies.length + failures,
      healthFailures: failures,
      healthP50Ms: round(percentile(latencies, 50)),
      healthP99Ms: round(percentile(latencies, 99)),
      healthMaxMs: round(Math.max(0, ...latencies)),
    };
  };
}

export interface FloodWave {
  engine: Engine;
  wave: string;
  requests: number;
  keys: number;
  status: Record<string, number>;
  errors: Record<string, number>;
  /** Refusals that are not 429 import_busy with Retry-After. */
  malformedRefusals: number;
  slowestImportMs: number;
  peakRssMb: number;
  healthProbes: number;
  healthFailures: number;
  healthP50Ms: number;
  healthP99Ms: number;
  healthMaxMs: number;
  aliveAfter: boolean;
  /**
   * An import sent after the wave and after an import whose client dropped its connection mid-body:
   * 200 when neither left its slot behind.
   */
  importAfter: number;
}

async function wave(
  engine: Engine,
  label: string,
  server: ServerProcess,
  issuers: { seeded: SeededIssuer; body: string }[],
  requests: number,
): Promise<FloodWave> {
  const stop = watch(server);
  const answers = await Promise.all(
    Array.from({ length: requests }, (_, n) => {
      const { seeded, body } = issuers[n % issuers.length] as { seeded: SeededIssuer; body: string };
      return postImport(server.url, seeded.key, body);
    }),
  );
  const watched = await stop();
  const first = issuers[0] as { seeded: SeededIssuer; body: string };
  if (!server.hasExited()) await abandonedImport(server.url, first.seeded.key, 2_000);
  const after = server.hasExited() ? null : await postImport(server.url, first.seeded.key, first.body);
  return {
    engine,
    wave: label,
    requests,
    keys: issuers.length,
    status: tally(answers.map((a) => a.status)),
    errors: countOf(answers.flatMap((a) => (a.error ? [a.error] : []))),
    malformedRefusals: answers.filter(
      (a) => a.status !== 200 && !(a.status === 429 && a.error === 'import_busy' && a.retryAfter !== null),
    ).length,
    slowestImportMs: Math.round(Math.max(0, ...answers.filter((a) => a.status === 200).map((a) => a.ms))),
    ...watched,
    aliveAfter: !server.hasExited(),
    importAfter: after?.status ?? 0,
  };
}

/**
 * Floods one server with concurrent 10 MiB dry-run imports: 32 from one free-plan key (the attack
 * issue 21 reproduced), and in the full tier 32 spread over 8 keys, so the per-process bound, not
 * the per-issuer one, is what holds. Checks the process stays up under 400 MB of RSS with /health
 * answering, that every refusal is a 429 import_busy with Retry-After, and that a later import of
 * the same key runs, after one more whose client dropped the connection mid-body.
 */
export async function runCsvFlood(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('csv-flood', options);
  const waves: FloodWave[] = [];
  for (const engine of enginesFor(options)) {
    const legs = await withDatabase(engine, options.postgresUrl, async (databaseUrl) => {
      const keys = options.full ? 8 : 1;
      const issuers: { seeded: SeededIssuer; body: string }[] = [];
      for (let i = 0; i < keys; i++) {
        const seeded = await seedIssuer(databaseUrl, { plan: 'free' });
        issuers.push({ seeded, body: JSON.stringify({ csv: floodCsv(seeded.definitionId), dryRun: true }) });
      }
      const server = await launchServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' });
      try {
        const legs: FloodWave[] = [];
        report.log(`${engine}: ${FLOOD_REQUESTS} concurrent 10 MiB dry runs from one free-plan key`);
        legs.push(await wave(engine, 'one key', server, issuers.slice(0, 1), FLOOD_REQUESTS));
        if (options.full && !server.hasExited()) {
          report.log(`${engine}: ${FLOOD_REQUESTS} concurrent 10 MiB dry runs from ${keys} keys`);
          legs.push(await wave(engine, `${keys} keys`, server, issuers, FLOOD_REQUESTS));
        }
        return legs;
      } finally {
        await server.stop();
      }
    });
    waves.push(...legs);
  }
  report.figures.waves = waves;
  for (const w of waves) {
    const name = `${w.engine} ${w.wave}`;
    report.check(
      `${name}: the process lives under ${RSS_LIMIT_MB} MB`,
      w.aliveAfter && w.peakRssMb < RSS_LIMIT_MB,
      `alive ${w.aliveAfter}, peak RSS ${w.peakRssMb} MB`,
    );
    report.check(
      `${name}: /health answers throughout`,
      w.healthFailures === 0 && w.healthProbes > 0,
      `${w.healthProbes} probes, ${w.healthFailures} failed or over ${HEALTH_TIMEOUT_MS} ms; p50 ${w.healthP50Ms} ms, p99 ${w.healthP99Ms} ms, max ${w.healthMaxMs} ms`,
    );
    report.check(
      `${name}: imports run or are refused with 429 import_busy`,
      (w.status['200'] ?? 0) >= 1 && w.malformedRefusals === 0,
      `${JSON.stringify(w.status)} ${JSON.stringify(w.errors)}; slowest import ${w.slowestImportMs} ms`,
    );
    report.check(
      `${name}: an import after the flood and a dropped upload runs`,
      w.importAfter === 200,
      `status ${w.importAfter}`,
    );
  }
  return report.finish(
    waves
      .map(
        (w) =>
          `${w.engine} ${w.wave}: peak RSS ${w.peakRssMb} MB, /health p99 ${w.healthP99Ms} ms, ${JSON.stringify(w.status)}`,
      )
      .join('; '),
  );
}
