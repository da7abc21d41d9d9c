import type { Core } from '../../core/context.js';
import { sendDelivery } from './delivery.http.js';
import { createEndpointBreaker } from './endpoint-breaker.js';
import { createPollingJob, type PollingJob } from './polling-job.js';
import { type LookupFn, systemLookup } from './ssrf.js';
import { createWebhookSecrets } from './webhook-secrets.js';
import { backoffAfter, DELIVERY_LEASE_MS, DELIVERY_TIMEOUT_MS } from './webhooks.constants.js';
import { type ClaimedDelivery, createDeliveryQueue, type DeliveryOutcome } from './webhooks.repository.js';

/** Attempts one dispatcher has in flight to one endpoint (subscription) at most. */
export const PER_ENDPOINT_IN_FLIGHT = 4;
/** Attempts one dispatcher has in flight in all. */
export const MAX_IN_FLIGHT = 32;

export interface DispatcherOptions {
  /** DNS resolution of target hosts (default: the system resolver). */
  lookup?: LookupFn;
  /** How long a receiver has to answer 2xx (default DELIVERY_TIMEOUT_MS, the published 10 s). */
  timeoutMs?: number;
  /** Attempts in flight in all (default MAX_IN_FLIGHT). */
  maxInFlight?: number;
  /** Attempts in flight per endpoint (default PER_ENDPOINT_IN_FLIGHT). */
  perEndpoint?: number;
  pollIntervalMs?: number;
}

export interface WebhookDispatcher extends PollingJob {
  /** Claims what the free slots allow, sends it and records the outcomes; returns how many were attempted. */
  runOnce(): Promise<number>;
  /** Runs passes until nothing is due (or only endpoints backed off are); returns how many attempts were made. */
  drain(): Promise<number>;
}

/**
 * Sends due outbox rows, each endpoint in its own lane: at most `perEndpoint` attempts in flight to
 * one subscription and `maxInFlight` in all, with no barrier between them. A slot that frees up is
 * refilled at once, so a receiver that takes 9 s to answer occupies its own lane and nobody else's.
 * An endpoint that keeps failing is skipped by the circuit breaker (endpoint-breaker.ts).
 *
 * Claims are short transactions (PostgreSQL: FOR UPDATE SKIP LOCKED, so any number of dispatchers
 * share the queue) under a lease; the HTTP calls happen outside any transaction. A dispatcher killed
 * mid-delivery leaves its rows leased: once the lease passes they are due again, so a delivery is
 * never lost (receivers dedupe on the delivery id). Lanes and breakers are per process: N
 * dispatchers allow N × perEndpoint attempts to one endpoint.
 */
export function createWebhookDispatcher(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'config' | 'log'>,
  options: DispatcherOptions = {},
): WebhookDispatcher {
  const lookup = options.lookup ?? systemLookup;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  const perEndpoint = options.perEndpoint ?? PER_ENDPOINT_IN_FLIGHT;
  // The lease must outlast an attempt, or a slow receiver's row would be claimed twice.
  const leaseMs = Math.max(DELIVERY_LEASE_MS, 2 * timeoutMs);
  const breaker = createEndpointBreaker();
  const secrets = createWebhookSecrets(core.config);
  const lanes = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();

  async function attempt(delivery: ClaimedDelivery, leaseUntil: string): Promise<void> {
    const result = await sendDelivery(
      { ...delivery, secret: secrets.open(delivery.subscriptionId, delivery.secret) },
      {
        allowPrivate: core.config.webhookAllowPrivate,
        lookup,
        timeoutMs,
        now: core.clock.now(),
      },
    );
    const now = core.clock.now();
    if (result.ok) breaker.success(delivery.subscriptionId);
    else breaker.failure(delivery.subscriptionId, now.getTime());
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
    if (breaker.isOpen(delivery.subscriptionId, now.getTime())) {
      core.log.warn(context, 'webhook endpoint keeps failing; backing off from it');
    }
  }

  /** Starts an attempt in its endpoint's lane; when it ends, the lane frees and the job looks for more. */
  function launch(delivery: ClaimedDelivery, leaseUntil: string): Promise<void> {
    const lane = delivery.subscriptionId;
    lanes.set(lane, (lanes.get(lane) ?? 0) + 1);
    const running: Promise<void> = attempt(delivery, leaseUntil)
      .catch((err: unknown) => core.log.warn({ err, deliveryId: delivery.id }, 'webhook outcome not recorded'))
      .finally(() => {
        const left = (lanes.get(lane) ?? 1) - 1;
        if (left > 0) lanes.set(lane, left);
        else lanes.delete(lane);
        inFlight.delete(running);
        job.kick();
      });
    inFlight.add(running);
    return running;
  }

  /** Claims due rows for the free slots, skipping full lanes and open breakers; starts what fits. */
  async function claimAndLaunch(): Promise<Promise<void>[]> {
    const free = maxInFlight - inFlight.size;
    if (free <= 0) return [];
    const now = core.clock.now();
    const at = now.getTime();
    const room = (lane: string) => breaker.allowance(lane, at, perEndpoint) - (lanes.get(lane) ?? 0);
    const skip = new Set([...lanes.keys()].filter((lane) => room(lane) <= 0).concat(breaker.open(at)));
    const leaseUntil = new Date(at + leaseMs).toISOString();
    const claimed = await core.db
      .transaction()
      .execute((trx) => createDeliveryQueue(trx, core.dialect).claim(now.toISOString(), leaseUntil, free, [...skip]));
    const started: Promise<void>[] = [];
    const handBack: string[] = [];
    for (const delivery of claimed) {
      if (room(delivery.subscriptionId) > 0) started.push(launch(delivery, leaseUntil));
      else handBack.push(delivery.id);
    }
    await createDeliveryQueue(core.db, core.dialect).release(handBack, leaseUntil);
    return started;
  }

  async function runOnce(): Promise<number> {
    const started = await claimAndLaunch();
    await Promise.all(started);
    return started.length;
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
    // Fills the free slots without waiting for the attempts; each one that ends kicks the next pass.
    pass: async () => {
      while ((await claimAndLaunch()).length > 0 && inFlight.size < maxInFlight);
    },
  });

  return {
    ...job,
    async stop() {
      await job.stop();
      // A shutdown finishes the deliveries in flight, so none is left leased.
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    runOnce,
    drain,
  };
}
