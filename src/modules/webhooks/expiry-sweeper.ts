import type { Core } from '../../core/context.js';
import { publicUrls } from '../../core/urls.js';
import type { AuditEntry, AuditService } from '../audit/audit.service.js';
import { createExpiryRepository } from './expiry.repository.js';
import type { OutboxService } from './outbox.service.js';
import { createPollingJob, type PollingJob } from './polling-job.js';
import { credentialEventData } from './webhooks.events.js';
import { createDeliveryQueue } from './webhooks.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows deleted per statement, so pruning a large backlog never holds a long write lock. */
const PRUNE_BATCH = 1000;

export interface ExpirySweeper extends PollingJob {
  /** Announces every credential that has expired and was not announced yet; returns how many. */
  runOnce(): Promise<number>;
  /** Deletes finished deliveries older than WEBHOOK_DELIVERY_RETENTION_DAYS; returns how many. */
  pruneDeliveries(): Promise<number>;
}

/**
 * Emits exactly one credential.expired per credential once its expiresOn has passed (never for a
 * revoked one). The announcement mark, the outbox rows and one `credential.expired` audit record per
 * credential (actor `system`) commit in one transaction, so a crash either announces a batch
 * completely or not at all. Each pass also prunes the outbox of deliveries
 * that finished more than the retention period ago, so the table holds recent work, not all history.
 */
export function createExpirySweeper(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'config' | 'log'>,
  deps: { outbox: Pick<OutboxService, 'enqueueMany'>; audit: Pick<AuditService, 'appendMany'> },
  options: { batchSize?: number; intervalMs?: number } = {},
): ExpirySweeper {
  const batchSize = options.batchSize ?? 500;
  const links = publicUrls(core.config.publicBaseUrl);

  async function sweepBatch(): Promise<number> {
    return core.db.transaction().execute(async (trx) => {
      const now = core.clock.now();
      const expired = await createExpiryRepository(trx, core.dialect).claimExpired(now.toISOString(), batchSize);
      const byIssuer = new Map<
        string,
        { events: { event: 'credential.expired'; data: Record<string, unknown> }[]; records: AuditEntry[] }
      >();
      for (const row of expired) {
        const issuer = byIssuer.get(row.issuer_id) ?? { events: [], records: [] };
        issuer.events.push({ event: 'credential.expired', data: credentialEventData(links, row, now) });
        issuer.records.push({
          issuerId: row.issuer_id,
          actor: 'system',
          action: 'credential.expired',
          targetType: 'credential',
          targetId: row.id,
        });
        byIssuer.set(row.issuer_id, issuer);
      }
      for (const [issuerId, { events, records }] of byIssuer) {
        await deps.outbox.enqueueMany(trx, issuerId, events);
        await deps.audit.appendMany(trx, issuerId, records);
      }
      return expired.length;
    });
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
      await pruneDeliveries();
    },
  });

  return { ...job, runOnce, pruneDeliveries };
}
