import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Core } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import type { Dialect, Executor } from '../../db/database.js';
import { executeAll, unnestVaryingRows, valuesStatements } from '../../db/dialect.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { IssuerIdentity, IssuerService } from '../issuers/issuers.service.js';
import type { UsageService } from '../usage/usage.service.js';
import type { OutboxService } from '../webhooks/outbox.service.js';
import { credentialEventData } from '../webhooks/webhooks.events.js';
import type { CredentialRow } from './credentials.repository.js';
import type { IssuanceService } from './issuance.service.js';

/** Positions below this fit in 16 bits beside a 36-bit sort key in a double (insertionOrder). */
const POSITIONS = 65_536;
/** Rows in the first chunk, and the bounds chunks are sized within. */
const FIRST_CHUNK = 200;
const MIN_CHUNK = 100;
const CHUNK_STEP = 50;
/** 1,000 rows of 15 columns stay far below either engine's bound-parameter limit. */
const MAX_CHUNK = 1_000;
/** How long one chunk may keep the event loop busy (design.md §4 Storage performance). */
const BLOCK_BUDGET_MS = 20;
/**
 * Bounds of one transaction of several chunks: the rows of the raw bulk-insert rate's transactions,
 * and a time after which concurrent writers (SQLite's single connection, this issuer's audit chain
 * heads on PostgreSQL) get their turn.
 */
const TRANSACTION_ROWS = 5_000;
const TRANSACTION_MS = 100;

/**
 * Sizes chunks by how long the last one kept the event loop busy. On SQLite a chunk's statements
 * run on the loop, so chunks settle near the budget; on PostgreSQL the loop mostly waits for the
 * server, so chunks grow and a batch needs fewer round trips. Growth is at most twofold per chunk
 * so one quick chunk cannot overshoot. Sizes are multiples of CHUNK_STEP, so on SQLite a chunk's
 * insert is at most seven statements of few distinct sizes (`valuesStatements`).
 */
function chunkSizer() {
  let size = FIRST_CHUNK;
  return {
    next: () => size,
    async measure<T>(work: () => Promise<T>): Promise<T> {
      const start = performance.eventLoopUtilization();
      const result = await work();
      const busyMs = Math.max(1, performance.eventLoopUtilization(start).active);
      const wanted = Math.round((size * Math.min(2, BLOCK_BUDGET_MS / busyMs)) / CHUNK_STEP) * CHUNK_STEP;
      size = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, wanted));
      return result;
    },
  };
}

/** One credential to issue, already validated: definition resolved, email hashed, key chosen. */
export interface BatchItem {
  definition: DefinitionRow;
  recipientHash: string;
  completionKey: string;
  recipientName: string | null;
  evidenceUrl: string | null;
  /** ISO date-time, not in the future; null means now. */
  issuedOn: string | null;
  /** The canonical BCP 47 tag the credential is issued in; null: the definition's own language. */
  language: string | null;
}

/**
 * What happened to an item (or, in a preview, what would): `new` is issued, `duplicate` repeats an
 * earlier item's completion key, `already_issued` names a key that exists, `error` could not issue.
 */
export type BatchClass = 'new' | 'duplicate' | 'already_issued' | 'error';
export type BatchError = 'quota_exceeded' | 'definition_archived';

export interface BatchOutcome {
  class: BatchClass;
  /** The new or existing credential; null in a preview of a new item and for errors. */
  credentialId: string | null;
  /** For duplicates: the index of the first item with the same completion key. */
  duplicateOf: number | null;
  error: BatchError | null;
}

export interface BatchRun {
  actor: string;
  /** Channel recorded on each credential: csv, connector:<provider>. */
  source: string;
  /** The import batch the credentials belong to, named in their audit records. */
  batchId: string;
}

/** Work to commit with the last chunk (the import batch record), given every outcome. */
export type BatchFinish = (trx: Executor, outcomes: BatchOutcome[]) => Promise<void>;

