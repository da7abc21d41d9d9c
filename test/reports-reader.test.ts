import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBenchSeeder } from '../bench/lib/bench-seed.js';
import type { Core } from '../src/core/context.js';
import { createAnalyticsService } from '../src/modules/reports/analytics.service.js';
import { createRollupService } from '../src/modules/reports/rollup.service.js';
import { createTestApp, type TestApp, type TestIssuer } from './helpers.js';

/** A plugin that counts the queries a Kysely instance runs. */
function queryCounter(): KyselyPlugin & { count: number } {
  return {
    count: 0,
    transformQuery(args: PluginTransformQueryArgs) {
      this.count++;
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      return args.result;
    },
  };
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

  it('run every read of an analytics request on the reader thread, none on the main connection, with the same answer', async () => {
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

    // Counted, not timed: whatever runs on the reader thread leaves the event loop free meanwhile
    // (test/sqlite-reader.test.ts shows the loop turning during a long read), so an analytics
    // request that asks nothing of the main connection holds the loop only to shape its answer.
    const onMainConnection = queryCounter();
    const onReader = queryCounter();
    const db = core.db.withPlugin(onMainConnection);
    const counted = {
      ...core,
      db,
      database: { ...core.database, db, reader: core.database.reader.withPlugin(onReader) },
    };
    const analytics = createAnalyticsService(counted, {
      rollup: createRollupService(counted),
      events: t.app.services.verification.events,
    });
    const { generatedAt: _c, ...counted30 } = await analytics.analytics(a.id, month);
    const { generatedAt: _d, ...served30 } = await served.analytics(a.id, month);
    expect(counted30).toEqual(served30);
    expect(onReader.count).toBeGreaterThanOrEqual(10);
    expect(onMainConnection.count).toBe(0);
  });
});
