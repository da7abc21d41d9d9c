import type { Core } from '../../core/context.js';
import { storableName } from '../credentials/issuance.service.js';
import {
  type CompletionFields,
  type IngestContext,
  type IngestContextDeps,
  loadIngestContext,
  prepareCompletion,
} from './completion-entry.js';
import { type ColumnSource, composeName, lostCharacters } from './csv.aliases.js';
import { type CsvColumns, describeColumns, resolveColumns, shownHeader } from './csv.columns.js';
import { parseCsv } from './csv.parse.js';
import type { ImportCsvBody, ImportReport } from './csv.schemas.js';
import { createDateDetector, type DateDetection, type DateFormat, parseDate } from './dates.js';
import type { DefinitionLookup } from './definition-resolver.js';
import type { ImportRunner, PreparedEntry, RowProblem } from './import-run.js';

function defaultsLookup(ctx: IngestContext, defaults: ImportCsvBody['defaults']): DefinitionLookup {
  if (defaults?.definitionId !== undefined) {
    const definition = ctx.resolver.byId(defaults.definitionId);
    return definition ? { definition } : { problem: 'defaults.definitionId does not match a definition' };
  }
  if (defaults?.definitionRef !== undefined)
    return ctx.resolver.byRef(defaults.definitionRef, 'defaults.definitionRef');
  return { problem: 'no definition: add a definitionId or definitionRef column, or send defaults' };
}

/** Row definitionId, else row definitionRef (slug, then name), else the defaults. */
function rowLookup(ctx: IngestContext, id: string, ref: string, defaults: DefinitionLookup): DefinitionLookup {
  if (id !== '') {
    const definition = ctx.resolver.byId(id);
    return definition ? { definition } : { problem: 'definitionId does not match a definition' };
  }
  if (ref !== '') return ctx.resolver.byRef(ref, 'definitionRef');
  return defaults;
}

/** A field's trimmed cell, '' when the file has no column for it. */
function cellOf(cells: string[], index: number | undefined): string {
  return index === undefined ? '' : (cells[index] ?? '').trim();
}

/** What a dry run's preview shows of a row besides its class and message. */
interface RowShown {
  recipientName: string | null;
  definitionName: string | null;
  issuedOn: string | null;
  nameWarning?: string;
}

/** The longest name stored (and so shown); longer ones are a row error. */
const SHOWN_NAME_MAX = 200;
const NOTHING_SHOWN: RowShown = { recipientName: null, definitionName: null, issuedOn: null };

interface RowOptions {
  dateFormat: DateFormat | undefined;
  ambiguousDates: boolean;
  notify: boolean;
}

/** The row's name (unless it holds an email address), definition and date as the preview shows them. */
function shownOf(fields: CompletionFields, lookup: DefinitionLookup, options: RowOptions): RowShown {
  const date = parseDate(fields.issuedOn, options.dateFormat);
  return {
    ...(lostCharacters(fields.recipientName) ? { nameWarning: LOST_CHARACTERS } : {}),
    // A name over the limit is an error of its own, and the preview never echoes a huge cell.
    recipientName: fields.recipientName.length > SHOWN_NAME_MAX ? null : storableName(fields.recipientName).name,
    definitionName: 'definition' in lookup ? lookup.definition.name : null,
    issuedOn: date.ok ? date.iso : null,
  };
}

/** What a row shows: the name's warning only in the preview, where it can still be corrected. */
function shownIn({ nameWarning, ...row }: RowShown, dryRun: boolean): RowShown {
  return dryRun && nameWarning !== undefined ? { ...row, nameWarning } : row;
}

const LOST_CHARACTERS =
  'The name has a "?" where a letter was probably lost when the file was saved in a code page without it (Windows-1252 has no ễ, ł or ă): correct the name, or save the file as CSV UTF-8.';

/**
 * The completion key a learner reference makes when the row has no key of its own: one per learner
 * and definition, so a re-import after an email was corrected finds the same credential.
 */