/**
 * The default completion key when a caller gives none: the same person earning the same definition
 * twice without a key is one credential, whatever the channel. It never contains the email.
 */
export function autoCompletionKey(definitionId: string, recipientHash: string): string {
  return `auto:${sha256Hex(`${definitionId}:${recipientHash}`).slice(0, 32)}`;
}

/** Built field by field, not spread: a large import makes two per item. */
const outcome = (cls: BatchClass, fields: Partial<BatchOutcome> = {}): BatchOutcome => ({
  class: cls,
  credentialId: fields.credentialId ?? null,
  duplicateOf: fields.duplicateOf ?? null,
  error: fields.error ?? null,
});

/** The quota room left when `err` is the quota refusal; undefined for any other error. */
function quotaRoom(err: unknown): number | undefined {
  if (!(err instanceof AppError) || err.code !== 'quota_exceeded') return undefined;
  const { quota, used } = err.extra as { quota: number | null; used: number };
  return quota === null ? undefined : Math.max(0, quota - used);
}

/**
 * An item's outcome when it cannot be inserted: its key exists, its definition is archived, or the
 * quota has no room; null when it is to be issued. A known key wins, as in single issuance.
 */
function precheck(item: BatchItem, existingId: string | undefined, hasRoom: boolean): BatchOutcome | null {
  if (existingId !== undefined) return outcome('already_issued', { credentialId: existingId });
  if (item.definition.status === 'archived') return outcome('error', { error: 'definition_archived' });
  if (!hasRoom) return outcome('error', { error: 'quota_exceeded' });
  return null;
}

/** Marks repeated completion keys as duplicates of their first item; returns the first items. */
function firstOccurrences(items: BatchItem[], outcomes: BatchOutcome[]): number[] {
  const seen = new Map<string, number>();
  const unique: number[] = [];
  items.forEach((item, index) => {
    const first = seen.get(item.completionKey);
    if (first === undefined) {
      seen.set(item.completionKey, index);
      unique.push(index);
    } else {
      outcomes[index] = outcome('duplicate', { duplicateOf: first });
    }
  });
  return unique;
}

/** A duplicate points at the credential its first item issued or found. */
function settleDuplicates(outcomes: BatchOutcome[]): void {
  for (const result of outcomes) {
    if (result.duplicateOf === null) continue;
    const first = outcomes[result.duplicateOf];
    result.credentialId = first?.credentialId ?? null;
  }
}

/**
 * The order the first occurrences are inserted in. Rows inserted in recipient-hash order (their ids
 * are time-ordered already) fill the primary key and both recipient-hash indexes in key order: a
 * transaction writes a few neighbouring index pages where random keys touched pages all over each
 * index (raw 5,000-row transactions on SQLite: 45 to 60 % more rows/s). When the quota may refuse
 * some items, file order stays, so the items beyond it are the last ones, as the dry run reports.
 *
 * The sort runs natively over a Float64Array: each item becomes one number, the leading 36 bits of
 * its hash above the 16 bits of its position (a batch holds at most 50,000 items). A comparator
 * sorting 50,000 strings held the event loop twice as long, and 36 bits of a random hash order rows
 * as well as the whole hash does for where they land in an index.
 */
function insertionOrder(items: BatchItem[], unique: number[], room: number | null): number[] {
  if ((room !== null && room < unique.length) || unique.length > POSITIONS) return unique;
  const keys = new Float64Array(unique.length);
  unique.forEach((index, position) => {
    keys[position] = Number.parseInt((items[index] as BatchItem).recipientHash.slice(0, 9), 16) * POSITIONS + position;
  });
  keys.sort();
  return Array.from(keys, (key) => unique[key % POSITIONS] as number);
}

