import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';
import { runStorm, STORM_KEYS, type StormResult } from '../scripts/reliability/storm.js';

describe('reliability: idempotency storms (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('200 concurrent requests over 20 keys: 20 credentials, one id per key (PostgreSQL: also across two processes)', async () => {
    const report = await runStorm({ full: false, postgresUrl: process.env.TEST_DATABASE_URL ?? null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const legs = Object.values(report.figures) as StormResult[];
    expect(legs.length).toBe(process.env.TEST_DATABASE_URL ? 3 : 1);
    for (const leg of legs) {
      expect(leg.credentials).toBe(STORM_KEYS);
      expect(leg.keysConsistent).toBe(STORM_KEYS);
      expect(leg.auditIssued).toBe(STORM_KEYS);
    }
  }, 240_000);
});
