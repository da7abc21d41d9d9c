import type { Core } from '../../core/context.js';
import type { Job } from '../../services.js';
import type { Mailer, MailMessage } from './notifications.mailer.js';
import { type CredentialNotificationRow, createNotificationRepository } from './notifications.repository.js';

/** One message waiting to go out. The address exists only here, in this process's memory. */
export interface PendingNotification {
  issuerId: string;
  credentialId: string;
  recipientHash: string;
  email: string;
  unsubscribeToken: string;
  unsubscribeTokenHash: string;
  /** Renders the message at send time, so a large import queues quickly. */
  compose(email: string, unsubscribeToken: string): Promise<MailMessage | null>;
}

interface Entry extends PendingNotification {
  attempts: number;
  notBefore: number;
}

export interface SenderOptions {
  /** Messages per minute per issuer. */
  ratePerMinute: number;
  /** Messages held in memory at most; beyond it a notification is recorded as failed. */
  maxQueued: number;
}

const TICK_MS = 200;
const MAX_IN_FLIGHT = 4;
/** Waits before the 2nd, 3rd and 4th try after a temporary failure (4xx, connection trouble). */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000];
const STATUS_BATCH = 500;

/**
 * Sends queued notifications behind the requests that queued them: at most `ratePerMinute` per
 * issuer, a few at a time, retrying temporary failures a bounded number of times. Status rows are
 * written in batches by the same loop, never on the issuing request's path.
 */
export function createNotificationSender(
  core: Pick<Core, 'db' | 'clock' | 'log'>,
  mailer: Mailer,
  options: SenderOptions,
): Job & {
  enqueue(item: PendingNotification): boolean;
  /** Runs one pass now and waits for the sends it started (tests, shutdown). */
  drain(): Promise<void>;
  pending(): number;
} {
  const repo = createNotificationRepository(core.db);
  const queues = new Map<string, Entry[]>();
  const buckets = new Map<string, { tokens: number; at: number }>();
  let unrecorded: CredentialNotificationRow[] = [];
  let queued = 0;
  let inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const perMs = options.ratePerMinute / 60_000;
  const burst = Math.max(1, options.ratePerMinute / 60);

  const now = () => core.clock.now().toISOString();

  function statusRow(item: PendingNotification, status: string, detail: string | null): CredentialNotificationRow {
    const at = now();
    return {
      credential_id: item.credentialId,
      issuer_id: item.issuerId,
      recipient_hash: item.recipientHash,
      status,
      detail,
      attempts: 0,
      unsubscribe_token_hash: item.unsubscribeTokenHash,
      created_at: at,
      updated_at: at,
    };
  }

  async function record(): Promise<void> {
    while (unrecorded.length > 0) {
      const batch = unrecorded.slice(0, STATUS_BATCH);
      unrecorded = unrecorded.slice(STATUS_BATCH);
      await repo.insertStatuses(batch);
    }
  }

  async function finish(entry: Entry, status: 'sent' | 'failed' | 'suppressed', detail: string | null) {
    await repo.updateStatus(entry.credentialId, { status, detail, attempts: entry.attempts, updatedAt: now() });
  }

  function takeToken(issuerId: string, at: number): boolean {
    const bucket = buckets.get(issuerId) ?? { tokens: burst, at };
    bucket.tokens = Math.min(burst, bucket.tokens + (at - bucket.at) * perMs);
    bucket.at = at;
    buckets.set(issuerId, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  async function send(entry: Entry): Promise<void> {
    entry.attempts++;
    if (await repo.isSuppressed(entry.issuerId, entry.recipientHash)) {
      await finish(entry, 'suppressed', 'unsubscribed');
      return;
    }
    const message = await entry.compose(entry.email, entry.unsubscribeToken);
    if (!message) {
      await finish(entry, 'failed', 'credential_unavailable');
      return;
    }
    const result = await mailer.send(message);
    if (result.ok) {
      await finish(entry, 'sent', null);
      return;
    }
    const delay = RETRY_DELAYS_MS[entry.attempts - 1];
    if (result.temporary && delay !== undefined) {
      entry.notBefore = core.clock.now().getTime() + delay;
      requeue(entry);
      return;
    }
    await finish(entry, 'failed', result.detail);
  }

  function requeue(entry: Entry) {
    const queue = queues.get(entry.issuerId) ?? [];
    queue.push(entry);
    queues.set(entry.issuerId, queue);
    queued++;
  }

  function start(entry: Entry) {
    const task = send(entry)
      .catch((error: unknown) => {
        // The error may come from the database or the template, never carrying the address: the
        // address is only handed to the mailer, whose failures are classified above.
        core.log.error({ err: error, credentialId: entry.credentialId }, 'notification send failed');
        return finish(entry, 'failed', 'internal_error').catch(() => undefined);
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  }

  /** One pass at a time: a pass asked for while one runs is that pass. */
  function pass(): Promise<void> {
    running ??= startPass().finally(() => {
      running = null;
    });
    return running;
  }

  async function startPass(): Promise<void> {
    try {
      await record();
      const at = core.clock.now().getTime();
      for (const [issuerId, queue] of queues) {
        let index = 0;
        while (index < queue.length && inFlight.size < MAX_IN_FLIGHT) {
          const entry = queue[index] as Entry;
          if (entry.notBefore > at) {
            index++;
            continue;
          }
          if (!takeToken(issuerId, at)) break;
          queue.splice(index, 1);
          queued--;
          start(entry);
        }
        if (queue.length === 0) queues.delete(issuerId);
      }
    } catch (error) {
      core.log.error({ err: error }, 'notification pass failed');
    }
  }

  return {
    name: 'notifications',

    enqueue(item) {
      if (queued >= options.maxQueued) {
        unrecorded.push(statusRow(item, 'failed', 'queue_full'));
        return false;
      }
      unrecorded.push(statusRow(item, 'queued', null));
      requeue({ ...item, attempts: 0, notBefore: 0 });
      return true;
    },

    async drain() {
      await running;
      await pass();
      await Promise.all(inFlight);
      await record();
    },

    pending: () => queued + inFlight.size,

    start() {
      if (timer) return;
      timer = setInterval(() => void pass(), TICK_MS);
      timer.unref();
    },

    /**
     * Waits for the sends under way, then records every message still queued as not sent: its
     * address is about to leave memory, so it can never be sent later (docs/decisions.md).
     */
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
      await Promise.all(inFlight);
      inFlight = new Set();
      await record();
      for (const queue of queues.values()) {
        for (const entry of queue) await finish(entry, 'failed', 'not_sent_before_shutdown');
      }
      queues.clear();
      queued = 0;
      mailer.close();
    },
  };
}