/** The credentials' columns, all text on both engines. */
const CREDENTIAL_COLUMNS = [
  'id',
  'issuer_id',
  'definition_id',
  'recipient_hash',
  'display_name',
  'completion_key',
  'issued_on',
  'expires_on',
  'revoked_at',
  'revoked_reason',
  'evidence_url',
  'reissued_from',
  'source',
  'expiry_announced_at',
  'created_at',
  'language',
  'import_batch_id',
] as const satisfies readonly (keyof CredentialRow)[];

/**
 * Ids of the credentials that hold `keys`. On PostgreSQL the keys travel as one array parameter,
 * which the server plans once, instead of an IN list of a thousand parameters.
 */
async function existingIds(
  db: Executor,
  dialect: Dialect,
  issuerId: string,
  keys: string[],
): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .selectFrom('credentials')
    .select(['id', 'completion_key'])
    .where('issuer_id', '=', issuerId)
    .where((eb) =>
      dialect === 'postgres'
        ? eb('completion_key', '=', sql<string>`any(${keys}::text[])`)
        : eb('completion_key', 'in', keys),
    )
    .execute();
  return new Map(rows.map((r) => [r.completion_key, r.id]));
}

/** SQLite: the chunk's insert, in statements of MAX_CHUNK rows or a power of two. */
const credentialValues = valuesStatements<CredentialRow>(CREDENTIAL_COLUMNS, MAX_CHUNK, (executor, template) =>
  executor
    .insertInto('credentials')
    .values(template)
    .onConflict((oc) => oc.columns(['issuer_id', 'completion_key']).doNothing())
    .returning('id'),
);

/**
 * Ids of the rows actually inserted: a row whose completion key exists is skipped. On PostgreSQL the
 * rows travel as one `unnest` of column arrays (15 parameters, whatever the count); on SQLite as a
 * multi-row VALUES lists split by `sqliteChunkSizes` (`valuesStatements`).
 */
async function insertNew(db: Executor, dialect: Dialect, rows: CredentialRow[]): Promise<Set<string>> {
  if (dialect === 'postgres') {
    const inserted = await db
      .insertInto('credentials')
      .columns(CREDENTIAL_COLUMNS)
      .expression(unnestVaryingRows(rows, CREDENTIAL_COLUMNS))
      .onConflict((oc) => oc.columns(['issuer_id', 'completion_key']).doNothing())
      .returning('id')
      .execute();
    return new Set(inserted.map((r) => r.id));
  }
  const inserted = await executeAll<{ id: string }>(db, credentialValues(db, rows));
  return new Set(inserted.map((r) => r.id));
}

type AuditChains = ReturnType<AuditService['chainsOf']>;

export type BatchIssuanceDeps = {
  issuers: Pick<IssuerService, 'identity'>;
  issuance: Pick<IssuanceService, 'buildRow' | 'urls'>;
  usage: Pick<UsageService, 'consumeIssuance' | 'remainingIssuance'>;
  audit: Pick<AuditService, 'chainsOf'>;
  outbox: Pick<OutboxService, 'enqueueEach'>;
};

/**
 * Set-based issuance for imports and connectors: a few statements per chunk of rows instead of a
 * round trip per row, with the same guarantees as single issuance (idempotent completion keys,
 * atomic quota, audit and webhooks in the chunk's transaction).
 */