function learnerKey(ref: string, lookup: DefinitionLookup): string {
  return ref !== '' && 'definition' in lookup ? `learner:${ref}:${lookup.definition.slug}` : '';
}

/** Thrown by the detection pass's sink to stop it early (csv.parse stops on a sink's throw). */
const DETECTED = Symbol('dates detected');

/**
 * The format the import reads dates in, and what the file's issuedOn column shows: a first pass
 * over the file reads that column alone, until the dates have shown their format (only when the
 * caller names no format).
 */
async function dateFormatOf(
  csv: string,
  mapping: ImportCsvBody['mapping'],
): Promise<{ used: DateFormat | null; detection: DateDetection }> {
  const named = mapping?.dateFormat ?? null;
  if (named !== null || mapping?.issuedOn === null)
    return { used: named, detection: { detected: null, ambiguous: false } };
  const detector = createDateDetector();
  let column: number | undefined;
  try {
    await parseCsv(csv, {
      header(cells) {
        column = resolveColumns(cells, mapping).issuedOn;
        if (column === undefined) throw DETECTED;
      },
      row(cells) {
        if (column !== undefined && detector.add(cells[column] ?? '')) throw DETECTED;
      },
    });
  } catch (err) {
    // The pass stops as soon as the dates have told their format; the import's own pass reports
    // any other problem of the file.
    if (err !== DETECTED) throw err;
  }
  const detection = detector.result();
  return { used: detection.detected, detection };
}

/** The columns a field of a row was read from (a name may come from two), as the file names them. */
function columnsOf(field: string, header: string[], columns: CsvColumns, cell: (source: ColumnSource) => string) {
  const named = (...sources: ColumnSource[]) => {
    const headers = sources.flatMap((source) => {
      const index = columns[source];
      return index === undefined ? [] : [shownHeader(header[index] ?? '')];
    });
    return headers.length === 0 ? null : headers.join(' + ');
  };
  switch (field) {
    case 'recipientName':
      if (columns.recipientName !== undefined) return named('recipientName');
      if (columns.sortName !== undefined) return named('sortName');
      return named(columns.preferredName !== undefined ? 'preferredName' : 'givenName', 'familyName');
    case 'completionKey':
      return cell('completionKey') !== '' || columns.learnerRef === undefined
        ? named('completionKey')
        : named('learnerRef');
    case 'definition':
      if (cell('definitionId') !== '') return named('definitionId');
      return cell('definitionRef') !== '' ? named('definitionRef') : null;
    default:
      return named(field as ColumnSource);
  }
}

/**
 * The problems of a row in error as the report lists them, each with the column it came from. A
 * row naming no definition, in a file without defaults, is missing one rather than naming a wrong one.
 */
function locatedProblems(
  problems: RowProblem[],
  header: string[],
  columns: CsvColumns,
  cell: (source: ColumnSource) => string,
  defaults: DefinitionLookup,
): RowProblem[] {
  return problems.map((problem) => {
    const column = columnsOf(problem.field, header, columns, cell);
    if (problem.field !== 'definition') return { ...problem, column };
    const value = cell('definitionId') || cell('definitionRef');
    if (value === '') return { ...problem, column, value: null, ...('problem' in defaults ? { code: 'missing' } : {}) };
    return { ...problem, column, value: value.includes('@') ? null : value.slice(0, 80) };
  });
}

