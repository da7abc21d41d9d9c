import type { Core } from '../../core/context.js';
import type { Job } from '../../services.js';
import type { Mailer, MailMessage } from './notifications.mailer.js';
import {
  type CredentialNotificationRow,
  createNotificationRepository,
  type NotificationStatus,
} from './notifications.repository.js';

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
/** Sends under way at once: twice the mailer's pooled SMTP connections, so none waits idle. */
const MAX_IN_FLIGHT = 8;
/** Waits before the 2nd, 3rd and 4th try after a temporary failure (4xx, connection trouble). */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000];

/**
 * Sends queued notifications behind the requests that queued them: at most `ratePerMinute` per
 * issuer, a few at a time (a finished send starts the next one), retrying temporary failures a
 * bounded number of times. Statuses (queued, then the outcome) are kept in memory and written in
 * batches by the timer's pass, never on the issuing request's path and never one statement a message.
 */
export function createNotificationSender(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'log'>,
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
  /** Statuses not yet written: the latest per credential. */
  let unrecorded = new Map<string, CredentialNotificationRow>();
  let queued = 0;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const perMs = options.ratePerMinute / 60_000;
  const burst = Math.max(1, options.ratePerMinute / 60);

  const now = () => core.clock.now().toISOString();

  function statusRow(
    item: PendingNotification,
    status: NotificationStatus,
    detail: string | null,
    attempts = 0,
  ): CredentialNotificationRow {
    const at = now();
    return {
      credential_id: item.credentialId,
      issuer_id: item.issuerId,
      recipient_hash: item.recipientHash,
      status,
      detail,
      attempts,
      unsubscribe_token_hash: item.unsubscribeTokenHash,
      created_at: unrecorded.get(item.credentialId)?.created_at ?? at,
      updated_at: at,
    };
  }

  /** Writes the statuses gathered so far; those gathered while it writes wait for the next pass. */
  async function record(): Promise<void> {
    if (unrecorded.size === 0) return;
    const rows = [...unrecorded.values()];
    unrecorded = new Map();
    await repo.saveStatuses(core.dialect, rows);
  }

  function finish(entry: Entry, status: Exclude<NotificationStatus, 'queued'>, detail: string | null) {
    unrecorded.set(entry.credentialId, statusRow(entry, status, detail, entry.attempts));
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
      finish(entry, 'suppressed', 'unsubscribed');
      return;
    }
    const message = await entry.compose(entry.email, entry.unsubscribeToken);
    if (!message) {
      finish(entry, 'failed', 'credential_unavailable');
      return;
    }
    const result = await mailer.send(message);
    if (result.ok) {
      finish(entry, 'sent', null);
      return;
    }
    const delay = RETRY_DELAYS_MS[entry.attempts - 1];
    if (result.temporary && delay !== undefined) {
      entry.notBefore = core.clock.now().getTime() + delay;
      requeue(entry);
      return;
    }
    finish(entry, 'failed', result.detail);
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
        finish(entry, 'failed', 'internal_error');
      })
      .finally(() => {
        inFlight.delete(task);
        startDue();
      });
    inFlight.add(task);
  }

  /** Starts the sends that are due, within the issuers' rates and MAX_IN_FLIGHT. */
  function startDue() {
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
  }

  /** Waits until no send is under way (a finished send may have started the next). */
  async function settle(): Promise<void> {
    while (inFlight.size > 0) await Promise.all(inFlight);
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
      startDue();
    } catch (error) {
      core.log.error({ err: error }, 'notification pass failed');
    }
  }

  return {
    name: 'notifications',

    enqueue(item) {
      if (queued >= options.maxQueued) {
        unrecorded.set(item.credentialId, statusRow(item, 'failed', 'queue_full'));
        return false;
      }
      unrecorded.set(item.credentialId, statusRow(item, 'queued', null));
      requeue({ ...item, attempts: 0, notBefore: 0 });
      return true;
    },

    async drain() {
      await running;
      await pass();
      await settle();
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
      await settle();
      for (const queue of queues.values()) {
        for (const entry of queue) finish(entry, 'failed', 'not_sent_before_shutdown');
      }
      queues.clear();
      await record();
      queued = 0;
      mailer.close();
    },
  };
}
