import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import type { Executor } from '../../db/database.js';
import { type DeliveryRow, pendingDelivery } from './webhooks.repository.js';

export const WEBHOOK_EVENTS = [
  'credential.issued',
  'credential.revoked',
  'credential.reissued',
  'credential.expired',
  'credential.expiry_reminder_due',
  'credential.verified',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Envelope {
  id: string;
  event: WebhookEvent;
  occurredAt: string;
  data: Record<string, unknown>;
}

interface Subscription {
  id: string;
  events: Set<string>;
}

/**
 * The transactional outbox: an event becomes one delivery row per subscription that wants it,
 * written with the caller's transaction so a change and its webhooks commit (or vanish) together.
 * `data` carries ids, URLs, statuses and timestamps only, never personal data.
 */
export function createOutboxService(core: Pick<Core, 'clock' | 'ids'>) {
  /** The issuer's live subscriptions, with their event lists parsed once per call, not once per event. */
  async function subscriptionsOf(trx: Executor, issuerId: string): Promise<Subscription[]> {
    const rows = await trx
      .selectFrom('webhook_subscriptions')
      .select(['id', 'events'])
      .where('issuer_id', '=', issuerId)
      .where('deleted_at', 'is', null)
      .execute();
    return rows.map((sub) => ({ id: sub.id, events: new Set(JSON.parse(sub.events) as string[]) }));
  }

  /** One delivery row per event and subscription that wants it. */
  async function insertDeliveries(
    trx: Executor,
    issuerId: string,
    subscriptions: Subscription[],
    events: { event: WebhookEvent; data: Record<string, unknown> }[],
  ): Promise<void> {
    if (subscriptions.length === 0) return;
    const now = isoNow(core.clock);
    const rows = [];
    for (const { event, data } of events) {
      const envelope: Envelope = { id: core.ids.uuid(), event, occurredAt: now, data };
      const payload = JSON.stringify(envelope);
      for (const sub of subscriptions) {
        if (!sub.events.has(event)) continue;
        rows.push(pendingDelivery({ id: core.ids.uuid(), issuerId, subscriptionId: sub.id, event, payload, now }));
      }
    }
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500))
        .execute();
    }
  }

  return {
    async enqueue(trx: Executor, issuerId: string, event: WebhookEvent, data: Record<string, unknown>): Promise<void> {
      await this.enqueueMany(trx, issuerId, [{ event, data }]);
    },

    /**
     * The delivery row every subscription to `event` gets, for a statement that writes them in the
     * database: `id` and `subscription_id` are left empty for it to set per subscription.
     */
    deliveryTemplate(issuerId: string, event: WebhookEvent, data: Record<string, unknown>): DeliveryRow {
      const now = isoNow(core.clock);
      const envelope: Envelope = { id: core.ids.uuid(), event, occurredAt: now, data };
      return pendingDelivery({ id: '', issuerId, subscriptionId: '', event, payload: JSON.stringify(envelope), now });
    },

    /** Several events of one issuer with a single subscription lookup and a single insert. */
    async enqueueMany(
      trx: Executor,
      issuerId: string,
      events: { event: WebhookEvent; data: Record<string, unknown> }[],
    ): Promise<void> {
      if (events.length === 0) return;
      await insertDeliveries(trx, issuerId, await subscriptionsOf(trx, issuerId), events);
    },

    /**
     * One `event` for each source, with the same single lookup, building each event's data only
     * when a subscription wants the event: an import of thousands of credentials by an issuer
     * without webhooks skips the work of describing them.
     */
    async enqueueEach<T>(
      trx: Executor,
      issuerId: string,
      event: WebhookEvent,
      sources: T[],
      dataOf: (source: T) => Record<string, unknown>,
    ): Promise<void> {
      if (sources.length === 0) return;
      const subscriptions = await subscriptionsOf(trx, issuerId);
      if (!subscriptions.some((sub) => sub.events.has(event))) return;
      const events = sources.map((source) => ({ event, data: dataOf(source) }));
      await insertDeliveries(trx, issuerId, subscriptions, events);
    },
  };
}

export type OutboxService = ReturnType<typeof createOutboxService>;
