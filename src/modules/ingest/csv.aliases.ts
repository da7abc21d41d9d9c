/**
 * The one table of CSV header names, read by the server's import (csv.columns.ts) and by the
 * console's column mapping (console/src/pages/issue.tsx), so a roster is read the same way on both
 * sides (issue 46 §2, style.md 2026-12-01 "one rule, one source"). This file imports nothing: the
 * console's bundle takes it as it is, without any server code.
 */

/** The fields a request's `mapping` may name (design.md §4 CSV import), in the order the import reads them. */
export const CSV_FIELDS = [
  'recipientEmail',
  'recipientName',
  'completionKey',
  'definitionId',
  'definitionRef',
  'issuedOn',
  'evidenceUrl',
  'notify',
  'language',
] as const;
export type CsvField = (typeof CSV_FIELDS)[number];

/**
 * Columns read besides the fields, each also a `mapping` key: a given and a family name compose
 * recipientName, a sort name is one cell "Family, Given", and a learner reference (a student
 * number) makes the completion key with the definition when the file has no key column.
 */
export const CSV_PART_KEYS = ['givenName', 'familyName', 'sortName', 'learnerRef'] as const;
export type CsvPartKey = (typeof CSV_PART_KEYS)[number];

/** A preferred name (a "known as") gives the given name only where the file has no given name column. */
export type ColumnSource = CsvField | CsvPartKey | 'preferredName';

/** The columns that make recipientName when no column gives it whole. */
export const NAME_PARTS: readonly ColumnSource[] = ['givenName', 'familyName', 'sortName', 'preferredName'];

/**
 * Header names recognised per source, besides the source's own name. Matching ignores case, spaces,
 * underscores, hyphens and dots (headerKey), so "Email Address", "email_address" and "E-mail" are
 * one name. Names as MIS and spreadsheet exports spell them (English FE colleges' and US SIS'
 * exports, Excel templates).
 */
export const COLUMN_ALIASES: Record<ColumnSource, readonly string[]> = {
  recipientEmail: [
    'email',
    'recipient email',
    'email address',
    'e-mail address',
    'learner email',
    'student email',
    'personal email',
  ],
  recipientName: ['name', 'recipient name', 'full name', 'learner name', 'student name', 'display name'],
  completionKey: ['completion key', 'key'],
  definitionId: ['definition id'],
  definitionRef: [
    'definition',
    'definition ref',
    'badge',
    'course',
    'course code',
    'course name',
    'qualification',
    'qualification code',
  ],
  issuedOn: [
    'issued on',
    'issue date',
    'completed at',
    'date',
    'completed',
    'completion date',
    'date completed',
    'awarded',
    'date awarded',
    'award date',
    'date achieved',
    'achieved',
    'achievement date',
  ],
  evidenceUrl: ['evidence url', 'evidence'],
  notify: ['notify earner', 'send email'],
  language: ['lang', 'locale', 'language code', 'preferred language', 'learner language'],
  givenName: ['first name', 'first', 'given name', 'forename', 'forenames', 'legal forename', 'legal first name'],
  familyName: ['last name', 'last', 'surname', 'family name', 'legal surname', 'legal last name'],
  sortName: [
    'surname, forename',
    'surname, forenames',
    'surname, first name',
    'last name, first name',
    'family name, given name',
  ],
  preferredName: ['preferred name', 'preferred first name', 'preferred forename', 'known as'],
  learnerRef: [
    'learner ref',
    'learner reference',
    'learner id',
    'learner number',
    'student id',
    'student ref',
    'student number',
    'student reference',
    'person code',
    'candidate number',
  ],
};

/** A header as the table compares it: no case, no spaces, underscores, hyphens or dots. */
export function headerKey(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]+/g, '');
}

const SOURCES = new Map<string, ColumnSource>(
  (Object.keys(COLUMN_ALIASES) as ColumnSource[]).flatMap((source) =>
    [source, ...COLUMN_ALIASES[source]].map((name) => [headerKey(name), source] as const),
  ),
);

/** What a header gives by its name alone, if anything. */
export function sourceOfHeader(header: string): ColumnSource | undefined {
  return SOURCES.get(headerKey(header));
}

