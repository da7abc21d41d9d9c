import { setImmediate as nextTurn } from 'node:timers/promises';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import type { BatchError, BatchIssuance, BatchItem, BatchOutcome } from '../credentials/issuance.batch.js';
import { heldKey, type IssuanceService, NAME_DROPPED_MESSAGE, storableName } from '../credentials/issuance.service.js';
import type {
  NotificationOutcome,
  NotificationService,
  NotifyRequest,
} from '../notifications/notifications.service.js';
import { createImportBatchRepository } from './import-batches.repository.js';

/** What is wrong with a field of an entry, for a reader to word (the message is the API's wording). */
export type RowProblemCode =
  | 'missing'
  | 'invalid_email'
  | 'unknown_definition'
  | 'ambiguous_definition'
  | 'not_a_day'
  | 'date_order'
  | 'unreadable_date'
  | 'future_date'
  | 'invalid_url'
  | 'too_long'
  | 'line_break'
  | 'contains_email'
  | 'invalid_notify'
  | 'invalid_language'
  | 'cell_count'
  | 'definition_archived'
  | 'quota_exceeded';

export interface RowProblem {
  /** The field (recipientEmail, definition, issuedOn, completionKey, …). */
  field: string;
  code: RowProblemCode;
  /** The value as sent, cut short; null when there is none or it may not be echoed. */
  value: string | null;
  /** CSV only: the header of the column (or columns) the value came from; null when none did. */
  column?: string | null;
}

/**
 * A CSV row or connector record after validation: something to issue, a credential the recipient
 * already holds (an entry without its own key, design.md §4 CSV import), or why not.
 */
export type PreparedEntry =
  | {
      kind: 'issue';
      item: BatchItem;
      ownKey: boolean;
      /** The recipient's address, held in memory for the run only (backpack links), never stored. */
      email: string;
      notifyTo: string | null;
    }
  | { kind: 'held'; credentialId: string }
  | { kind: 'skip' | 'error'; message: string; completionKey: string | null; problems?: RowProblem[] };

/** What a run does with an entry (a dry run: what the real run would do). */
export type EntryOutcome = 'issued' | 'skipped' | 'error';
/** A dry run's class of an entry, beside its outcome. */
export type EntryPreview = 'new' | 'duplicate' | 'already_issued' | 'error';

export interface EntryReport {
  outcome: EntryOutcome;
  /** Set in a dry run only. */
  preview?: EntryPreview;
  completionKey: string | null;
  credentialId: string | null;
  message: string | null;
  /** Set when a new credential's earner is to be told: queued, or off (no SMTP server). */
  notification?: NotificationOutcome;
  /** An entry in error: each problem of its fields (the message joins their API wording). */
  problems?: RowProblem[];
  /** A duplicate: the index of the entry it repeats. */
  duplicateOf?: number;
  /** Not issued because of the credential (this key's, or one the recipient holds): why. */
  skippedFor?: 'already_issued' | 'already_held';
}

/** A new credential and its recipient's address, for the backpack to link. */
export interface EarnerLink {
  credentialId: string;
  email: string;
}

export interface ImportRunOptions {
  actor: string;
  /** Recorded on the credentials and the import batch: csv, connector:<provider>. */
  source: string;
  filename: string | null;
  dryRun: boolean;
  /**
   * true (CSV import): an entry with its own key whose recipient already holds a valid credential of
   * the definition under another key is held too, not issued. Otherwise only keyless entries are.
   */
  heldWithOwnKey?: boolean;
  /** How messages name an entry ("row 7", "record 2"). */
  label(entryIndex: number): string;
}

export interface ImportRunResult {
  batchId: string;
  total: number;
  issued: number;
  skipped: number;
  errored: number;
  entries: EntryReport[];
}

/** An entry of a batch's kept report: where it was, what happened and why. */
export interface KeptEntry {
  entry: string;
  outcome: EntryOutcome;
  completionKey: string | null;
  credentialId: string | null;
  message: string | null;
}

/**
 * The most entries a batch keeps for the import history; the import's own response reports every
 * entry. An import whose every row failed keeps its first thousand, which say what went wrong.
 */
export const KEPT_REPORT_ENTRIES = 1000;

/** A batch's kept report: its entries not issued cleanly, and whether the cap left any out. */
export interface KeptReport {
  entries: KeptEntry[];
  complete: boolean;
}

/** The entries of a run worth keeping: every one not issued cleanly, in file order, capped. */
function keptReport(reports: EntryReport[], label: (entryIndex: number) => string): KeptReport {
  const entries: KeptEntry[] = [];
  for (const [index, { outcome, completionKey, credentialId, message }] of reports.entries()) {
    if (outcome === 'issued' && message === null) continue;
    if (entries.length === KEPT_REPORT_ENTRIES) return { entries, complete: false };
    entries.push({ entry: label(index), outcome, completionKey, credentialId, message });
  }
  return { entries, complete: true };
}

export const ALREADY_ISSUED_MESSAGE = 'already issued: the completion key exists';
const heldMessage = (credentialId: string) =>
  `already held: the recipient holds credential ${credentialId} of this definition`;

