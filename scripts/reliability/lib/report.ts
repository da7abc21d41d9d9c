import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, hostname, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Dialect } from './app.js';

/** reports/ of the checkout, or RELIABILITY_REPORTS_DIR to keep a full-tier run's figures apart. */
const REPORTS_DIR = process.env.RELIABILITY_REPORTS_DIR ?? join(import.meta.dirname, '..', '..', '..', 'reports');

/** Where and when a figure was measured, carried by every report. */
export function machine() {
  return {
    date: new Date().toISOString(),
    host: hostname(),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
}

/** Writes reports/reliability-<name>.json and returns its path. */
export function writeReport(name: string, figures: unknown): string {
  mkdirSync(REPORTS_DIR, { recursive: true });
  const file = join(REPORTS_DIR, `reliability-${name}.json`);
  writeFileSync(file, `${JSON.stringify({ machine: machine(), ...(figures as object) }, null, 2)}\n`);
  return file;
}

export interface CommonArgs {
  dialects: Dialect[];
  seed: number | undefined;
  cases: number | undefined;
  operations: string[];
}

/** `--dialect sqlite|postgres|both`, `--cases N`, `--seed N`, `--op <operationId or "GET /path">` (repeatable). */
export function parseCommonArgs(argv: string[]): CommonArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      dialect: { type: 'string', default: 'both' },
      cases: { type: 'string' },
      seed: { type: 'string' },
      op: { type: 'string', multiple: true },
    },
    allowPositionals: true,
  });
  const dialect = values.dialect ?? 'both';
  if (!['sqlite', 'postgres', 'both'].includes(dialect))
    throw new Error(`--dialect ${dialect}: sqlite, postgres or both`);
  const int = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n)) throw new Error(`--${name} ${text}: an integer`);
    return n;
  };
  return {
    dialects: dialect === 'both' ? ['sqlite', 'postgres'] : [dialect as Dialect],
    seed: int('seed', values.seed),
    cases: int('cases', values.cases),
    operations: values.op ?? [],
  };
}

/** Runs a script's main, printing the failure and exiting 1 when it throws or reports a failure. */
export function runMain(main: () => Promise<boolean>): void {
  main().then(
    (passed) => process.exit(passed ? 0 : 1),
    (err) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
