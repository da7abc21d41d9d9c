import type { Core } from '../../core/context.js';
import type { Job } from '../../core/job.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import { executeAll, relaxedTransaction, unnestRows, valuesStatements } from '../../db/dialect.js';
import type { OutboxService } from '../webhooks/outbox.service.js';
import { type VerificationChannel, verifiedEventData } from '../webhooks/webhooks.events.js';
import { createRecentVerifiers } from './recent-verifiers.js';
import type { VerifiableRow } from './verification.repository.js';

export type { VerificationChannel };

export const ENGAGEMENT_ACTIONS = ['linkedin', 'share_link', 'wallet_apple', 'wallet_google'] as const;
export type EngagementAction = (typeof ENGAGEMENT_ACTIONS)[number];

const VERIFICATION_COLUMNS = ['issuer_id', 'credential_id', 'channel', 'country', 'occurred_at'] as const;
const ENGAGEMENT_COLUMNS = ['issuer_id', 'credential_id', 'action', 'country', 'occurred_at'] as const;

type VerificationEventRow = Record<(typeof VERIFICATION_COLUMNS)[number], string>;
type EngagementEventRow = Record<(typeof ENGAGEMENT_COLUMNS)[number], string>;

/** How often buffered events are written. */
const FLUSH_INTERVAL_MS = 100;
/**
 * Events per write transaction, and the count that starts a write before the timer. Big enough to
 * amortise the commit; small enough that the synchronous SQLite driver never blocks the event loop
 * for more than ~20 ms (each event dirties an index page of its own).
 */
const BATCH = 250;

/**
 * SQLite: each batch's insert, in statements of BATCH rows or a power of two, each text compiled
 * once. Building the Kysely query from every value of a 250-event batch and compiling it took about
 * a fifth of what an event cost to record and write (in process: 7.1–8.2 µs an event before,
 * 5.6–6.7 µs after).
 */
const verificationValues = valuesStatements<VerificationEventRow>(VERIFICATION_COLUMNS, BATCH, (executor, template) =>
  executor.insertInto('verification_events').values(template),
);
const engagementValues = valuesStatements<EngagementEventRow>(ENGAGEMENT_COLUMNS, BATCH, (executor, template) =>
  executor.insertInto('engagement_events').values(template),
);
/**
 * Buffered events beyond which recording waits for the writer: verification is open, and bulk
 * calls record a thousand events each, so without it a client could grow the buffer (and the
 * process) faster than the database takes the rows. Callers then answer at the write rate.
 */
export const EVENTS_HIGH_WATER = 10_000;
/** While the database refuses writes, at most this many events wait; the oldest go first beyond it. */
const MAX_PENDING = 50_000;

/** The ISO country code a trusted proxy put in the configured header, else `ZZ` (unknown). */
export function countryFrom(value: string | string[] | undefined): string {
  const code = (Array.isArray(value) ? value[0] : value)?.trim().toUpperCase();
  return code !== undefined && /^[A-Z]{2}$/.test(code) ? code : 'ZZ';
}

/** Who verified: the country for analytics, and the client address whose replays are coalesced. */
export interface Verifier {
  country: string;
  /** The client address (request.ip, which honours TRUST_PROXY); never stored. */
  client: string;
}

interface PendingVerification {
  row: VerifiableRow;
  channel: VerificationChannel;
  country: string;
  occurredAt: Date;
}

interface PendingEngagement {
  issuerId: string;
  credentialId: string;
  action: EngagementAction;
  country: string;
  occurredAt: string;
}

export interface EventRecorder extends Job {
  /**
   * Counts one verification per row (an unknown id is never recorded) and buffers an event for each
   * credential this client did not verify on this channel within VERIFIER_WINDOW_MS: a row repeated
   * in one call or replayed within the window writes no event and sends no webhook. Resolves at once,
   * or, while more than EVENTS_HIGH_WATER events wait, once the writer has caught up (or failed).
   */
  recordVerifications(rows: readonly VerifiableRow[], channel: VerificationChannel, verifier: Verifier): Promise<void>;
  recordEngagement(event: Omit<PendingEngagement, 'occurredAt'>): Promise<void>;
  /** Writes everything recorded before the call; resolves once it is committed (or has failed and been kept). */
  flush(): Promise<void>;
}

/**
 * Verification and engagement events are the hot write (every verify answers one), so they are
 * buffered in memory and written together every ~100 ms (sooner once 250 wait), in transactions of
 * up to 250 events that hold the event rows and their `credential.verified` outbox rows. The cost
 * is a bounded loss window: a crash loses what was recorded since the last write (about 100 ms, or
 * more while the database refuses writes); a graceful shutdown flushes everything.
 */
