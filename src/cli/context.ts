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
