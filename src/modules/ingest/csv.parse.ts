import { setImmediate as nextTurn } from 'node:timers/promises';
import { CsvError, parse } from 'csv-parse';
import { errors } from '../../core/errors.js';

export const MAX_DATA_ROWS = 50_000;
/** Parsed between yields to the event loop: about 1,000 typical rows, a few milliseconds. */
const SLICE_BYTES = 64 * 1024;

export interface CsvRow {
  cells: string[];
  /** Line number where the row starts in the file; the header is line 1. */
  line: number;
}

export interface CsvTable {
  header: string[];
  rows: CsvRow[];
}

const BREAKS = /\r\n|\r|\n/g;
const ANY_BREAK = /[\r\n]/;

/** Lines a record spans: one, plus the line breaks inside its quoted fields (kept in the values). */
function linesOf(record: string[]): number {
  let lines = 1;
  for (const cell of record) if (ANY_BREAK.test(cell)) lines += cell.match(BREAKS)?.length ?? 0;
  return lines;
}

/** A blank line, or a row of only empty or blank cells: skipped, as csv-parse's skip options would. */
function isBlank(record: string[]): boolean {
  for (const cell of record) if (cell.trim() !== '') return false;
  return true;
}

const PARSE_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  INVALID_OPENING_QUOTE: 'a quote appears inside an unquoted field',
  CSV_INVALID_CLOSING_QUOTE: 'text follows a closing quote',
};

/** The parser's own messages quote cell values (possibly emails); ours name only the line. */
function invalidCsvFrom(err: CsvError) {
  const line = (err as CsvError & { lines?: number }).lines;
  const problem = PARSE_PROBLEMS[err.code] ?? 'the text is not valid CSV';
  return errors.invalidCsv(`The CSV cannot be parsed${line ? ` at line ${line}` : ''}: ${problem}.`);
}

/**
 * RFC 4180 parsing (quoted commas, doubled quotes, CRLF or LF or CR, quoted line breaks) with a
 * leading BOM stripped and rows of only empty cells skipped. Ragged rows are kept for the caller to
 * report. The text is fed in slices with a yield between them, so a 10 MiB file never holds the
 * event loop for long. Throws 422 invalid_csv when empty, unparseable or over the row limit.
 */
export async function parseCsv(text: string): Promise<CsvTable> {
  // Every line reaches us, blank ones too, so start lines are counted here: csv-parse's own `info`
  // builds an object per record and counts a CRLF inside a quoted field as two lines.
  const parser = parse({
    bom: true,
    relax_column_count: true,
    record_delimiter: ['\r\n', '\n', '\r'],
  });
  const records: CsvRow[] = [];
  let line = 1;
  let failure: unknown = null;
  parser.on('readable', () => {
    for (let record = parser.read(); record !== null; record = parser.read()) {
      const cells = record as string[];
      if (!isBlank(cells)) records.push({ cells, line });
      line += linesOf(cells);
    }
  });
  parser.on('error', (err) => {
    failure = err;
  });
  const ended = new Promise<void>((resolve) => parser.on('end', resolve));

  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; offset += SLICE_BYTES) {
    parser.write(bytes.subarray(offset, offset + SLICE_BYTES));
    await nextTurn();
    if (failure !== null || records.length > MAX_DATA_ROWS + 1) break;
  }
  if (failure === null && records.length <= MAX_DATA_ROWS + 1) {
    parser.end();
    await Promise.race([ended, new Promise((resolve) => parser.on('error', resolve))]);
  } else {
    parser.destroy();
  }
  if (failure instanceof CsvError) throw invalidCsvFrom(failure);
  if (failure !== null) throw failure;

  const [header, ...rows] = records;
  if (!header) throw errors.invalidCsv('The CSV is empty: it needs a header row naming its columns.');
  if (rows.length > MAX_DATA_ROWS) {
    throw errors.invalidCsv(`The CSV has more than ${MAX_DATA_ROWS} data rows; split it into several imports.`);
  }
  return { header: header.cells, rows };
}
