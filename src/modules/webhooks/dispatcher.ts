import type { Core } from '../../core/context.js';
import { sendDelivery } from './delivery.http.js';
import { createPollingJob, type PollingJob } from './polling-job.js';
import { type LookupFn, systemLookup } from './ssrf.js';
import { backoffAfter, DELIVERY_LEASE_MS, DELIVERY_TIMEOUT_MS } from './webhooks.constants.js';
import { type ClaimedDelivery, createDeliveryQueue, type DeliveryOutcome } from './webhooks.repository.js';

export interface DispatcherOptions {
  /** DNS resolution of target hosts (default: the system resolver). */
  lookup?: LookupFn;
  /** How long a receiver has to answer 2xx (default DELIVERY_TIMEOUT_MS, the published 10 s). */
  timeoutMs?: number;
  /** Rows claimed per pass; they are sent concurrently. */
  batchSize?: number;
  pollIntervalMs?: number;
}

export interface WebhookDispatcher extends PollingJob {
  /** Claims one batch of due deliveries, sends them and records the outcomes; returns how many. */
  runOnce(): Promise<number>;
  /** Runs passes until nothing is due; returns how many attempts were made. */
  drain(): Promise<number>;
}

/**
 * Sends due outbox rows. Each pass claims a batch in a short transaction (PostgreSQL: FOR UPDATE
 * SKIP LOCKED, so any number of dispatchers share the queue) under a lease; the HTTP calls happen
 * outside any transaction. A dispatcher killed mid-delivery leaves its rows leased: once the lease
 * passes they are due again, so a delivery is never lost (receivers dedupe on the delivery id).
 */
export function createWebhookDispatcher(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'config' | 'log'>,
  options: DispatcherOptions = {},
): WebhookDispatcher {
  const lookup = options.lookup ?? systemLookup;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const batchSize = options.batchSize ?? 25;
  // The lease must outlast an attempt, or a slow receiver's row would be claimed twice.
  const leaseMs = Math.max(DELIVERY_LEASE_MS, 2 * timeoutMs);

  async function attempt(delivery: ClaimedDelivery, leaseUntil: string): Promise<void> {
    const result = await sendDelivery(delivery, {
      allowPrivate: core.config.webhookAllowPrivate,
      lookup,
      timeoutMs,
      now: core.clock.now(),
    });
    const now = core.clock.now();
    const at = now.toISOString();
    const attempts = delivery.attempts + 1;
    const wait = result.ok ? null : backoffAfter(attempts, core.config.webhookBackoffUnitMs);
    const outcome: DeliveryOutcome = {
      status: result.ok ? 'delivered' : wait === null ? 'failed' : 'pending',
      nextAttemptAt: wait === null ? at : new Date(now.getTime() + wait).toISOString(),
      lastStatusCode: result.statusCode,
      lastError: result.error,
      deliveredAt: result.ok ? at : null,
    };
    const recorded = await createDeliveryQueue(core.db, core.dialect).record(delivery, leaseUntil, outcome);
    const context = {
      deliveryId: delivery.id,
      subscriptionId: delivery.subscriptionId,
      event: delivery.event,
      attempts,
      statusCode: result.statusCode,
      error: result.error,
    };
    if (!recorded)
      core.log.warn(context, 'webhook outcome not recorded: the delivery was cancelled or its lease passed');
    else if (outcome.status === 'failed') core.log.warn(context, 'webhook delivery failed for good');
    else if (!result.ok) core.log.info(context, 'webhook attempt failed; retry scheduled');
  }

  async function runOnce(): Promise<number> {
    const now = core.clock.now();
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
    const claimed = await core.db
      .transaction()
      .execute((trx) => createDeliveryQueue(trx, core.dialect).claim(now.toISOString(), leaseUntil, batchSize));
    await Promise.all(claimed.map((delivery) => attempt(delivery, leaseUntil)));
    return claimed.length;
  }

  async function drain(): Promise<number> {
    let total = 0;
    for (let n = await runOnce(); n > 0; n = await runOnce()) total += n;
    return total;
  }

  const job = createPollingJob({
    name: 'webhook-dispatcher',
    intervalMs: options.pollIntervalMs ?? 1_000,
    log: core.log,
    // Keep going while batches come back full; otherwise wait for the next tick.
    pass: async () => {
      let claimed = batchSize;
      while (claimed === batchSize) claimed = await runOnce();
    },
  });

  return { ...job, runOnce, drain };
}
