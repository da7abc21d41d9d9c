import { beforeAll, describe, expect, it } from 'vitest';
import { CRASH_SEED, type CrashLegResult, killPoints, runCrash } from '../scripts/reliability/crash.js';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';

describe('reliability: kill -9 during a CSV import (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('derives the same kill points from the seed', () => {
    expect(killPoints(50_000, 5, CRASH_SEED)).toEqual(killPoints(50_000, 5, CRASH_SEED));
    expect(new Set(killPoints(50_000, 5, CRASH_SEED)).size).toBe(5);
  });

  it('restart and re-run: exactly N credentials, one audit record each, integrity ok, every webhook sent', async () => {
    const report = await runCrash({ full: false, postgresUrl: process.env.TEST_DATABASE_URL ?? null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const sqlite = report.figures.sqlite as CrashLegResult;
    expect(sqlite.kills.every((k) => k.midImport)).toBe(true);
    expect(sqlite.credentials).toBe(sqlite.rows);
    expect(sqlite.integrity).toBe('ok');
    expect(sqlite.webhooks.credentialsNotified).toBe(sqlite.rows);
    // A bound for a loaded 2-core machine, not a speed: the run waits on its conditions (crash.ts).
  }, 2_400_000);
});
