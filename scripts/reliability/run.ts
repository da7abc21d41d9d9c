import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { enginesFor, ensureBuilt, postgresUrlFromEnv, type RunOptions } from './load.harness.js';

/**
 * `npm run reliability -- [name ...] [--full] [--sqlite-only|--postgres-only] [--no-build]`: runs reliability scripts
 * by name (all of them without a name), each writing reports/reliability-<name>.json, and exits 1 when
 * any fails. The quick tier is the default; --full measures the figures for docs/reliability.md.
 */
interface Outcome {
  pass: boolean;
  summary: string;
}
type Runner = (options: RunOptions) => Promise<Outcome>;

/**
 * Every script by name. Load, storm, limits, crash, faults, soak, backup, csv-flood and the front-door
 * attacks (url-stall, proxy-spoof, slow-body, key-in-query) write their own reports;
 * fuzz, tenant-matrix and canary (modules with their own CLIs) run per dialect here, and their report
 * is written the way their CLIs write it.
 */
const SCRIPTS: Record<string, Runner> = {
  load: async (o) => (await import('./load.js')).runLoad(o),
  storm: async (o) => (await import('./storm.js')).runStorm(o),
  limits: async (o) => (await import('./storm-limits.js')).runLimits(o),
  crash: async (o) => (await import('./crash.js')).runCrash(o),
  faults: async (o) => (await import('./faults.js')).runFaults(o),
  soak: async (o) => (await import('./soak.js')).runSoak(o),
  backup: async (o) => (await import('./backup.js')).runBackup(o),
  'url-stall': async (o) => (await import('./front-door.js')).runUrlStall(o),
  'proxy-spoof': async (o) => (await import('./front-door.js')).runProxySpoof(o),
  'slow-body': async (o) => (await import('./front-door.js')).runSlowBody(o),
  'key-in-query': async (o) => (await import('./front-door.js')).runKeyInQuery(o),
  'bulk-amplification': async (o) => (await import('./bulk-amplification.js')).runBulkAmplification(o),
  'round-three': async (o) => (await import('./round-three.js')).runRoundThree(o),
  'slow-receiver': async (o) => (await import('./slow-receiver.js')).runSlowReceiver(o),
  'csv-flood': async (o) => (await import('./csv-flood.js')).runCsvFlood(o),
  fuzz: async (o) => {
    const fuzz = await import('./fuzz.js');
    const { writeReport } = await import('./lib/report.js');
    const seed = Math.floor(Math.random() * 2 ** 31);
    process.stdout.write(`fuzz seed ${seed} (replay: npx tsx scripts/reliability/fuzz.ts --seed ${seed})\n`);
    const results = [];
    for (const dialect of enginesFor(o)) {
      const casesPerOperation = o.full ? 500 : fuzz.QUICK_CASES[dialect];
      results.push(await fuzz.runFuzz({ dialect, seed, casesPerOperation }));
    }
    writeReport('fuzz', { seed, results });
    return { pass: results.every(fuzz.fuzzPassed), summary: results.map(fuzz.fuzzSummary).join('; ') };
  },
  'tenant-matrix': async (o) => {
    const matrix = await import('./tenant-matrix.js');
    const { writeReport } = await import('./lib/report.js');
    const results = [];
    for (const dialect of enginesFor(o)) results.push(await matrix.runTenantMatrix({ dialect }));
    writeReport('tenant-matrix', { results });
    return { pass: results.every(matrix.matrixPassed), summary: results.map(matrix.matrixSummary).join('; ') };
  },
  canary: async (o) => {
    const canary = await import('./canary.js');
    const { writeReport } = await import('./lib/report.js');
    const results = [];
    for (const dialect of enginesFor(o)) results.push(await canary.runCanary({ dialect }));
    writeReport('canary', { results });
    return { pass: results.every(canary.canaryPassed), summary: results.map(canary.canarySummary).join('; ') };
  },
};

/** True when a PostgreSQL server answers at `url`. */
async function reachablePostgres(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      full: { type: 'boolean', default: false },
      'sqlite-only': { type: 'boolean', default: false },
      'postgres-only': { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
    },
  });
  const names = positionals.length > 0 ? positionals : Object.keys(SCRIPTS);
  const unknown = names.filter((n) => !SCRIPTS[n]);
  if (unknown.length > 0) {
    process.stderr.write(`unknown script(s): ${unknown.join(', ')}; known: ${Object.keys(SCRIPTS).join(', ')}\n`);
    return 64;
  }
  if (values['sqlite-only'] && values['postgres-only']) {
    process.stderr.write('--sqlite-only and --postgres-only exclude each other\n');
    return 64;
  }
  const candidate = postgresUrlFromEnv() ?? 'postgres://postgres@127.0.0.1:5432/test';
  const postgresUrl = values['sqlite-only'] ? null : (await reachablePostgres(candidate)) ? candidate : null;
  if (values['postgres-only'] && !postgresUrl) {
    process.stderr.write(`--postgres-only: PostgreSQL at ${candidate} does not answer\n`);
    return 64;
  }
  if (!postgresUrl && !values['sqlite-only']) {
    process.stdout.write(`PostgreSQL at ${candidate} does not answer: SQLite legs only\n`);
  }
  // The fuzz, tenant-matrix and canary harnesses read the PostgreSQL server from TEST_DATABASE_URL.
  if (postgresUrl) process.env.TEST_DATABASE_URL = postgresUrl;
  if (!values['no-build']) await ensureBuilt();

  const results: Outcome[] = [];
  for (const name of names) {
    const runner = SCRIPTS[name] as Runner;
    try {
      results.push(await runner({ full: values.full === true, postgresUrl, postgresOnly: values['postgres-only'] }));
    } catch (err) {
      process.stderr.write(
        `${name} failed to run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      results.push({ pass: false, summary: `${name}: ERROR ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  process.stdout.write('\nreliability summary\n');
  for (const outcome of results) process.stdout.write(`  ${outcome.summary}\n`);
  return results.every((outcome) => outcome.pass) ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`reliability: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