/** The field a source feeds, as the report names it. */
export function fieldOfSource(source: ColumnSource): CsvField | 'learnerRef' {
  if (source === 'learnerRef') return 'learnerRef';
  return NAME_PARTS.includes(source) ? 'recipientName' : (source as CsvField);
}

/** What a request's `mapping` says of its columns: a header, or null (no column). */
export type ColumnMapping = Partial<Record<CsvField | CsvPartKey, string | null>>;

/** Column index per source; a source without a column is absent. */
export type CsvColumns = Partial<Record<ColumnSource, number>>;

/** Why the header cannot be read as it is. */
export type ColumnProblem =
  | { kind: 'missing'; key: CsvField | CsvPartKey; header: string }
  | { kind: 'twice'; source: ColumnSource; first: number; second: number };

/** The mapping keys that decide the name: once one is given, no alias adds a name column. */
const NAME_KEYS = ['recipientName', 'givenName', 'familyName', 'sortName'] as const;

/**
 * Finds each source's column. A `mapping` key names its column (case- and space-insensitive as
 * headerKey compares) and then only that column gives it; a key mapped to null is read from no
 * column (the console's "not used"); otherwise the table's names are recognised. A mapping that
 * names any name column (recipientName, givenName, familyName or sortName) decides the name
 * alone. The name is then taken from the first of: the whole-name column, the sort name, the given
 * (else preferred) and family names. Returns the columns, or the first problem.
 */
export function matchColumns(
  header: readonly string[],
  mapping: ColumnMapping = {},
): { columns: CsvColumns } | { problem: ColumnProblem } {
  const keys = header.map((name) => headerKey(name.trim()));
  const columns: CsvColumns = {};
  const mapped = new Set<number>();
  for (const key of [...CSV_FIELDS, ...CSV_PART_KEYS]) {
    const wanted = mapping[key];
    if (wanted === undefined || wanted === null) continue;
    const index = keys.indexOf(headerKey(wanted.trim()));
    if (index < 0) return { problem: { kind: 'missing', key, header: wanted } };
    columns[key] = index;
    mapped.add(index);
  }
  const nameMapped = NAME_KEYS.some((key) => mapping[key] !== undefined);
  for (const [index, key] of keys.entries()) {
    const source = SOURCES.get(key);
    if (source === undefined || mapped.has(index)) continue;
    if (
      NAME_PARTS.includes(source) || source === 'recipientName' ? nameMapped : mapping[source as CsvField] !== undefined
    )
      continue;
    const taken = columns[source];
    if (taken !== undefined) return { problem: { kind: 'twice', source, first: taken, second: index } };
    columns[source] = index;
  }
  if (columns.recipientName !== undefined || columns.sortName !== undefined) {
    delete columns.givenName;
    delete columns.familyName;
    if (columns.recipientName !== undefined) delete columns.sortName;
  } else if (columns.givenName === undefined && columns.preferredName !== undefined) {
    columns.givenName = columns.preferredName;
  }
  delete columns.preferredName;
  return { columns };
}

/**
 * A name as a cell or cells give it: the whole-name cell; a sort name "Family, Given" turned round
 * ("Nguyen, Anh" -> "Anh Nguyen"; a cell without a comma as it is); else given + family.
 */
export function composeName(cell: (source: ColumnSource) => string): string {
  const whole = cell('recipientName');
  if (whole !== '') return whole;
  const sorted = cell('sortName');
  if (sorted !== '') {
    const comma = sorted.indexOf(',');
    if (comma < 0) return sorted;
    return [sorted.slice(comma + 1).trim(), sorted.slice(0, comma).trim()].filter((part) => part !== '').join(' ');
  }
  return [cell('givenName'), cell('familyName')].filter((part) => part !== '').join(' ');
}

/**
 * A name that a Windows-1252 (or other single-byte) save has cut: a "?" inside or after letters,
 * where the character the code page lacked was ("Nguy?n", "?uka?"). Names never hold "?".
 */
export function lostCharacters(name: string): boolean {
  return /\p{L}\?|\?\p{L}/u.test(name);
}
