import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from './outbox.service.js';
import { type LookupFn, parseTargetUrl, resolveTarget, UnsafeTargetError } from './ssrf.js';
import { createWebhookSecrets } from './webhook-secrets.js';
import { SECRET_PREFIX, SECRET_RANDOM_LENGTH, TEST_EVENT } from './webhooks.constants.js';
import {
  createWebhookRepository,
  type DeliveryRow,
  pendingDelivery,
  type SubscriptionRow,
} from './webhooks.repository.js';

export interface NewSubscription {
  url: string;
  events: string[];
}

export interface SubscriptionView {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
}

export interface DeliveryView {
  id: string;
  event: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

function subscriptionView(row: SubscriptionRow): SubscriptionView {
  return { id: row.id, url: row.url, events: JSON.parse(row.events) as WebhookEvent[], createdAt: row.created_at };
}

function deliveryView(row: DeliveryRow): DeliveryView {
  const open = row.status === 'pending' || row.status === 'delivering';
  return {
    id: row.id,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: open ? row.next_attempt_at : null,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

function checkedEvents(events: string[]): WebhookEvent[] {
  if (events.length === 0) {
    throw errors.validation('Subscribe to at least one event.', [
      { path: '/events', message: 'must list at least one event', code: 'minItems' },
    ]);
  }
  const unknown = events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw errors.validation(`Unknown event ${unknown.join(', ')}; known events are ${WEBHOOK_EVENTS.join(', ')}.`, [
      { path: '/events', message: `unknown event ${unknown.join(', ')}`, code: 'enum' },
    ]);
  }
  return [...new Set(events)] as WebhookEvent[];
}

/**
 * Webhook subscriptions of an issuer. The signing secret is returned by `create` only and stored
 * sealed (webhook-secrets.ts); afterwards the dispatcher opens it to sign and it is never shown again. Adding and removing one is audited with its actor
 * (an API key, or `cli` for the console) in the same transaction.
 */
export function createWebhookService(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: { lookup: LookupFn; audit: Pick<AuditService, 'append'> },
) {
  const repo = createWebhookRepository(core.db);
  const secrets = createWebhookSecrets(core.config);

  async function checkedUrl(raw: string): Promise<string> {
    const allowPrivate = core.config.webhookAllowPrivate;
    try {
      const url = parseTargetUrl(raw, allowPrivate);
      if (!allowPrivate) await resolveTarget(url, allowPrivate, deps.lookup).catch(rethrowUnsafeOnly);
      return url.href;
    } catch (err) {
      if (err instanceof UnsafeTargetError) {
        throw errors.validation(err.message, [{ path: '/url', message: err.message, code: 'webhook_url' }]);
      }
      throw err;
    }
  }

  async function queueDelivery(
    issuerId: string,
    actor: string,
    subscriptionId: string,
    event: string,
    payload: string,
    action: string,
    details: Record<string, unknown>,
  ): Promise<{ deliveryId: string }> {
    const deliveryId = core.ids.uuid();
    const now = isoNow(core.clock);
    await core.db.transaction().execute(async (trx) => {
      const scoped = createWebhookRepository(trx);
      if (!(await scoped.getSubscription(issuerId, subscriptionId))) throw errors.notFound('Webhook');
      await scoped.insertDelivery(pendingDelivery({ id: deliveryId, issuerId, subscriptionId, event, payload, now }));
      await deps.audit.append(trx, {
        issuerId,
        actor,
        action,
        targetType: 'webhook',
        targetId: subscriptionId,
        details: { deliveryId, event, ...details },
      });
    });
    return { deliveryId };
  }

  return {
    async create(
      issuerId: string,
      actor: string,
      input: NewSubscription,
    ): Promise<SubscriptionView & { secret: string }> {
      const events = checkedEvents(input.events);
      const url = await checkedUrl(input.url);
      const id = core.ids.uuid();
      const secret = SECRET_PREFIX + core.ids.token(SECRET_RANDOM_LENGTH);
      const row: SubscriptionRow = {
        id,
        issuer_id: issuerId,
        url,
        events: JSON.stringify(events),
        secret: secrets.seal(id, secret),
        created_at: isoNow(core.clock),
        deleted_at: null,
      };
      await core.db.transaction().execute(async (trx) => {
        await createWebhookRepository(trx).insertSubscription(row);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'webhook.added',
          targetType: 'webhook',
          targetId: row.id,
          // The host only: a receiver URL's path or query may carry the receiver's own token.
          details: { host: new URL(url).host, events },
        });
      });
      return { ...subscriptionView(row), secret };
    },

    async list(issuerId: string): Promise<SubscriptionView[]> {
      return (await repo.listSubscriptions(issuerId)).map(subscriptionView);
    },

    async get(issuerId: string, id: string): Promise<SubscriptionView> {
      const row = await repo.getSubscription(issuerId, id);
      if (!row) throw errors.notFound('Webhook');
      return subscriptionView(row);
    },

    /**
     * A new receiver URL or event list; what the input leaves out stays. Deliveries already queued go
     * to the new URL (the dispatcher reads it at send time); only later events follow the new list.
     */
    async update(
      issuerId: string,
      actor: string,
      id: string,
      input: Partial<NewSubscription>,
    ): Promise<SubscriptionView> {
      const events = input.events === undefined ? undefined : checkedEvents(input.events);
      const url = input.url === undefined ? undefined : await checkedUrl(input.url);
      return core.db.transaction().execute(async (trx) => {
        const scoped = createWebhookRepository(trx);
        const row = await scoped.getSubscription(issuerId, id);
        if (!row) throw errors.notFound('Webhook');
        const next = { ...row, url: url ?? row.url, events: events ? JSON.stringify(events) : row.events };
        await scoped.updateSubscription(issuerId, id, { url: next.url, events: next.events });
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'webhook.updated',
          targetType: 'webhook',
          targetId: id,
          // The host only, as when it was added.
          details: { host: new URL(next.url).host, events: JSON.parse(next.events) },
        });
        return subscriptionView(next);
      });
    },

    /** Soft delete; deliveries not yet made are cancelled in the same transaction. */
    async remove(issuerId: string, actor: string, id: string): Promise<void> {
      const at = isoNow(core.clock);
      const removed = await core.db.transaction().execute(async (trx) => {
        const scoped = createWebhookRepository(trx);
        if (!(await scoped.deleteSubscription(issuerId, id, at))) return false;
        const cancelled = await scoped.cancelOpenDeliveries(issuerId, id);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'webhook.removed',
          targetType: 'webhook',
          targetId: id,
          details: { cancelledDeliveries: cancelled },
        });
        return true;
      });
      if (!removed) throw errors.notFound('Webhook');
    },

    /**
     * Queues a signed `webhook.test` delivery to one subscription, whatever events it takes, through
     * the normal dispatcher (retries, breaker, delivery log).
     */
    async sendTest(issuerId: string, actor: string, id: string): Promise<{ deliveryId: string }> {
      const now = isoNow(core.clock);
      const envelope = {
        id: core.ids.uuid(),
        event: TEST_EVENT,
        occurredAt: now,
        data: { webhookId: id, message: 'A test event sent from the Accolade console.' },
      };
      return queueDelivery(issuerId, actor, id, TEST_EVENT, JSON.stringify(envelope), 'webhook.test_sent', {});
    },

    /** Queues a delivery again: a new row with the same event and payload (so the same envelope id). */
    async resend(issuerId: string, actor: string, id: string, deliveryId: string): Promise<{ deliveryId: string }> {
      const original = await repo.getDelivery(issuerId, id, deliveryId);
      if (!original) throw errors.notFound('Delivery');
      return queueDelivery(issuerId, actor, id, original.event, original.payload, 'webhook.resent', {
        resentFrom: deliveryId,
      });
    },

    /** Deliveries of one subscription, latest first. */
    async deliveries(issuerId: string, id: string, limit: number, offset: number) {
      if (!(await repo.getSubscription(issuerId, id))) throw errors.notFound('Webhook');
      const { total, rows } = await repo.listDeliveries(issuerId, id, limit, offset);
      return { total, limit, offset, items: rows.map(deliveryView) };
    },
  };
}

/**
 * A host that does not resolve right now is accepted (DNS can be set up after the subscription; each
 * delivery resolves and checks again); a host that resolves to a refused address is not.
 */
function rethrowUnsafeOnly(err: unknown): void {
  if (err instanceof UnsafeTargetError) throw err;
}

export type WebhookService = ReturnType<typeof createWebhookService>;