/** The report of an entry: its outcome, and in a dry run its preview class. */
function report(
  outcome: EntryOutcome,
  preview: EntryPreview | null,
  fields: Omit<EntryReport, 'outcome' | 'preview'>,
): EntryReport {
  return preview === null ? { outcome, ...fields } : { outcome, preview, ...fields };
}

function batchReport(
  result: BatchOutcome,
  completionKey: string,
  positions: number[],
  options: Pick<ImportRunOptions, 'dryRun' | 'label'>,
): EntryReport {
  const { credentialId } = result;
  const preview = (cls: EntryPreview) => (options.dryRun ? cls : null);
  switch (result.class) {
    case 'new':
      return report('issued', preview('new'), { completionKey, credentialId, message: null });
    case 'error': {
      const code = result.error as BatchError;
      const field = code === 'quota_exceeded' ? 'quota' : 'definition';
      return report('error', preview('error'), {
        completionKey,
        credentialId,
        message: code,
        problems: [{ field, code, value: null }],
      });
    }
    case 'duplicate': {
      const duplicateOf = positions[result.duplicateOf as number] as number;
      return report('skipped', preview('duplicate'), {
        completionKey,
        credentialId,
        message: `duplicate of ${options.label(duplicateOf)}`,
        duplicateOf,
      });
    }
    case 'already_issued':
      return report('skipped', preview('already_issued'), {
        completionKey,
        credentialId,
        message: ALREADY_ISSUED_MESSAGE,
        skippedFor: 'already_issued',
      });
  }
}

/** The report of an entry that never reached batch issuance. */
function preparedReport(entry: Exclude<PreparedEntry, { kind: 'issue' }>, dryRun: boolean): EntryReport {
  switch (entry.kind) {
    case 'held':
      return report('skipped', dryRun ? 'already_issued' : null, {
        completionKey: null,
        credentialId: entry.credentialId,
        message: heldMessage(entry.credentialId),
        skippedFor: 'already_held',
      });
    case 'skip':
      // Only connectors skip records, and they have no dry run.
      return report('skipped', null, {
        completionKey: entry.completionKey,
        credentialId: null,
        message: entry.message,
      });
    case 'error':
      return report('error', dryRun ? 'error' : null, {
        completionKey: entry.completionKey,
        credentialId: null,
        message: entry.message,
        ...(entry.problems ? { problems: entry.problems } : {}),
      });
  }
}

/** Adds to an entry's message that its name was not stored (batch issuance drops it). */
function noteDroppedName(report: EntryReport, item: BatchItem): EntryReport {
  if (!storableName(item.recipientName).dropped) return report;
  return { ...report, message: report.message ? `${report.message}; ${NAME_DROPPED_MESSAGE}` : NAME_DROPPED_MESSAGE };
}

/** The counts of a run, from the outcomes alone (the import batch row needs no per-entry reports). */
function tally(entries: PreparedEntry[], outcomes: BatchOutcome[]): Omit<ImportRunResult, 'batchId' | 'entries'> {
  let issued = 0;
  let errored = 0;
  for (const entry of entries) if (entry.kind === 'error') errored++;
  for (const result of outcomes) {
    if (result.class === 'new') issued++;
    else if (result.class === 'error') errored++;
  }
  return { total: entries.length, issued, skipped: entries.length - issued - errored, errored };
}

function summarise(
  entries: PreparedEntry[],
  positions: number[],
  outcomes: BatchOutcome[],
  options: Pick<ImportRunOptions, 'dryRun' | 'label'>,
): Omit<ImportRunResult, 'batchId'> {
  let item = 0;
  const reports = entries.map(
    (entry): EntryReport =>
      entry.kind === 'issue'
        ? noteDroppedName(
            batchReport(outcomes[item++] as BatchOutcome, entry.item.completionKey, positions, options),
            entry.item,
          )
        : preparedReport(entry, options.dryRun),
  );
  return { ...tally(entries, outcomes), entries: reports };
}

/**
 * Runs prepared entries through batch issuance (or its preview) and reports each entry. A real run
 * records its import batch in the transaction of its last chunk, so the batch row and the last
 * credentials commit together; earlier chunks are safe to re-run thanks to the completion keys.
 */
