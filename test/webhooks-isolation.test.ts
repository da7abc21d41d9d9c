import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDispatcher, PER_ENDPOINT_IN_FLIGHT } from '../src/modules/webhooks/dispatcher.js';
import { BREAKER_FAILURES, BREAKER_OPEN_MS } from '../src/modules/webhooks/endpoint-breaker.js';
import type { WebhookEvent } from '../src/modules/webhooks/outbox.service.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { answer, type Receiver, startReceiver } from './webhooks.support.js';

describe.each(dialects)('webhook endpoints isolated from each other on %s', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let slowIssuer: TestIssuer;
  let otherIssuer: TestIssuer;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    slowIssuer = await t.issuer();
    otherIssuer = await t.issuer();
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
    await t.database.db.updateTable('webhook_subscriptions').set({ deleted_at: clock.now().toISOString() }).execute();
    await t.database.db.updateTable('webhook_deliveries').set({ status: 'cancelled' }).execute();
  });
  afterAll(async () => t.close());

  async function receiver(behaviour = answer(200)) {
    const r = await startReceiver(behaviour);
    receivers.push(r);
    return r;
  }

  async function subscribe(issuer: TestIssuer, url: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url, events: ['credential.issued'] },
    });
    expect(res.statusCode).toBe(201);
  }

  async function emit(issuer: TestIssuer, count: number) {
    const events = Array.from({ length: count }, (_, n) => ({
      event: 'credential.issued' as WebhookEvent,
      data: { n },
    }));
    await t.database.db.transaction().execute((trx) => t.app.services.outbox.enqueueMany(trx, issuer.id, events));
  }

  it("delivers another tenant's event while a receiver holds every attempt sent to it", async () => {
    const held: (() => void)[] = [];
    const stalled = await receiver((_i, res) => held.push(() => res.writeHead(200).end()));
    const fast = await receiver();
    await subscribe(slowIssuer, stalled.url);
    await subscribe(otherIssuer, fast.url);
    await emit(slowIssuer, 40);
    const dispatcher = createWebhookDispatcher(t.app.core, { pollIntervalMs: 20 });
    dispatcher.start();
    try {
      await stalled.waitFor(PER_ENDPOINT_IN_FLIGHT);
      await emit(otherIssuer, 1);
      // Arrives while all of the stalled receiver's attempts are still unanswered.
      await fast.waitFor(1);
      expect(held).toHaveLength(PER_ENDPOINT_IN_FLIGHT);
      expect(stalled.requests).toHaveLength(PER_ENDPOINT_IN_FLIGHT);
    } finally {
      stalled.behave(answer(200));
      for (const release of held.splice(0)) release();
      await dispatcher.stop();
    }
  });

  it('backs off from an endpoint that keeps failing, without spending its rows, and probes it after the cool-down', async () => {
    const failing = await receiver(answer(500));
    const fast = await receiver();
    await subscribe(slowIssuer, failing.url);
    await subscribe(otherIssuer, fast.url);
    await emit(slowIssuer, 20);
    await emit(otherIssuer, 3);
    const dispatcher = createWebhookDispatcher(t.app.core);

    await dispatcher.drain();
    // Two lanes' worth of attempts: the breaker opened at the BREAKER_FAILURES-th failure.
    expect(BREAKER_FAILURES).toBeLessThanOrEqual(2 * PER_ENDPOINT_IN_FLIGHT);
    expect(failing.requests).toHaveLength(2 * PER_ENDPOINT_IN_FLIGHT);
    expect(fast.requests).toHaveLength(3);
    const untouched = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('issuer_id', '=', slowIssuer.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', 0)
      .execute();
    expect(untouched).toHaveLength(20 - 2 * PER_ENDPOINT_IN_FLIGHT);

    // Open: nothing is sent to it even once its rows' retries are due.
    clock.advance(BREAKER_OPEN_MS - 1);
    expect(await dispatcher.runOnce()).toBe(0);

    // Half-open after the cool-down: one probe; it succeeds, the breaker closes, the rest go.
    clock.advance(1);
    failing.behave(answer(200));
    expect(await dispatcher.runOnce()).toBe(1);
    await dispatcher.drain();
    const delivered = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('issuer_id', '=', slowIssuer.id)
      .where('status', '=', 'delivered')
      .execute();
    expect(delivered.length).toBeGreaterThanOrEqual(20 - 2 * PER_ENDPOINT_IN_FLIGHT);
  });
});
