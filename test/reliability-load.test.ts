import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';
import { type MixedLoadResult, runLoad } from '../scripts/reliability/load.js';

describe('reliability: load (quick tier, the built server in its own process)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('mixed issue/verify/list at 50 connections: 0 × 5xx, 0 socket errors, rows = 201 answers', async () => {
    const report = await runLoad({ full: false, postgresUrl: process.env.TEST_DATABASE_URL ?? null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    for (const engine of process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']) {
      const leg = report.figures[engine] as MixedLoadResult;
      expect(leg.fiveXx).toBe(0);
      expect(leg.socketErrors).toBe(0);
      expect(leg.issuance.created201).toBeGreaterThan(0);
      expect(leg.rowDiscrepancy).toBe(0);
    }
  }, 240_000);
});
