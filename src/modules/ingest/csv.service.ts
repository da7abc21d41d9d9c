import type { Core } from '../../core/context.js';
import {
  type CompletionFields,
  type IngestContext,
  type IngestContextDeps,
  loadIngestContext,
  prepareCompletion,
} from './completion-entry.js';
import { type CsvColumns, describeColumns, resolveColumns } from './csv.columns.js';
import { parseCsv } from './csv.parse.js';
import type { ImportCsvBody, ImportReport } from './csv.schemas.js';
import type { DateFormat } from './dates.js';
import type { DefinitionLookup } from './definition-resolver.js';
import type { ImportRunner, PreparedEntry } from './import-run.js';

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

function prepareRow(
  ctx: IngestContext,
  width: number,
  cells: string[],
  columns: CsvColumns,
  defaults: DefinitionLookup,
  options: { dateFormat: DateFormat | undefined; notify: boolean },
): PreparedEntry {
  if (cells.length !== width) {
    return {
      kind: 'error',
      message: `the row has ${cells.length} cells but the header has ${width} columns`,
      completionKey: null,
    };
  }
  const fields: CompletionFields = {
    recipientEmail: cellOf(cells, columns.recipientEmail),
    recipientName:
      columns.recipientName === undefined
        ? [cellOf(cells, columns.givenName), cellOf(cells, columns.familyName)].filter((part) => part !== '').join(' ')
        : cellOf(cells, columns.recipientName),
    completionKey: cellOf(cells, columns.completionKey),
    issuedOn: cellOf(cells, columns.issuedOn),
    evidenceUrl: cellOf(cells, columns.evidenceUrl),
    notify: cellOf(cells, columns.notify),
  };
  const lookup = rowLookup(ctx, cellOf(cells, columns.definitionId), cellOf(cells, columns.definitionRef), defaults);
  return prepareCompletion(ctx, fields, lookup, { dateField: 'issuedOn', ...options });
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
      const rowOptions = {
        dateFormat: body.mapping?.dateFormat,
        notify: await deps.notifications.wanted(issuerId, body.notify),
      };
      let header: string[] = [];
      let columns: CsvColumns = {};
      const entries: PreparedEntry[] = [];
      const lines: number[] = [];
      await parseCsv(body.csv, {
        header(cells) {
          header = cells;
          columns = resolveColumns(cells, body.mapping);
        },
        row(cells, line) {
          lines.push(line);
          entries.push(prepareRow(ctx, header.length, cells, columns, defaults, rowOptions));
        },
      });
      const lineOf = (index: number) => lines[index] as number;
      const filename = body.filename ?? null;
      const dryRun = body.dryRun === true;
      const result = await deps.runner.run(
        issuerId,
        { actor, source: 'csv', filename, dryRun, label: (index) => `row ${lineOf(index)}` },
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
        rows: result.entries.map((entry, index) => ({
          rowNum: lineOf(index),
          outcome: entry.outcome,
          ...(entry.preview === undefined ? {} : { preview: entry.preview }),
          completionKey: entry.completionKey,
          credentialId: entry.credentialId,
          message: entry.message,
          ...(entry.notification ? { notification: entry.notification } : {}),
        })),
      };
    },
  };
}

export type CsvImportService = ReturnType<typeof createCsvImportService>;
