import { stringify } from 'csv-stringify/sync';

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** Spreadsheets run a cell starting with one of these as a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Prefixes a would-be formula with `'` so a spreadsheet shows it as text instead of running it. */
export function guardCell(value: string | number): string {
  const text = String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * An RFC 4180 document (CRLF line ends, quotes only where needed) with a header row naming
 * `columns`, one line per record, every cell guarded against formula injection.
 */
export function toCsv<K extends string>(columns: readonly K[], records: readonly Record<K, string | number>[]): string {
  return stringify(
    [columns.map(guardCell), ...records.map((record) => columns.map((column) => guardCell(record[column])))],
    { record_delimiter: 'windows' },
  );
}

/** `Content-Disposition` for a download named `<name>-<UTC day of now>.csv`. */
export function attachment(name: string, now: Date): string {
  return `attachment; filename="${name}-${now.toISOString().slice(0, 10)}.csv"`;
}
