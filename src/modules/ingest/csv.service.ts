import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Core } from '../../core/context.js';
import {
  type CompletionFields,
  type DefinitionLookup,
  type IngestContext,
  type IngestContextDeps,
  loadIngestContext,
  prepareCompletion,
} from './completion-entry.js';
import { type CsvColumns, resolveColumns } from './csv.columns.js';
import { type CsvRow, parseCsv } from './csv.parse.js';
import type { ImportCsvBody, ImportReport } from './csv.schemas.js';
import type { DateFormat } from './dates.js';
import type { ImportRunner, PreparedEntry } from './import-run.js';

/** Rows validated and hashed between yields to the event loop (a few milliseconds' work). */
const PREPARE_SLICE = 1_000;

function defaultsLookup(ctx: IngestContext, defaults: ImportCsvBody['defaults']): DefinitionLookup {
  if (defaults?.definitionId !== undefined) {
    const definition = ctx.resolver.byId(defaults.definitionId);
    return definition ? { definition } : { problem: 'defaults.definitionId does not match a definition' };
  }
  if (defaults?.definitionRef !== undefined) {
    const definition = ctx.resolver.byRef(defaults.definitionRef);
    return definition ? { definition } : { problem: 'defaults.definitionRef matches no definition slug or name' };
  }
  return { problem: 'no definition: add a definitionId or definitionRef column, or send defaults' };
}

/** Row definitionId, else row definitionRef (slug, then name), else the defaults. */
function rowLookup(ctx: IngestContext, id: string, ref: string, defaults: DefinitionLookup): DefinitionLookup {
  if (id !== '') {
    const definition = ctx.resolver.byId(id);
    return definition ? { definition } : { problem: 'definitionId does not match a definition' };
  }
  if (ref !== '') {
    const definition = ctx.resolver.byRef(ref);
    return definition ? { definition } : { problem: 'definitionRef matches no definition slug or name' };
  }
  return defaults;
}

/** A field's trimmed cell, '' when the file has no column for it. */
function cellOf(cells: string[], index: number | undefined): string {
  return index === undefined ? '' : (cells[index] ?? '').trim();
}

function prepareRow(
  ctx: IngestContext,
  width: number,
  row: CsvRow,
  columns: CsvColumns,
  defaults: DefinitionLookup,
  dateFormat: DateFormat | undefined,
): PreparedEntry {
  if (row.cells.length !== width) {
    return {
      kind: 'error',
      message: `the row has ${row.cells.length} cells but the header has ${width} columns`,
      completionKey: null,
    };
  }
  const { cells } = row;
  const fields: CompletionFields = {
    recipientEmail: cellOf(cells, columns.recipientEmail),
    recipientName: cellOf(cells, columns.recipientName),
    completionKey: cellOf(cells, columns.completionKey),
    issuedOn: cellOf(cells, columns.issuedOn),
    evidenceUrl: cellOf(cells, columns.evidenceUrl),
  };
  const lookup = rowLookup(ctx, cellOf(cells, columns.definitionId), cellOf(cells, columns.definitionRef), defaults);
  return prepareCompletion(ctx, fields, lookup, { dateField: 'issuedOn', dateFormat });
}

/** CSV import: parse, map columns, validate every row, then issue (or preview) in batches. */
export function createCsvImportService(
  core: Pick<Core, 'clock'>,
  deps: IngestContextDeps & { runner: Pick<ImportRunner, 'run'> },
) {
  return {
    async import(issuerId: string, actor: string, body: ImportCsvBody): Promise<ImportReport> {
      const table = await parseCsv(body.csv);
      const columns = resolveColumns(table.header, body.mapping);
      const ctx = await loadIngestContext(core, deps, issuerId);
      const defaults = defaultsLookup(ctx, body.defaults);
      const entries: PreparedEntry[] = [];
      for (const [index, row] of table.rows.entries()) {
        if (index > 0 && index % PREPARE_SLICE === 0) await nextTurn();
        entries.push(prepareRow(ctx, table.header.length, row, columns, defaults, body.mapping?.dateFormat));
      }
      const lineOf = (index: number) => (table.rows[index] as CsvRow).line;
      const filename = body.filename ?? null;
      const result = await deps.runner.run(
        issuerId,
        { actor, source: 'csv', filename, dryRun: body.dryRun === true, label: (index) => `row ${lineOf(index)}` },
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
        rows: result.entries.map((entry, index) => ({
          rowNum: lineOf(index),
          outcome: entry.outcome,
          completionKey: entry.completionKey,
          credentialId: entry.credentialId,
          message: entry.message,
        })),
      };
    },
  };
}

export type CsvImportService = ReturnType<typeof createCsvImportService>;
