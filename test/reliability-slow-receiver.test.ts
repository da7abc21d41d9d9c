import { describe, expect, it } from 'vitest';
import { otherTenantWithinMs, runSlowReceiver, type SlowReceiverResult } from '../scripts/reliability/slow-receiver.js';

describe('reliability: one slow receiver does not delay other tenants (quick tier)', () => {
  it("another tenant's deliveries arrive within the quick tier's bound (not 90 s) while a receiver answering after 9 s has a backlog", async () => {
    const report = await runSlowReceiver({
      full: false,
      postgresUrl: process.env.TEST_DATABASE_URL ?? null,
      log: () => {},
    });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const legs = Object.values(report.figures) as SlowReceiverResult[];
    expect(legs.length).toBe(process.env.TEST_DATABASE_URL ? 2 : 1);
    for (const leg of legs) {
      expect(leg.otherArrived).toBe(leg.otherEvents);
      expect(leg.otherLatencyMs.max).toBeLessThan(otherTenantWithinMs(false));
    }
  }, 240_000);
});
