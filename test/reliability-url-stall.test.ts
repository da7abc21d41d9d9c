import { beforeAll, describe, expect, it } from 'vitest';
import { QUICK_MEDIAN_SLACK_MS, runUrlStall } from '../scripts/reliability/front-door.js';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';

describe('reliability: long URLs against the log redaction (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('four clients sending long URLs: /health as fast as without them, long URLs 414', async () => {
    const report = await runUrlStall({ full: false, postgresUrl: null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const figures = report.figures.sqlite as {
      attackStatus: Record<string, number>;
      health: { p50Ms: number; failures: number };
      control: { p50Ms: number };
    };
    expect(figures.attackStatus['414']).toBeGreaterThan(0);
    expect(figures.health.failures).toBe(0);
    expect(figures.health.p50Ms).toBeLessThanOrEqual(figures.control.p50Ms + QUICK_MEDIAN_SLACK_MS);
  }, 240_000);
});
