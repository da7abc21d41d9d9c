import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import type { BatchIssuance, BatchItem, BatchOutcome } from '../credentials/issuance.batch.js';
import { NAME_DROPPED_MESSAGE, storableName } from '../credentials/issuance.service.js';
import { createImportBatchRepository } from './import-batches.repository.js';

/** A CSV row or connector record after validation: something to issue, or why not. */
export type PreparedEntry =
  | { kind: 'issue'; item: BatchItem }
  | { kind: 'skip' | 'error'; message: string; completionKey: string | null };

/** Real runs report issued/skipped/error; a dry run reports the class new/duplicate/already_issued/error. */
export type EntryOutcome = 'issued' | 'skipped' | 'error' | 'new' | 'duplicate' | 'already_issued';

export interface EntryReport {
  outcome: EntryOutcome;
  completionKey: string | null;
  credentialId: string | null;
  message: string | null;
}

export interface ImportRunOptions {
  actor: string;
  /** Recorded on the credentials and the import batch: csv, connector:<provider>. */
  source: string;
  filename: string | null;
  dryRun: boolean;
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

export const ALREADY_ISSUED_MESSAGE = 'already issued: the completion key exists';

function batchReport(
  result: BatchOutcome,
  completionKey: string,
  positions: number[],
  options: Pick<ImportRunOptions, 'dryRun' | 'label'>,
): EntryReport {
  const { credentialId } = result;
  switch (result.class) {
    case 'new':
      return { outcome: options.dryRun ? 'new' : 'issued', completionKey, credentialId, message: null };
    case 'error':
      return { outcome: 'error', completionKey, credentialId, message: result.error };
    case 'duplicate': {
      const first = options.label(positions[result.duplicateOf as number] as number);
      return {
        outcome: options.dryRun ? 'duplicate' : 'skipped',
        completionKey,
        credentialId,
        message: `duplicate of ${first}`,
      };
    }
    case 'already_issued':
      return {
        outcome: options.dryRun ? 'already_issued' : 'skipped',
        completionKey,
        credentialId,
        message: ALREADY_ISSUED_MESSAGE,
      };
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
        : {
            outcome: entry.kind === 'skip' ? 'skipped' : 'error',
            completionKey: entry.completionKey,
            credentialId: null,
            message: entry.message,
          },
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
  deps: { batchIssuance: Pick<BatchIssuance, 'preview' | 'issue'> },
) {
  return {
    async run(issuerId: string, options: ImportRunOptions, entries: PreparedEntry[]): Promise<ImportRunResult> {
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
      const outcomes = await deps.batchIssuance.issue(
        issuerId,
        { actor: options.actor, source: options.source, batchId },
        items,
        async (trx, finalOutcomes) => {
          const { total, issued, skipped, errored } = tally(entries, finalOutcomes);
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
          });
        },
      );
      return { batchId, ...summarise(entries, positions, outcomes, options) };
    },
  };
}

export type ImportRunner = ReturnType<typeof createImportRunner>;
