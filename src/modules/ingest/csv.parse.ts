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

interface ParserOutput {
  record: string[];
  info: { lines: number };
}

const BREAKS = /\r\n|\r|\n/g;
const CRLF = /\r\n/g;
const ANY_BREAK = /[\r\n]/;

/**
 * Start lines of records. csv-parse's `info.lines` is the line a record ends on, but it counts a
 * CRLF inside a quoted field as two lines. Line breaks inside a record can only sit in quoted
 * fields, whose values keep them as written, so the start line is the end line, less the CRLFs
 * over-counted so far, less the breaks in the record's cells. (Reading the cells, not the parser's
 * `raw` text, spares a copy of every record's text.)
 */
function lineCounter() {
  let overCounted = 0;
  return (output: ParserOutput): number => {
    let breaks = 0;
    for (const cell of output.record) {
      if (!ANY_BREAK.test(cell)) continue;
      overCounted += cell.match(CRLF)?.length ?? 0;
      breaks += cell.match(BREAKS)?.length ?? 0;
    }
    return output.info.lines - overCounted - breaks;
  };
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
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    info: true,
  });
  const records: CsvRow[] = [];
  const startLine = lineCounter();
  let failure: unknown = null;
  parser.on('readable', () => {
    for (let output = parser.read(); output !== null; output = parser.read()) {
      const parsed = output as ParserOutput;
      records.push({ cells: parsed.record, line: startLine(parsed) });
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
