import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { Core } from '../core/context.js';
import type { Database } from '../db/database.js';
import type { Services } from '../services.js';

export interface CliContext {
  config: Readonly<Config>;
  database: Database;
  core: Core;
  services: Services;
  out: (line: string) => void;
}

/** A console command: parses its own arguments, returns the process exit code. */
export type CliCommand = (args: string[], ctx: CliContext) => Promise<number>;

export class UsageError extends Error {}

export function requireOption(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

type StringOptions = Record<string, { type: 'string' }>;

/**
 * `parseArgs` over options that all take a value. A value that starts with a dash and a digit
 * (`--quota -5`) is taken as the option's value, so the number check can say what is wrong with it
 * instead of `parseArgs` calling the argument ambiguous.
 */
export function parseOptions<O extends StringOptions>(args: string[], options: O): Partial<Record<keyof O, string>> {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : '';
    if (name in options && next !== undefined && /^-[\d.]/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return parseArgs({ args: joined, options, strict: true, allowPositionals: false }).values as Partial<
    Record<keyof O, string>
  >;
}

/** A whole-number option (digits only, at least `min`), or undefined when it was not given. */
export function integerOption(values: Record<string, string | undefined>, name: string, min = 0): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < min) {
    throw new UsageError(`--${name} takes a whole number of at least ${min}, not "${value}"`);
  }
  return parsed;
}

/** Prints rows as tab-separated lines under a header row, or `empty` when there are none. */
export function printTable(out: (line: string) => void, header: string[], rows: string[][], empty: string): void {
  if (rows.length === 0) {
    out(empty);
    return;
  }
  out(header.join('\t'));
  for (const row of rows) out(row.join('\t'));
}
