import { describe, expect, it } from 'vitest';
import {
  type AmplificationResult,
  ATTACK_CALLS,
  MAX_ROWS_LEFT,
  runBulkAmplification,
} from '../scripts/reliability/bulk-amplification.js';

describe('reliability: bulk verify amplification (quick tier)', () => {
  it('30 bulk calls of 1,000 copies of one id leave at most a few rows and deliveries, on every engine', async () => {
    const report = await runBulkAmplification({
      full: false,
      postgresUrl: process.env.TEST_DATABASE_URL ?? null,
      log: () => {},
    });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const legs = Object.values(report.figures) as AmplificationResult[];
    expect(legs.length).toBe(process.env.TEST_DATABASE_URL ? 2 : 1);
    for (const leg of legs) {
      expect(leg.answersComplete).toBe(ATTACK_CALLS);
      expect(leg.verificationEvents).toBeLessThanOrEqual(MAX_ROWS_LEFT);
      expect(leg.outboxRows).toBeLessThanOrEqual(MAX_ROWS_LEFT);
      expect(leg.webhookPosts).toBeGreaterThanOrEqual(1);
      expect(leg.webhookPosts).toBeLessThanOrEqual(MAX_ROWS_LEFT);
    }
  }, 240_000);
});