function prepareRow(
  ctx: IngestContext,
  header: string[],
  cells: string[],
  columns: CsvColumns,
  defaults: DefinitionLookup,
  options: RowOptions,
  shown: RowShown[],
  correctedName: string | undefined,
): PreparedEntry {
  if (cells.length !== header.length) {
    shown.push(NOTHING_SHOWN);
    return {
      kind: 'error',
      message: `the row has ${cells.length} cells but the header has ${header.length} columns`,
      completionKey: null,
      problems: [{ field: 'row', code: 'cell_count', value: String(cells.length), column: null }],
    };
  }
  const cell = (source: ColumnSource) => cellOf(cells, columns[source]);
  const lookup = rowLookup(ctx, cell('definitionId'), cell('definitionRef'), defaults);
  const fields: CompletionFields = {
    recipientEmail: cell('recipientEmail'),
    recipientName: correctedName ?? composeName(cell),
    completionKey: cell('completionKey') || learnerKey(cell('learnerRef'), lookup),
    issuedOn: cell('issuedOn'),
    evidenceUrl: cell('evidenceUrl'),
    notify: cell('notify'),
    language: cell('language'),
  };
  shown.push(shownOf(fields, lookup, options));
  const entry = prepareCompletion(ctx, fields, lookup, { dateField: 'issuedOn', ...options });
  if (entry.kind !== 'error' || !entry.problems) return entry;
  return { ...entry, problems: locatedProblems(entry.problems, header, columns, cell, defaults) };
}

/** CSV import: parse, map columns, validate every row, then issue (or preview) in batches. */
export function createCsvImportService(
  core: Pick<Core, 'clock'>,
  deps: IngestContextDeps & { runner: Pick<ImportRunner, 'run'> },
) {
  return {
    /**
     * Each row is validated (and its email hashed) as soon as it is parsed, and only the prepared
     * entry and its line number are kept: a 10 MiB file is never held as parsed cells as well.
     */
    async import(issuerId: string, actor: string, body: ImportCsvBody): Promise<ImportReport> {
      const ctx = await loadIngestContext(core, deps, issuerId);
      const defaults = defaultsLookup(ctx, body.defaults);
      const dates = await dateFormatOf(body.csv, body.mapping);
      const rowOptions: RowOptions = {
        dateFormat: dates.used ?? undefined,
        ambiguousDates: dates.detection.ambiguous,
        notify: await deps.notifications.wanted(issuerId, body.notify),
      };
      const dryRun = body.dryRun === true;
      let header: string[] = [];
      let columns: CsvColumns = {};
      const entries: PreparedEntry[] = [];
      const lines: number[] = [];
      // What each row shows (its name, definition, date), in the preview and the import's result alike.
      const shown: RowShown[] = [];
      const corrected = new Map(body.nameCorrections?.map((fix) => [fix.rowNum, fix.recipientName.trim()]));
      await parseCsv(body.csv, {
        header(cells) {
          header = cells;
          columns = resolveColumns(cells, body.mapping);
        },
        row(cells, line) {
          lines.push(line);
          entries.push(prepareRow(ctx, header, cells, columns, defaults, rowOptions, shown, corrected.get(line)));
        },
      });
      const lineOf = (index: number) => lines[index] as number;
      const filename = body.filename ?? null;
      // A roster row for a recipient who already holds the definition issues nothing, even with its
      // own completion key (issue 39 §2; docs/decisions.md).
      const result = await deps.runner.run(
        issuerId,
        { actor, source: 'csv', filename, dryRun, heldWithOwnKey: true, label: (index) => `row ${lineOf(index)}` },
        entries,
      );
      return {
        batchId: result.batchId,
        source: 'csv',
        filename,
        total: result.total,
        issued: result.issued,
        skipped: result.skipped,
        errored: result.errored,
        dryRun,
        columns: describeColumns(header, columns),
        dateFormat: { used: dates.used, ...dates.detection },
        rows: result.entries.map((entry, index) => ({
          rowNum: lineOf(index),
          outcome: entry.outcome,
          ...(entry.preview === undefined ? {} : { preview: entry.preview }),
          completionKey: entry.completionKey,
          credentialId: entry.credentialId,
          message: entry.message,
          ...(entry.notification ? { notification: entry.notification } : {}),
          ...(entry.problems ? { problems: entry.problems } : {}),
          ...(entry.duplicateOf === undefined ? {} : { duplicateOf: lineOf(entry.duplicateOf) }),
          ...(entry.skippedFor ? { skippedFor: entry.skippedFor } : {}),
          ...shownIn(shown[index] as RowShown, dryRun),
        })),
      };
    },
  };
}

export type CsvImportService = ReturnType<typeof createCsvImportService>;
