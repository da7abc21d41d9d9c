import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBenchSeeder } from '../bench/lib/bench-seed.js';
import type { Core } from '../src/core/context.js';
import { createAnalyticsService } from '../src/modules/reports/analytics.service.js';
import { createTestApp, type TestApp, type TestIssuer } from './helpers.js';

/**
 * How long the event loop ran code (rather than waiting for I/O) during `work`, in ms: the time
 * other requests could not be served. The smallest of three runs, so a busy machine adds little.
 */
async function loopActiveMs(work: () => Promise<unknown>): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = performance.eventLoopUtilization();
    await work();
    runs.push(performance.eventLoopUtilization(before).active);
  }
  return Math.min(...runs);
}

describe('SQLite analytics reads on the reader thread', () => {
  let t: TestApp;
  let a: TestIssuer;
  // The last 30 and 365 UTC days, today included (a bare `to` covers its whole day).
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const month = { from: day(29), to: day(0) };
  const year = { from: day(364), to: day(0) };

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    a = await t.issuer();
    await createBenchSeeder(t.app.core).seed({
      issuerId: a.id,
      credentials: 50_000,
      verifications: 50_000,
      engagements: 5_000,
      definitions: 10,
    });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('leave the event loop free for most of an analytics request, with the same answer as the main connection', async () => {
    const core: Core = t.app.core;
    const served = t.app.services.reports.analytics;
    // The same service with every read on the main connection, as before the reader.
    const onMain = createAnalyticsService(
      { ...core, database: { ...core.database, reader: core.db } },
      { rollup: t.app.services.reports.rollup, events: t.app.services.verification.events },
    );
    for (const window of [month, year]) {
      const { generatedAt: _a, ...viaReader } = await served.analytics(a.id, window);
      const { generatedAt: _b, ...viaMain } = await onMain.analytics(a.id, window);
      expect(viaReader).toEqual(viaMain);
    }

    // On the main connection the loop is busy for nearly all of the request.
    const main = await loopActiveMs(() => onMain.analytics(a.id, month));
    const reader = await loopActiveMs(() => served.analytics(a.id, month));
    expect(reader).toBeLessThan(main / 2);
  });
});
