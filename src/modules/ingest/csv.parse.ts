import { setImmediate as nextTurn } from 'node:timers/promises';
import { CsvError, parse } from 'csv-parse';
import { errors } from '../../core/errors.js';

export const MAX_DATA_ROWS = 50_000;
/** Parsed (and handed to the sink) between yields to the event loop: about 1,000 typical rows. */
const SLICE_CHARS = 64 * 1024;

/** Where parsed records go: the header first, then each data row as it is read. */
export interface CsvSink {
  header(cells: string[]): void;
  /** `line` is where the row starts in the file; the header is line 1. */
  row(cells: string[], line: number): void;
}

/** A slice of `text` ending before `end`, never between the two halves of a surrogate pair. */
function sliceEnd(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

const BREAKS = /\r\n|\r|\n/g;
const ANY_BREAK = /[\r\n]/;

/** Lines a record spans: one, plus the line breaks inside its quoted fields (kept in the values). */
function linesOf(record: string[]): number {
  let lines = 1;
  for (const cell of record) if (ANY_BREAK.test(cell)) lines += cell.match(BREAKS)?.length ?? 0;
  return lines;
}

/** The separators a roster comes with: Excel writes `;` where the decimal mark is a comma, and tabs. */
const DELIMITERS = [',', ';', '\t'] as const;

/**
 * The separator of a file, read off its header line (outside quotes): the one it has most of,
 * a comma when none or a tie. A header is names only, so a separator there is never data.
 */
export function detectDelimiter(text: string): (typeof DELIMITERS)[number] {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const char of text.slice(0, 64 * 1024)) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best: (typeof DELIMITERS)[number] = ',';
  for (const d of DELIMITERS) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d;
  return best;
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
 * leading BOM stripped and rows of only empty cells skipped. The separator is the header line's:
 * a comma, a semicolon or a tab (detectDelimiter). Ragged rows are kept for the sink to
 * report. The text is fed in slices with a yield between them, so a 10 MiB file never holds the
 * event loop for long, and each record goes to the sink as soon as it is read: the parsed file is
 * never held whole beside the text (design.md §4 CSV import, memory). A sink that throws stops the
 * parse with its error. Throws 422 invalid_csv when empty, unparseable or over the row limit.
 */
export async function parseCsv(text: string, sink: CsvSink): Promise<void> {
  // Every line reaches us, blank ones too, so start lines are counted here: csv-parse's own `info`
  // builds an object per record and counts a CRLF inside a quoted field as two lines.
  const parser = parse({
    bom: true,
    delimiter: detectDelimiter(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text),
    relax_column_count: true,
    record_delimiter: ['\r\n', '\n', '\r'],
  });
  let line = 1;
  let records = 0;
  let failure: unknown = null;
  parser.on('readable', () => {
    for (let record = parser.read(); record !== null && failure === null; record = parser.read()) {
      const cells = record as string[];
      try {
        if (!isBlank(cells)) {
          if (records === 0) sink.header(cells);
          else if (records <= MAX_DATA_ROWS) sink.row(cells, line);
          records++;
        }
      } catch (err) {
        failure = err;
      }
      line += linesOf(cells);
    }
  });
  parser.on('error', (err) => {
    failure ??= err;
  });
  const ended = new Promise<void>((resolve) => parser.on('end', resolve));

  for (let offset = 0; offset < text.length; ) {
    const end = sliceEnd(text, offset + SLICE_CHARS);
    parser.write(text.slice(offset, end));
    offset = end;
    await nextTurn();
    if (failure !== null || records > MAX_DATA_ROWS + 1) break;
  }
  if (failure === null && records <= MAX_DATA_ROWS + 1) {
    parser.end();
    await Promise.race([ended, new Promise((resolve) => parser.on('error', resolve))]);
  } else {
    parser.destroy();
  }
  if (failure instanceof CsvError) throw invalidCsvFrom(failure);
  if (failure !== null) throw failure;
  if (records === 0) throw errors.invalidCsv('The CSV is empty: it needs a header row naming its columns.');
  if (records > MAX_DATA_ROWS + 1) {
    throw errors.invalidCsv(`The CSV has more than ${MAX_DATA_ROWS} data rows; split it into several imports.`);
  }
}
