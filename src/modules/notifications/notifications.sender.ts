import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Core } from '../../core/context.js';
import { sha256Hex } from '../../core/hashing.js';
import type { Job } from '../../core/job.js';
import { relaxedTransaction } from '../../db/dialect.js';
import type { Mailer, MailMessage } from './notifications.mailer.js';
import type { NotificationKind } from './notifications.render.js';
import {
  type CredentialNotificationRow,
  createNotificationRepository,
  type NotificationStatus,
} from './notifications.repository.js';

/** One message to send. The address exists only here, in this process's memory. */
export interface PendingNotification {
  issuerId: string;
  credentialId: string;
  definitionId: string;
  issuedOn: string;
  recipientHash: string;
  email: string;
  /** A new award when absent; a replacement says which (its message says so). */
  kind?: NotificationKind;
  /** The credential's language (BCP 47), when it was issued in one. */
  language?: string | null;
}

/** Renders a message at send time, so a large import queues quickly and holds data, not text. */
export type Compose = (message: PendingNotification, unsubscribeToken: string) => Promise<MailMessage | null>;

/**
 * A queued message, one object from queuing to its outcome (an import queues 50,000 at once, so
 * its shape is kept small and fixed). Its token is given once, by the pass that first tries to
 * record its `queued` row; the token's hash is dropped once that row is written (later statuses
 * never change the stored hash).
 */
class Entry implements PendingNotification {
  token: string | null = null;
  tokenHash: string | null = null;
  attempts = 0;
  notBefore = 0;

  constructor(
    readonly issuerId: string,
    readonly credentialId: string,
    readonly definitionId: string,
    readonly issuedOn: string,
    readonly recipientHash: string,
    readonly email: string,
    readonly queuedAt: string,
    readonly kind: NotificationKind,
    readonly language: string | null,
  ) {}
}

/** One issuer's messages in queue order; `head` moves past the started ones instead of shifting. */
interface IssuerQueue {
  entries: Entry[];
  head: number;
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
const UNSUBSCRIBE_TOKEN_LENGTH = 32;
/**
 * Status rows per statement. A pass writes one statement at a time and yields between them: on
 * SQLite a statement holds the event loop (500 rows: a few milliseconds), so a 50,000-row import's
 * `queued` rows never hold it for seconds while the import's answer is still being sent.
 */
const ROWS_PER_WRITE = 500;
/** Started entries a queue keeps before dropping them from its array. */
const COMPACT_AFTER = 1_024;

/**
 * Sends queued notifications behind the requests that queued them: at most `ratePerMinute` per
 * issuer, a few at a time (a finished send starts the next one), retrying temporary failures a
 * bounded number of times. Queuing is a push to memory; the timer's pass gives each new message its
 * unsubscribe token and writes its `queued` row (which holds the token's hash) before the message
 * may be sent, then the outcomes, in batches, never on the issuing request's path.
 */
export function createNotificationSender(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'ids' | 'log' | 'config'>,
  mailer: Mailer,
  options: SenderOptions,
  compose: Compose,
): Job & {
  enqueue(item: PendingNotification): boolean;
  /** Records, with the next pass, that this message is not sent: its earner unsubscribed. */
  suppressed(item: PendingNotification): void;
  /** Runs one pass now and waits for the sends it started (tests, shutdown). */
  drain(): Promise<void>;
  pending(): number;
} {
  const repo = createNotificationRepository(core.db);
  /**
   * Statuses are written without waiting for the disk (a commit skips its sync): a crash of the
   * machine may lose the last few, as it loses every message still in memory; a crash of the
   * process loses none. One fsync per 500 rows held SQLite's connection longer than the rows did.
   */
  const save = (rows: CredentialNotificationRow[]) =>
    relaxedTransaction(core.db, core.config.database, (trx) =>
      createNotificationRepository(trx).saveStatuses(core.dialect, rows),
    );
  /** Messages whose `queued` row is not written yet, in queue order. */
  let fresh: Entry[] = [];
  const queues = new Map<string, IssuerQueue>();
  const buckets = new Map<string, { tokens: number; at: number }>();
  /** Outcomes not yet written: the latest per credential. */
  let outcomes = new Map<string, CredentialNotificationRow>();
  let queued = 0;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  /** Writes run one after another, so a status is never overtaken by an older one. */
  let writing: Promise<void> = Promise.resolve();
  const perMs = options.ratePerMinute / 60_000;
  const burst = Math.max(1, options.ratePerMinute / 60);

  /** The time as stored, formatted once per millisecond: an import queues thousands in one. */
  let stamp = { ms: Number.NaN, iso: '' };
  const now = () => {
    const ms = core.clock.now().getTime();
    if (ms !== stamp.ms) stamp = { ms, iso: new Date(ms).toISOString() };
    return stamp.iso;
  };

  function outcomeRow(
    entry: Entry,
    status: Exclude<NotificationStatus, 'queued'>,
    detail: string | null,
  ): CredentialNotificationRow {
    return {
      credential_id: entry.credentialId,
      issuer_id: entry.issuerId,
      recipient_hash: entry.recipientHash,
      status,
      detail,
      attempts: entry.attempts,
      unsubscribe_token_hash: entry.tokenHash,
      created_at: entry.queuedAt,
      updated_at: now(),
    };
  }

  /**
   * Gives a fresh message its unsubscribe token, whose hash its `queued` row carries. A message
   * whose write failed keeps its token: the write may have committed (an error after the commit),
   * and a later write never changes the stored hash.
   */
  function queuedRow(entry: Entry): CredentialNotificationRow {
    if (entry.token === null) {
      entry.token = core.ids.token(UNSUBSCRIBE_TOKEN_LENGTH);
      entry.tokenHash = sha256Hex(entry.token);
    }
    return {
      credential_id: entry.credentialId,
      issuer_id: entry.issuerId,
      recipient_hash: entry.recipientHash,
      status: 'queued',
      detail: null,
      attempts: 0,
      unsubscribe_token_hash: entry.tokenHash,
      created_at: entry.queuedAt,
      updated_at: entry.queuedAt,
    };
  }

  /**
   * Writes the `queued` rows of the messages queued so far, ROWS_PER_WRITE at a time, each batch's
   * messages becoming sendable once their rows are written; then the outcomes gathered so far. A
   * batch that fails to write is kept for the next pass (its messages are not sent meanwhile).
   */
  async function writeStatuses(): Promise<void> {
    const newcomers = fresh;
    fresh = [];
    for (let start = 0; start < newcomers.length; start += ROWS_PER_WRITE) {
      if (start > 0) await nextTurn();
      const entries = newcomers.slice(start, start + ROWS_PER_WRITE);
      try {
        await save(entries.map(queuedRow));
      } catch (error) {
        fresh = [...newcomers.slice(start), ...fresh];
        throw error;
      }
      for (const entry of entries) {
        entry.tokenHash = null;
        push(entry);
      }
    }
    const done = outcomes;
    outcomes = new Map();
    const rows = [...done.values()];
    for (let start = 0; start < rows.length; start += ROWS_PER_WRITE) {
      if (start > 0) await nextTurn();
      try {
        await save(rows.slice(start, start + ROWS_PER_WRITE));
      } catch (error) {
        for (const row of rows.slice(start)) if (!outcomes.has(row.credential_id)) outcomes.set(row.credential_id, row);
        throw error;
      }
    }
  }

  function record(): Promise<void> {
    writing = writing.catch(() => undefined).then(writeStatuses);
    return writing;
  }

  function finish(entry: Entry, status: Exclude<NotificationStatus, 'queued'>, detail: string | null) {
    outcomes.set(entry.credentialId, outcomeRow(entry, status, detail));
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
    const message = await compose(entry, entry.token as string);
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
      queued++;
      push(entry);
      return;
    }
    finish(entry, 'failed', result.detail);
  }

