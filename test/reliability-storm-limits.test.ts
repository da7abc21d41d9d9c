import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';
import { QUOTA, runLimits } from '../scripts/reliability/storm-limits.js';

describe('reliability: rate limit and quota under concurrency (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('2L concurrent requests → exactly L succeed; 150 concurrent issues at quota 100 → exactly 100', async () => {
    const report = await runLimits({ full: false, postgresUrl: process.env.TEST_DATABASE_URL ?? null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const rate = report.figures.rateLimit as { overshoot: number; succeeded: number; limit: number }[];
    const quota = report.figures.quota as { overshoot: number; credentials: number }[];
    for (const leg of rate) expect(leg.succeeded).toBe(leg.limit);
    for (const leg of quota) expect(leg.credentials).toBe(QUOTA);
  }, 240_000);
});
