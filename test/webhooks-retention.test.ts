import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(dialects)('webhook delivery retention on %s', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let issuer: TestIssuer;

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock, env: { WEBHOOK_DELIVERY_RETENTION_DAYS: '7' } });
    issuer = await t.issuer();
  });
  afterAll(async () => t.close());

  it('deletes finished deliveries past the retention period and keeps open and recent ones', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: 'http://127.0.0.1:9/hooks', events: ['credential.issued'] },
    });
    const subscriptionId = (res.json() as { id: string }).id;
    const at = (daysAgo: number) => new Date(clock.now().getTime() - daysAgo * DAY_MS).toISOString();
    const rows = [
      ['old-delivered', 'delivered', at(8)],
      ['old-failed', 'failed', at(30)],
      ['old-cancelled', 'cancelled', at(7.01)],
      ['recent-delivered', 'delivered', at(6.9)],
      ['old-pending', 'pending', at(40)],
      ['old-delivering', 'delivering', at(40)],
    ] as const;
    // More than one prune batch of old rows, to prove the pass goes on until none is left.
    const bulk = Array.from({ length: 2500 }, (_, i) => [`bulk-${i}`, 'delivered', at(9)] as const);
    const values = [...rows, ...bulk].map(([id, status, when]) => ({
      id,
      issuer_id: issuer.id,
      subscription_id: subscriptionId,
      event: 'credential.issued',
      payload: '{}',
      status,
      attempts: 1,
      next_attempt_at: when,
      locked_until: null,
      last_status_code: null,
      last_error: null,
      created_at: when,
      delivered_at: status === 'delivered' ? when : null,
    }));
    for (let i = 0; i < values.length; i += 500) {
      await t.database.db
        .insertInto('webhook_deliveries')
        .values(values.slice(i, i + 500))
        .execute();
    }

    expect(await t.app.services.webhooks.expirySweeper.pruneDeliveries()).toBe(3 + 2500);
    const left = await t.database.db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute();
    expect(left.map((r) => r.id)).toEqual(['old-delivering', 'old-pending', 'recent-delivered']);
    expect(await t.app.services.webhooks.expirySweeper.pruneDeliveries()).toBe(0);
  });

  it('reads the retention from WEBHOOK_DELIVERY_RETENTION_DAYS, 30 days by default', () => {
    expect(t.config.webhookDeliveryRetentionDays).toBe(7);
    expect(loadConfig({}).webhookDeliveryRetentionDays).toBe(30);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
  });
});
