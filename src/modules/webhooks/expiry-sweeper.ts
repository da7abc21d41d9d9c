import type { Core } from '../../core/context.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import type { AuditEntry, AuditService } from '../audit/audit.service.js';
import { createExpiryRepository, type ReminderCursor } from './expiry.repository.js';
import type { OutboxService, WebhookEvent } from './outbox.service.js';
import { createPollingJob, type PollingJob } from './polling-job.js';
import { credentialEventData, REMINDERS_PATH, reminderDueEventData } from './webhooks.events.js';
import { createDeliveryQueue } from './webhooks.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows deleted per statement, so pruning a large backlog never holds a long write lock. */
const PRUNE_BATCH = 1000;

export interface ExpirySweeper extends PollingJob {
  /** Announces every credential that has expired and was not announced yet; returns how many. */
  runOnce(): Promise<number>;
  /**
   * Announces credential.expiry_reminder_due for every live credential now within its issuer's
   * reminder lead time (issuers with expiry reminders on) that was not announced yet; returns how many.
   */
  announceRemindersDue(): Promise<number>;
  /** Deletes finished deliveries older than WEBHOOK_DELIVERY_RETENTION_DAYS; returns how many. */
  pruneDeliveries(): Promise<number>;
}

/** One issuer's events and audit records of a batch. */
type IssuerBatch = { events: { event: WebhookEvent; data: Record<string, unknown> }[]; records: AuditEntry[] };

/**
 * Emits exactly one credential.expired per credential once its expiresOn has passed (never for a
 * revoked one). The announcement mark, the outbox rows and one `credential.expired` audit record per
 * credential (actor `system`) commit in one transaction, so a crash either announces a batch
 * completely or not at all. In the same way it emits exactly one credential.expiry_reminder_due per
 * live credential that comes within its issuer's reminder lead time, with reminders on, audited
 * `credential.expiry_reminder_due` by `system`. Each pass also prunes the outbox of deliveries
 * that finished more than the retention period ago, so the table holds recent work, not all history.
 */
export function createExpirySweeper(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'config' | 'log'>,
  deps: { outbox: Pick<OutboxService, 'enqueueMany'>; audit: Pick<AuditService, 'appendMany'> },
  options: { batchSize?: number; intervalMs?: number } = {},
): ExpirySweeper {
  const batchSize = options.batchSize ?? 500;
  const links = publicUrls(core.config.publicBaseUrl);
  const remindersUrl = `${core.config.publicBaseUrl}${REMINDERS_PATH}`;

  /** One event and one `system` audit record (named like the event) per credential, by issuer. */
  function byIssuer<T extends { id: string; issuer_id: string }>(
    rows: T[],
    event: WebhookEvent,
    dataOf: (row: T) => Record<string, unknown>,
    details?: Record<string, unknown>,
  ): Map<string, IssuerBatch> {
    const batches = new Map<string, IssuerBatch>();
    for (const row of rows) {
      const issuer = batches.get(row.issuer_id) ?? { events: [], records: [] };
      issuer.events.push({ event, data: dataOf(row) });
      issuer.records.push({
        issuerId: row.issuer_id,
        actor: 'system',
        action: event,
        targetType: 'credential',
        targetId: row.id,
        ...(details ? { details } : {}),
      });
      batches.set(row.issuer_id, issuer);
    }
    return batches;
  }

  async function commitBatches(trx: Executor, batches: Map<string, IssuerBatch>): Promise<void> {
    for (const [issuerId, { events, records }] of batches) {
      await deps.outbox.enqueueMany(trx, issuerId, events);
      await deps.audit.appendMany(trx, issuerId, records);
    }
  }

  async function sweepBatch(): Promise<number> {
    return core.db.transaction().execute(async (trx) => {
      const now = core.clock.now();
      const expired = await createExpiryRepository(trx, core.dialect).claimExpired(now.toISOString(), batchSize);
      await commitBatches(
        trx,
        byIssuer(expired, 'credential.expired', (row) => credentialEventData(links, row, now)),
      );
      return expired.length;
    });
  }

  /** One batch of one lead time: how many candidates it looked at, and how many it announced. */
  async function reminderBatch(
    days: number,
    after: ReminderCursor | null,
  ): Promise<{ scanned: number; last: ReminderCursor | null; announced: number }> {
    return core.db.transaction().execute(async (trx) => {
      const now = core.clock.now();
      const { scanned, last, claimed } = await createExpiryRepository(trx, core.dialect).claimReminderDue(
        days,
        now.toISOString(),
        batchSize,
        after,
      );
      await commitBatches(
        trx,
        byIssuer(
          claimed,
          'credential.expiry_reminder_due',
          (row) => reminderDueEventData(links, row, now, { days, url: remindersUrl }),
          { reminderDays: days },
        ),
      );
      return { scanned, last, announced: claimed.length };
    });
  }

  async function announceRemindersDue(): Promise<number> {
    let total = 0;
    for (const days of await createExpiryRepository(core.db, core.dialect).reminderLeadTimes()) {
      let batch: { scanned: number; last: ReminderCursor | null; announced: number } = {
        scanned: 0,
        last: null,
        announced: 0,
      };
      do {
        batch = await reminderBatch(days, batch.last);
        total += batch.announced;
      } while (batch.scanned === batchSize);
    }
    return total;
  }

  async function runOnce(): Promise<number> {
    let total = 0;
    let swept: number;
    do {
      swept = await sweepBatch();
      total += swept;
    } while (swept === batchSize);
    return total;
  }

  async function pruneDeliveries(): Promise<number> {
    const before = new Date(core.clock.now().getTime() - core.config.webhookDeliveryRetentionDays * DAY_MS);
    const queue = createDeliveryQueue(core.db, core.dialect);
    let total = 0;
    let pruned: number;
    do {
      pruned = await queue.pruneFinished(before.toISOString(), PRUNE_BATCH);
      total += pruned;
    } while (pruned === PRUNE_BATCH);
    return total;
  }

  const job = createPollingJob({
    name: 'expiry-sweeper',
    intervalMs: options.intervalMs ?? core.config.expirySweepIntervalMs,
    log: core.log,
    pass: async () => {
      await runOnce();
      await announceRemindersDue();
      await pruneDeliveries();
    },
  });

  return { ...job, runOnce, announceRemindersDue, pruneDeliveries };
}