export function createEventRecorder(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'config' | 'metrics' | 'log'>,
  deps: { outbox: Pick<OutboxService, 'enqueueEach'> },
): EventRecorder {
  const urls = publicUrls(core.config.publicBaseUrl);
  let verifications: PendingVerification[] = [];
  let engagements: PendingEngagement[] = [];
  let writing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let waiting: (() => void)[] = [];
  // Per process: with N replicas behind a load balancer a client's replays count at most N times a window.
  const recent = createRecentVerifiers();

  const pending = () => verifications.length + engagements.length;

  async function write(trx: Executor, v: PendingVerification[], e: PendingEngagement[]): Promise<void> {
    // PostgreSQL: one statement per batch over `unnest` arrays, planned once for any batch size.
    // SQLite: the batch's VALUES statements (`valuesStatements`).
    const postgres = core.dialect === 'postgres';
    if (v.length > 0) {
      const rows = v.map(
        (event): VerificationEventRow => ({
          issuer_id: event.row.issuer_id,
          credential_id: event.row.id,
          channel: event.channel,
          country: event.country,
          occurred_at: event.occurredAt.toISOString(),
        }),
      );
      await (postgres
        ? trx
            .insertInto('verification_events')
            .columns(VERIFICATION_COLUMNS)
            .expression(unnestRows(rows, VERIFICATION_COLUMNS))
            .execute()
        : executeAll(trx, verificationValues(trx, rows)));
    }
    if (e.length > 0) {
      const rows = e.map(
        (event): EngagementEventRow => ({
          issuer_id: event.issuerId,
          credential_id: event.credentialId,
          action: event.action,
          country: event.country,
          occurred_at: event.occurredAt,
        }),
      );
      await (postgres
        ? trx
            .insertInto('engagement_events')
            .columns(ENGAGEMENT_COLUMNS)
            .expression(unnestRows(rows, ENGAGEMENT_COLUMNS))
            .execute()
        : executeAll(trx, engagementValues(trx, rows)));
    }
    const byIssuer = new Map<string, PendingVerification[]>();
    for (const event of v) {
      const list = byIssuer.get(event.row.issuer_id);
      if (list) list.push(event);
      else byIssuer.set(event.row.issuer_id, [event]);
    }
    for (const [issuerId, events] of byIssuer) {
      await deps.outbox.enqueueEach(trx, issuerId, 'credential.verified', events, (event) =>
        verifiedEventData(urls, event.row, event.occurredAt, event.channel),
      );
    }
  }

  /** Writes the oldest batch and answers its size (0 when nothing waits); on failure puts it back and answers null. */
  async function writeBatch(): Promise<number | null> {
    const v = verifications.splice(0, BATCH);
    const e = engagements.splice(0, BATCH - v.length);
    try {
      // These events are buffered already (a crash loses the last interval), so their commit need
      // not wait for the disk either.
      await relaxedTransaction(core.db, core.config.database, (trx) => write(trx, v, e));
      return v.length + e.length;
    } catch (err) {
      // Kept for the next flush, newest first to survive: a database that is down must not grow memory forever.
      verifications = [...v, ...verifications].slice(-MAX_PENDING);
      engagements = [...e, ...engagements].slice(-MAX_PENDING);
      core.log.warn({ err, pending: pending() }, 'verification events not written; retrying at the next flush');
      return null;
    }
  }

  /** Lets waiting recorders go once the buffer is under the high-water mark, or when the writer stopped. */
  function release(force: boolean): void {
    if (waiting.length === 0 || (!force && pending() >= EVENTS_HIGH_WATER)) return;
    const released = waiting;
    waiting = [];
    for (const resolve of released) resolve();
  }

  /**
   * Batch after batch, letting requests run in between, until what was recorded before the drain is
   * written and less than a full batch waits, or the database refuses. The rest waits for the timer or
   * a full batch: going on while any event waited committed the few recorded during each write, about
   * 30 events a transaction under load instead of 250, with a transaction's fixed cost on each.
   */
  async function drain(): Promise<void> {
    let owed = pending();
    try {
      while (owed > 0 || pending() >= BATCH) {
        const written = await writeBatch();
        if (!written) break;
        owed -= written;
        release(false);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      // A refusing database must not hold requests forever: MAX_PENDING bounds the buffer instead.
      release(true);
    }
  }

  async function flush(): Promise<void> {
    while (writing) await writing;
    if (pending() === 0) return;
    writing = drain().finally(() => {
      writing = null;
    });
    await writing;
  }

  /** Starts a write once a batch waits; past the high-water mark the caller waits for the writer. */
  function afterRecording(): Promise<void> {
    if (pending() >= BATCH && !writing) void flush();
    if (pending() < EVENTS_HIGH_WATER) return Promise.resolve();
    return new Promise((resolve) => {
      waiting.push(resolve);
      if (!writing) void flush();
    });
  }

  return {
    name: 'verification-events',

    recordVerifications(rows, channel, { country, client }) {
      if (rows.length === 0) return Promise.resolve();
      core.metrics.verifications.inc({ channel }, rows.length);
      const occurredAt = core.clock.now();
      const now = occurredAt.getTime();
      const before = verifications.length;
      for (const row of rows) {
        if (recent.admit(`${row.id} ${channel} ${client}`, now)) {
          verifications.push({ row, channel, country, occurredAt });
        }
      }
      return verifications.length === before ? Promise.resolve() : afterRecording();
    },

    recordEngagement(event) {
      engagements.push({ ...event, occurredAt: core.clock.now().toISOString() });
      return afterRecording();
    },

    flush,

    start() {
      if (timer) return;
      timer = setInterval(() => void flush(), FLUSH_INTERVAL_MS);
      timer.unref();
    },

    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await flush();
    },
  };
}
