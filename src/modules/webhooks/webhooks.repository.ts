import type { Selectable } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { forUpdateSkipLocked } from '../../db/dialect.js';
import type { WebhookDeliveriesTable, WebhookSubscriptionsTable } from '../../db/schema.js';
import type { DeliveryStatus } from './webhooks.constants.js';

export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** A claimed delivery with what is needed to send it. */
export interface ClaimedDelivery {
  id: string;
  issuerId: string;
  subscriptionId: string;
  event: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
}

export interface DeliveryOutcome {
  status: DeliveryStatus;
  nextAttemptAt: string;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

/** Subscriptions and their deliveries; every tenant-facing method takes the issuer id first. */
/** A delivery waiting for its first attempt. */
export function pendingDelivery(fields: {
  id: string;
  issuerId: string;
  subscriptionId: string;
  event: string;
  payload: string;
  now: string;
}): DeliveryRow {
  return {
    id: fields.id,
    issuer_id: fields.issuerId,
    subscription_id: fields.subscriptionId,
    event: fields.event,
    payload: fields.payload,
    status: 'pending',
    attempts: 0,
    next_attempt_at: fields.now,
    locked_until: null,
    last_status_code: null,
    last_error: null,
    created_at: fields.now,
    delivered_at: null,
  };
}

export function createWebhookRepository(db: Executor) {
  return {
    async insertSubscription(row: SubscriptionRow): Promise<void> {
      await db.insertInto('webhook_subscriptions').values(row).execute();
    },

    async listSubscriptions(issuerId: string): Promise<SubscriptionRow[]> {
      return db
        .selectFrom('webhook_subscriptions')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('deleted_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    async getSubscription(issuerId: string, id: string): Promise<SubscriptionRow | undefined> {
      return db
        .selectFrom('webhook_subscriptions')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
    },

    /** Changes a live subscription's url and events; false when it does not exist or is another issuer's. */
    async updateSubscription(issuerId: string, id: string, fields: { url: string; events: string }): Promise<boolean> {
      const result = await db
        .updateTable('webhook_subscriptions')
        .set(fields)
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Soft delete; returns false when the subscription does not exist, is deleted or is another issuer's. */
    async deleteSubscription(issuerId: string, id: string, at: string): Promise<boolean> {
      const result = await db
        .updateTable('webhook_subscriptions')
        .set({ deleted_at: at })
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Undelivered rows of a subscription will never be sent; returns how many were cancelled. */
    async cancelOpenDeliveries(issuerId: string, subscriptionId: string): Promise<number> {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'cancelled', locked_until: null })
        .where('issuer_id', '=', issuerId)
        .where('subscription_id', '=', subscriptionId)
        .where('status', 'in', ['pending', 'delivering'])
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async getDelivery(issuerId: string, subscriptionId: string, id: string): Promise<DeliveryRow | undefined> {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('subscription_id', '=', subscriptionId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    async insertDelivery(row: DeliveryRow): Promise<void> {
      await db.insertInto('webhook_deliveries').values(row).execute();
    },
    async listDeliveries(
      issuerId: string,
      subscriptionId: string,
      limit: number,
      offset: number,
    ): Promise<{ total: number; rows: DeliveryRow[] }> {
      const scoped = db
        .selectFrom('webhook_deliveries')
        .where('issuer_id', '=', issuerId)
        .where('subscription_id', '=', subscriptionId);
      const [count, rows] = await Promise.all([
        scoped.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        scoped.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      ]);
      return { total: Number(count.n), rows };
    },
  };
}

/** The dispatcher's side of the outbox: claiming due rows across issuers and recording outcomes. */
export function createDeliveryQueue(db: Executor, dialect: Dialect) {
  return {
    /**
     * Inside a transaction: takes up to `limit` due rows (pending and due, or claimed by a worker whose
     * lease ran out) outside `skipSubscriptions` and leases them until `leaseUntil`. Rows of deleted
     * subscriptions are cancelled instead. On PostgreSQL concurrent claimers skip each other's rows.
     */
    async claim(
      now: string,
      leaseUntil: string,
      limit: number,
      skipSubscriptions: readonly string[] = [],
    ): Promise<ClaimedDelivery[]> {
      let query = db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', now)]),
            eb.and([eb('status', '=', 'delivering'), eb('locked_until', '<=', now)]),
          ]),
        );
      // Endpoints this dispatcher is already busy with, or is backing off from.
      if (skipSubscriptions.length > 0) query = query.where('subscription_id', 'not in', skipSubscriptions);
      const due = await forUpdateSkipLocked(dialect, query.orderBy('next_attempt_at').limit(limit)).execute();
      if (due.length === 0) return [];
      const rows = await db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
        .select([
          'd.id',
          'd.issuer_id as issuerId',
          'd.subscription_id as subscriptionId',
          'd.event',
          'd.payload',
          'd.attempts',
          's.url',
          's.secret',
          's.deleted_at as deletedAt',
        ])
        .where(
          'd.id',
          'in',
          due.map((r) => r.id),
        )
        .execute();
      const live = rows.filter((r) => r.deletedAt === null);
      const dead = rows.filter((r) => r.deletedAt !== null).map((r) => r.id);
      if (dead.length > 0) {
        await db
          .updateTable('webhook_deliveries')
          .set({ status: 'cancelled', locked_until: null })
          .where('id', 'in', dead)
          .execute();
      }
      if (live.length > 0) {
        await db
          .updateTable('webhook_deliveries')
          .set({ status: 'delivering', locked_until: leaseUntil })
          .where(
            'id',
            'in',
            live.map((r) => r.id),
          )
          .execute();
      }
      return live.map(({ deletedAt: _deleted, ...row }) => row);
    },

    /** Hands rows claimed under `leaseUntil` back to the queue unattempted (their endpoint is busy). */
    async release(ids: readonly string[], leaseUntil: string): Promise<void> {
      if (ids.length === 0) return;
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', locked_until: null })
        .where('id', 'in', ids)
        .where('status', '=', 'delivering')
        .where('locked_until', '=', leaseUntil)
        .execute();
    },

    /**
     * Deletes up to `limit` finished rows (delivered, failed or cancelled) whose last attempt was
     * before `before`, through the (status, next_attempt_at) index; returns how many. The outbox is
     * working state, not history: the audit log and the event tables are what is kept.
     */
    async pruneFinished(before: string, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('webhook_deliveries')
        .where(
          'id',
          'in',
          db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', 'in', ['delivered', 'failed', 'cancelled'])
            .where('next_attempt_at', '<', before)
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * Records an attempt, only while this worker still holds the lease it took: a worker that
     * outlived its lease must not overwrite the outcome of the worker that took the row over.
     */
    async record(delivery: ClaimedDelivery, leaseUntil: string, outcome: DeliveryOutcome): Promise<boolean> {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({
          status: outcome.status,
          attempts: delivery.attempts + 1,
          next_attempt_at: outcome.nextAttemptAt,
          locked_until: null,
          last_status_code: outcome.lastStatusCode,
          last_error: outcome.lastError,
          delivered_at: outcome.deliveredAt,
        })
        .where('id', '=', delivery.id)
        .where('status', '=', 'delivering')
        .where('locked_until', '=', leaseUntil)
        .where('attempts', '=', delivery.attempts)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