export function createBatchIssuance(core: Pick<Core, 'db' | 'dialect' | 'clock' | 'metrics'>, deps: BatchIssuanceDeps) {
  /**
   * Issues the chunk's items inside `trx`. `cap` is the quota room once a chunk has run into the
   * quota (null: not known to be short); items beyond it are quota errors. Returns how many issued.
   */
  async function issueChunk(
    trx: Executor,
    issuerId: string,
    identity: IssuerIdentity,
    chains: AuditChains,
    run: BatchRun,
    items: BatchItem[],
    chunk: number[],
    outcomes: BatchOutcome[],
    cap: number | null,
  ): Promise<number> {
    const keyOf = (index: number) => (items[index] as BatchItem).completionKey;
    // Existing keys are read first only when they change which items may be inserted (a known key
    // wins over an archived definition, and must not take quota room). Otherwise the insert skips
    // them itself, and they are looked up afterwards.
    const readFirst =
      cap !== null || chunk.some((index) => (items[index] as BatchItem).definition.status === 'archived');
    const existing = readFirst
      ? await existingIds(trx, core.dialect, issuerId, chunk.map(keyOf))
      : new Map<string, string>();
    const candidates: number[] = [];
    for (const index of chunk) {
      const item = items[index] as BatchItem;
      const verdict = precheck(item, existing.get(item.completionKey), cap === null || candidates.length < cap);
      if (verdict) outcomes[index] = verdict;
      else candidates.push(index);
    }
    if (candidates.length === 0) return 0;

    const rows = candidates.map((index): CredentialRow => {
      const item = items[index] as BatchItem;
      const row = deps.issuance.buildRow(issuerId, item.definition, {
        recipientHash: item.recipientHash,
        recipientName: item.recipientName,
        completionKey: item.completionKey,
        evidenceUrl: item.evidenceUrl,
        issuedOn: item.issuedOn,
        language: item.language,
        source: run.source,
      });
      // The batch's certificate ZIP finds its credentials by this (issue 44).
      row.import_batch_id = run.batchId;
      return row;
    });
    const inserted = await insertNew(trx, core.dialect, rows);
    const created: { row: CredentialRow; definitionSlug: string }[] = [];
    // Keys the insert skipped: they existed already, or another request inserted them meanwhile.
    const known: number[] = [];
    candidates.forEach((index, k) => {
      const row = rows[k] as CredentialRow;
      if (inserted.has(row.id)) {
        outcomes[index] = outcome('new', { credentialId: row.id });
        created.push({ row, definitionSlug: (items[index] as BatchItem).definition.slug });
      } else {
        known.push(index);
      }
    });
    if (known.length > 0) {
      const holders = await existingIds(trx, core.dialect, issuerId, known.map(keyOf));
      for (const index of known) {
        outcomes[index] = outcome('already_issued', { credentialId: holders.get(keyOf(index)) ?? null });
      }
    }
    if (created.length === 0) return 0;

    await deps.usage.consumeIssuance(trx, issuerId, created.length);
    await chains.append(
      created.map(({ row }) => ({
        issuerId,
        actor: run.actor,
        action: 'credential.issued',
        targetType: 'credential',
        targetId: row.id,
        details: {
          definitionId: row.definition_id,
          completionKey: row.completion_key,
          source: row.source,
          batchId: run.batchId,
        },
      })),
    );
    const now = core.clock.now();
    await deps.outbox.enqueueEach(trx, issuerId, 'credential.issued', created, ({ row, definitionSlug }) =>
      credentialEventData(
        deps.issuance.urls,
        { ...row, issuer_slug: identity.slug, definition_slug: definitionSlug },
        now,
      ),
    );
    return created.length;
  }

  return {
    /**
     * Classifies items exactly as `issue` would, writing nothing: same duplicates, existing keys,
     * archived definitions and quota room (read once; a concurrent issue can still take some).
     */
    async preview(issuerId: string, items: BatchItem[]): Promise<BatchOutcome[]> {
      const outcomes = items.map(() => outcome('new'));
      const unique = firstOccurrences(items, outcomes);
      let room = (await deps.usage.remainingIssuance(issuerId)).remaining;
      const sizer = chunkSizer();
      for (let start = 0; start < unique.length; ) {
        if (start > 0) await nextTurn();
        const chunk = unique.slice(start, start + sizer.next());
        start += chunk.length;
        const keys = chunk.map((index) => (items[index] as BatchItem).completionKey);
        const existing = await sizer.measure(() => existingIds(core.db, core.dialect, issuerId, keys));
        for (const index of chunk) {
          const item = items[index] as BatchItem;
          const verdict = precheck(item, existing.get(item.completionKey), room === null || room > 0);
          if (verdict) outcomes[index] = verdict;
          else if (room !== null) room--;
        }
      }
      settleDuplicates(outcomes);
      return outcomes;
    },

    /**
     * Issues items in the order `insertionOrder` picks; outcomes stay in item order. A transaction
     * takes chunks, yielding to the event loop between them, until it holds TRANSACTION_ROWS rows or
     * has been open TRANSACTION_MS, and then commits: each commit writes every page its rows touched
     * and syncs, so a commit per chunk made the commits most of an import's time. When the quota
     * cannot take a transaction's rows, it is rolled back and re-run with only as many new items as
     * fit; the rest become `quota_exceeded` errors. `finish` commits with the last rows.
     *
     * On PostgreSQL a chunk starts while the one before still waits for the server: its rows are
     * built and hashed then, and its statements queue on the transaction's connection behind the
     * earlier chunk's, so the server is not left idle while this process works, nor the reverse.
     * The audit writer keeps the chains in order whichever chunk appends first.
     */
    async issue(issuerId: string, run: BatchRun, items: BatchItem[], finish?: BatchFinish): Promise<BatchOutcome[]> {
      const identity = await deps.issuers.identity(issuerId);
      const outcomes = items.map(() => outcome('new'));
      const unique = firstOccurrences(items, outcomes);
      if (unique.length === 0) {
        settleDuplicates(outcomes);
        if (finish) await core.db.transaction().execute((trx) => finish(trx, outcomes));
        return outcomes;
      }
      const order = insertionOrder(items, unique, (await deps.usage.remainingIssuance(issuerId)).remaining);
      const sizer = chunkSizer();
      let cap: number | null = null;
      let overlap = core.dialect === 'postgres';
      for (let start = 0; start < order.length; ) {
        if (start > 0) await nextTurn();
        let end = start;
        let created = 0;
        const overlapped = overlap && cap === null;
        try {
          await core.db.transaction().execute(async (trx) => {
            const opened = performance.now();
            const chains = deps.audit.chainsOf(trx, issuerId);
            const pending: Promise<number>[] = [];
            try {
              while (end < order.length) {
                if (end > start) await nextTurn();
                const chunk = order.slice(end, end + sizer.next());
                const room = cap === null ? null : cap - created;
                const issued = sizer.measure(() =>
                  issueChunk(trx, issuerId, identity, chains, run, items, chunk, outcomes, room),
                );
                // Awaited below in order; until then a failure must not count as unhandled.
                issued.catch(() => {});
                pending.push(issued);
                end += chunk.length;
                if (pending.length > (overlapped ? 1 : 0)) created += await (pending.shift() as Promise<number>);
                if (end - start >= TRANSACTION_ROWS || performance.now() - opened >= TRANSACTION_MS) break;
              }
              while (pending.length > 0) created += await (pending.shift() as Promise<number>);
            } catch (err) {
              // The transaction ends only when no statement of its chunks is left waiting.
              await Promise.allSettled(pending);
              throw err;
            }
            await chains.close();
            if (end === order.length) {
              settleDuplicates(outcomes);
              if (finish) await finish(trx, outcomes);
            }
          });
        } catch (err) {
          const room = quotaRoom(err);
          if (room === undefined) throw err;
          // With chunks overlapping, the rows counted before the refusal are not known exactly: the
          // rolled-back rows are issued again one chunk at a time, which finds the quota's edge.
          if (overlapped) {
            overlap = false;
            continue;
          }
          // The quota was read inside the transaction, so it counted the chunks rolled back with it.
          cap = room + created;
          continue;
        }
        if (cap !== null) cap -= created;
        core.metrics.credentialsIssued.inc(created);
        start = end;
      }
      return outcomes;
    },
  };
}

export type BatchIssuance = ReturnType<typeof createBatchIssuance>;