  /** Puts a recorded message at the end of its issuer's queue. */
  function push(entry: Entry) {
    const queue = queues.get(entry.issuerId) ?? { entries: [], head: 0 };
    queue.entries.push(entry);
    queues.set(entry.issuerId, queue);
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

  /** Takes the entry at `index` out of the queue: the head moves on; one behind a waiting retry is cut out. */
  function take(queue: IssuerQueue, index: number): Entry {
    const entry = queue.entries[index] as Entry;
    if (index === queue.head) queue.head++;
    else queue.entries.splice(index, 1);
    queued--;
    return entry;
  }

  /** Starts the recorded sends that are due, within the issuers' rates and MAX_IN_FLIGHT. */
  function startDue() {
    const at = core.clock.now().getTime();
    for (const [issuerId, queue] of queues) {
      let index = queue.head;
      while (index < queue.entries.length && inFlight.size < MAX_IN_FLIGHT) {
        const entry = queue.entries[index] as Entry;
        if (entry.notBefore > at) {
          index++;
          continue;
        }
        if (!takeToken(issuerId, at)) break;
        start(take(queue, index));
        if (index < queue.head) index = queue.head;
      }
      if (queue.head >= queue.entries.length) queues.delete(issuerId);
      else if (queue.head >= COMPACT_AFTER && queue.head * 2 >= queue.entries.length) {
        queue.entries = queue.entries.slice(queue.head);
        queue.head = 0;
      }
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
    } catch (error) {
      core.log.error({ err: error }, 'notification pass failed');
    }
    startDue();
  }

  return {
    name: 'notifications',

    enqueue(item) {
      const entry = new Entry(
        item.issuerId,
        item.credentialId,
        item.definitionId,
        item.issuedOn,
        item.recipientHash,
        item.email,
        now(),
        item.kind ?? 'award',
        item.language ?? null,
      );
      if (queued >= options.maxQueued) {
        outcomes.set(item.credentialId, outcomeRow(entry, 'failed', 'queue_full'));
        return false;
      }
      fresh.push(entry);
      queued++;
      return true;
    },

    suppressed(item) {
      const entry = new Entry(
        item.issuerId,
        item.credentialId,
        item.definitionId,
        item.issuedOn,
        item.recipientHash,
        '',
        now(),
        item.kind ?? 'award',
        null,
      );
      finish(entry, 'suppressed', 'unsubscribed');
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
      for (const entry of fresh) finish(entry, 'failed', 'not_sent_before_shutdown');
      fresh = [];
      for (const queue of queues.values()) {
        for (const entry of queue.entries.slice(queue.head)) finish(entry, 'failed', 'not_sent_before_shutdown');
      }
      queues.clear();
      await record();
      queued = 0;
      mailer.close();
    },
  };
}
