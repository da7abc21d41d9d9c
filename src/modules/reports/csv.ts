import { stringify } from 'csv-stringify/sync';

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/**
 * Every export starts with the UTF-8 byte order mark: without it Excel opens a CSV in the Windows
 * code page and a registrar's "Zoë" shows as "ZoÃ«" (issue 46). Readers that know UTF-8 skip it
 * (csv-parse with `bom: true`, as the renewals import reads the expiring export back).
 */
export const UTF8_BOM = '\uFEFF';

/**
 * A time as Excel reads it into a date cell: `YYYY-MM-DD HH:MM:SS`, in UTC (an ISO 8601 string
 * with its `T`, milliseconds and `Z` stays text in Excel). Empty for no time.
 */
export function spreadsheetTime(iso: string | null): string {
  return iso === null ? '' : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/**
 * Spreadsheets run a cell starting with one of these as a formula (OWASP "CSV injection"). Checked
 * at the start of every line of a cell (`m`: after each CR or LF too), so a value such as
 * "\n=1+1" cannot smuggle a formula in on its second line.
 */
const FORMULA_START = /^[=+\-@\t\r]/mu;
/**
 * Cells quoted whatever else they hold: csv-stringify quotes the record delimiter (CRLF) but not a
 * lone CR or LF, which a reader would take for the end of the record.
 */
const LINE_BREAK = /[\r\n]/u;

/** Prefixes a would-be formula with `'` so a spreadsheet shows the whole cell as text instead of running it. */
export function guardCell(value: string | number): string {
  const text = String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * An RFC 4180 document after the UTF-8 byte order mark (CRLF line ends; quotes where needed and around every cell with a line
 * break) with a header row naming `columns`, one line per record, every cell guarded against
 * formula injection.
 */
export function toCsv<K extends string>(columns: readonly K[], records: readonly Record<K, string | number>[]): string {
  return (
    UTF8_BOM +
    stringify(
      [columns.map(guardCell), ...records.map((record) => columns.map((column) => guardCell(record[column])))],
      { record_delimiter: 'windows', quoted_match: LINE_BREAK },
    )
  );
}

/** `Content-Disposition` for a download named `<name>-<UTC day of now>.csv`. */
export function attachment(name: string, now: Date): string {
  return `attachment; filename="${name}-${now.toISOString().slice(0, 10)}.csv"`;
}