export function createImportRunner(
  core: Pick<Core, 'ids' | 'clock'>,
  deps: {
    batchIssuance: Pick<BatchIssuance, 'preview' | 'issue'>;
    issuance: Pick<IssuanceService, 'heldCredentials'>;
    notifications: Pick<NotificationService, 'notifyAll'>;
    /** Links new credentials to the earner accounts of their addresses, if any (the backpack). */
    linkToEarners?: (issuerId: string, links: EarnerLink[]) => Promise<void>;
  },
) {
  /**
   * Links the credentials this run issued to earner accounts while the addresses are at hand (issue
   * 47 §1: "a credential issued later to an address that has an account is linked at issuance").
   */
  async function linkIssued(
    issuerId: string,
    entries: PreparedEntry[],
    positions: number[],
    outcomes: BatchOutcome[],
  ): Promise<void> {
    if (!deps.linkToEarners) return;
    const links: EarnerLink[] = [];
    outcomes.forEach((outcome, i) => {
      const entry = entries[positions[i] as number];
      if (outcome.class === 'new' && outcome.credentialId !== null && entry?.kind === 'issue')
        links.push({ credentialId: outcome.credentialId, email: entry.email });
    });
    if (links.length > 0) await deps.linkToEarners(issuerId, links);
  }

  /**
   * Queues the notifications of the entries this run issued (never a replay or a preview) and
   * marks their reports: `suppressed` for an earner who unsubscribed (one lookup for the run).
   * Queuing is a push to memory: the import does not wait for any send.
   */
  async function notifyIssued(
    issuerId: string,
    entries: PreparedEntry[],
    positions: number[],
    outcomes: BatchOutcome[],
    reports: EntryReport[],
  ): Promise<EntryReport[]> {
    const now = isoNow(core.clock);
    const indexes: number[] = [];
    const requests: NotifyRequest[] = [];
    outcomes.forEach((outcome, i) => {
      const index = positions[i] as number;
      const entry = entries[index];
      if (outcome.class !== 'new' || outcome.credentialId === null || entry?.kind !== 'issue' || !entry.notifyTo)
        return;
      indexes.push(index);
      requests.push({
        issuerId,
        credentialId: outcome.credentialId,
        definitionId: entry.item.definition.id,
        issuedOn: entry.item.issuedOn ?? now,
        recipientHash: entry.item.recipientHash,
        email: entry.notifyTo,
        language: entry.item.language,
      });
    });
    if (requests.length === 0) return reports;
    const notified = await deps.notifications.notifyAll(requests);
    // Set on the run's own reports, not copies: a large import notifies for every row.
    indexes.forEach((index, i) => {
      (reports[index] as EntryReport).notification = notified[i];
    });
    return reports;
  }

  /**
   * Entries without their own key (with `withOwnKey`, every entry) whose recipient already holds a
   * valid credential of the definition under another key (another channel's, an earlier explicit
   * one) become `held`.
   * A credential issued between this read and the insert can still be doubled; the auto: key
   * keeps this very channel idempotent whatever happens.
   */
  async function markHeld(issuerId: string, entries: PreparedEntry[], withOwnKey: boolean): Promise<PreparedEntry[]> {
    const checked = (entry: PreparedEntry): entry is Extract<PreparedEntry, { kind: 'issue' }> =>
      entry.kind === 'issue' && (withOwnKey || !entry.ownKey);
    const pairs = entries.flatMap((entry) =>
      checked(entry) ? [{ definitionId: entry.item.definition.id, recipientHash: entry.item.recipientHash }] : [],
    );
    if (pairs.length === 0) return entries;
    const held = await deps.issuance.heldCredentials(issuerId, pairs, () => nextTurn());
    if (held.size === 0) return entries;
    return entries.map((entry) => {
      if (!checked(entry)) return entry;
      const found = held.get(heldKey(entry.item.definition.id, entry.item.recipientHash));
      // The credential under this very key is reported by batch issuance as the key's replay.
      if (found === undefined || found.completionKey === entry.item.completionKey) return entry;
      return { kind: 'held', credentialId: found.id };
    });
  }

  return {
    async run(issuerId: string, options: ImportRunOptions, prepared: PreparedEntry[]): Promise<ImportRunResult> {
      const entries = await markHeld(issuerId, prepared, options.heldWithOwnKey === true);
      const batchId = core.ids.uuid();
      const positions: number[] = [];
      const items: BatchItem[] = [];
      entries.forEach((entry, index) => {
        if (entry.kind !== 'issue') return;
        positions.push(index);
        items.push(entry.item);
      });
      if (options.dryRun) {
        const outcomes = await deps.batchIssuance.preview(issuerId, items);
        return { batchId, ...summarise(entries, positions, outcomes, options) };
      }
      let summary: Omit<ImportRunResult, 'batchId'> | undefined;
      const outcomes = await deps.batchIssuance.issue(
        issuerId,
        { actor: options.actor, source: options.source, batchId },
        items,
        async (trx, finalOutcomes) => {
          summary = summarise(entries, positions, finalOutcomes, options);
          const { total, issued, skipped, errored } = summary;
          await createImportBatchRepository(trx).insert({
            id: batchId,
            issuer_id: issuerId,
            source: options.source,
            filename: options.filename,
            total,
            issued,
            skipped,
            errored,
            created_at: isoNow(core.clock),
            report: JSON.stringify(keptReport(summary.entries, options.label)),
          });
        },
      );
      if (!summary) throw new Error('batch issuance returned without recording its batch');
      await linkIssued(issuerId, entries, positions, outcomes);
      return {
        batchId,
        ...summary,
        entries: await notifyIssued(issuerId, entries, positions, outcomes, summary.entries),
      };
    },
  };
}

export type ImportRunner = ReturnType<typeof createImportRunner>;
