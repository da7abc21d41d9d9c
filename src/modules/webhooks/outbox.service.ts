import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import type { Executor } from '../../db/database.js';

export const WEBHOOK_EVENTS = [
  'credential.issued',
  'credential.revoked',
  'credential.reissued',
  'credential.expired',
  'credential.verified',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Envelope {
  id: string;
  event: WebhookEvent;
  occurredAt: string;
  data: Record<string, unknown>;
}

/**
 * The transactional outbox: an event becomes one delivery row per subscription that wants it,
 * written with the caller's transaction so a change and its webhooks commit (or vanish) together.
 * `data` carries ids, URLs, statuses and timestamps only, never personal data.
 */
export function createOutboxService(core: Pick<Core, 'clock' | 'ids'>) {
  return {
    async enqueue(trx: Executor, issuerId: string, event: WebhookEvent, data: Record<string, unknown>): Promise<void> {
      await this.enqueueMany(trx, issuerId, [{ event, data }]);
    },

    /** Several events of one issuer with a single subscription lookup and a single insert. */
    async enqueueMany(
      trx: Executor,
      issuerId: string,
      events: { event: WebhookEvent; data: Record<string, unknown> }[],
    ): Promise<void> {
      if (events.length === 0) return;
      const subscriptions = await trx
        .selectFrom('webhook_subscriptions')
        .select(['id', 'events'])
        .where('issuer_id', '=', issuerId)
        .where('deleted_at', 'is', null)
        .execute();
      if (subscriptions.length === 0) return;
      // Parsed once per call, not once per event: a batch import enqueues hundreds of events.
      const wanted = subscriptions.map((sub) => ({ id: sub.id, events: new Set(JSON.parse(sub.events) as string[]) }));
      const now = isoNow(core.clock);
      const rows = [];
      for (const { event, data } of events) {
        const envelope: Envelope = { id: core.ids.uuid(), event, occurredAt: now, data };
        const payload = JSON.stringify(envelope);
        for (const sub of wanted) {
          if (!sub.events.has(event)) continue;
          rows.push({
            id: core.ids.uuid(),
            issuer_id: issuerId,
            subscription_id: sub.id,
            event,
            payload,
            status: 'pending',
            attempts: 0,
            next_attempt_at: now,
            locked_until: null,
            last_status_code: null,
            last_error: null,
            created_at: now,
            delivered_at: null,
          });
        }
      }
      for (let i = 0; i < rows.length; i += 500) {
        await trx
          .insertInto('webhook_deliveries')
          .values(rows.slice(i, i + 500))
          .execute();
      }
    },
  };
}

export type OutboxService = ReturnType<typeof createOutboxService>;
