import { errors } from '../../core/errors.js';
import {
  type ColumnMapping,
  type ColumnSource,
  type CsvColumns,
  type CsvField,
  fieldOfSource,
  matchColumns,
} from './csv.aliases.js';

export type { CsvColumns, CsvField };

/** A report lists at most this many ignored headers, each cut to HEADER_MAX characters. */
const IGNORED_MAX = 100;
const HEADER_MAX = 200;

/** How the header was read, for the report: which column fed which field, and which fed none. */
export interface ColumnReport {
  recognised: { header: string; field: CsvField | 'learnerRef' }[];
  ignored: string[];
}

/**
 * A header as the report shows it: trimmed and bounded. A headerless file's first row would put its
 * cells here, so anything shaped like an email address is withheld.
 */
export function shownHeader(header: string): string {
  const trimmed = header.trim();
  if (trimmed.includes('@')) return '[redacted]';
  return trimmed.length > HEADER_MAX ? `${trimmed.slice(0, HEADER_MAX)}…` : trimmed;
}

/**
 * Finds each field's column by the table the console shares (csv.aliases.ts, matchColumns). Two
 * columns giving one field, a mapped header that is missing, or no email column: 422.
 */
export function resolveColumns(header: string[], mapping: ColumnMapping = {}): CsvColumns {
  const found = matchColumns(header, mapping);
  if ('problem' in found) {
    const { problem } = found;
    if (problem.kind === 'missing') {
      throw errors.invalidCsv(
        `mapping.${problem.key} names the column "${problem.header}", which the header does not have.`,
      );
    }
    const key = problem.source === 'preferredName' ? 'givenName' : problem.source;
    throw errors.invalidCsv(
      `The columns "${header[problem.first]?.trim()}" and "${header[problem.second]?.trim()}" both give ${problem.source}; choose one with mapping.${key}.`,
    );
  }
  if (found.columns.recipientEmail === undefined) {
    throw errors.invalidCsv(
      'The CSV header has no email column: name one "email", "email address", "recipient_email" or "recipient email", or set mapping.recipientEmail.',
    );
  }
  return found.columns;
}

/** The report's account of the header: recognised columns in file order, and the rest. */
export function describeColumns(header: string[], columns: CsvColumns): ColumnReport {
  const fields = new Map<number, CsvField | 'learnerRef'>();
  for (const [source, index] of Object.entries(columns) as [ColumnSource, number][]) {
    fields.set(index, fieldOfSource(source));
  }
  const report: ColumnReport = { recognised: [], ignored: [] };
  header.forEach((name, index) => {
    const field = fields.get(index);
    if (field !== undefined) report.recognised.push({ header: shownHeader(name), field });
    else if (report.ignored.length < IGNORED_MAX) report.ignored.push(shownHeader(name));
  });
  return report;
}
