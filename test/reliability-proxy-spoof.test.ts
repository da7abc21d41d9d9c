import { beforeAll, describe, expect, it } from 'vitest';
import { runProxySpoof } from '../scripts/reliability/front-door.js';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';

describe('reliability: forged X-Forwarded-For against the open limit (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('exactly the limit passes whatever the client forges; TRUST_PROXY=true is refused', async () => {
    const report = await runProxySpoof({
      full: false,
      postgresUrl: process.env.TEST_DATABASE_URL ?? null,
      log: () => {},
    });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const legs = ['sqlite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];
    for (const engine of legs) {
      const leg = report.figures[engine] as { passed: number; limit: number };
      expect(leg.passed).toBe(leg.limit);
    }
  }, 240_000);
});
