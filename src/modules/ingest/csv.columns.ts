import { errors } from '../../core/errors.js';

export const CSV_FIELDS = [
  'recipientEmail',
  'recipientName',
  'completionKey',
  'definitionId',
  'definitionRef',
  'issuedOn',
  'evidenceUrl',
  'notify',
] as const;
export type CsvField = (typeof CSV_FIELDS)[number];

/** Columns read besides the fields: a first and a last name compose recipientName. */
type NamePart = 'givenName' | 'familyName';
type ColumnSource = CsvField | NamePart;

/** Header names recognised per field (design.md §4 CSV import), besides the field name itself. */
const ALIASES: Record<ColumnSource, string[]> = {
  recipientEmail: ['email', 'recipient_email', 'recipient email', 'email address', 'email_address', 'e-mail'],
  recipientName: ['name', 'recipient_name', 'full name'],
  completionKey: ['completion_key', 'key'],
  definitionId: ['definition_id'],
  definitionRef: ['definition', 'definition_ref', 'badge', 'course'],
  issuedOn: [
    'issued_on',
    'issue_date',
    'completed_at',
    'date',
    'completed',
    'completion date',
    'completion_date',
    'date completed',
    'date_completed',
    'awarded',
  ],
  evidenceUrl: ['evidence_url', 'evidence'],
  notify: ['notify_earner', 'send_email'],
  givenName: ['first name', 'first_name', 'firstname', 'given name', 'given_name', 'givenname'],
  familyName: ['last name', 'last_name', 'lastname', 'surname', 'family name', 'family_name', 'familyname'],
};

/** A report lists at most this many ignored headers, each cut to HEADER_MAX characters. */
const IGNORED_MAX = 100;
const HEADER_MAX = 200;

const normalise = (name: string) => name.trim().toLowerCase();
const fieldOf = (source: ColumnSource): CsvField =>
  source === 'givenName' || source === 'familyName' ? 'recipientName' : source;

const NAMES = new Map<string, ColumnSource>(
  (Object.keys(ALIASES) as ColumnSource[]).flatMap((source) =>
    [source.toLowerCase(), ...ALIASES[source]].map((name) => [name, source] as const),
  ),
);

/** Column index per field (and name part); a field without a column is absent. */
export type CsvColumns = Partial<Record<ColumnSource, number>>;

/** How the header was read, for the report: which column fed which field, and which fed none. */
export interface ColumnReport {
  recognised: { header: string; field: CsvField }[];
  ignored: string[];
}

/**
 * A header as the report shows it: trimmed and bounded. A headerless file's first row would put its
 * cells here, so anything shaped like an email address is withheld.
 */
function shown(header: string): string {
  const trimmed = header.trim();
  if (trimmed.includes('@')) return '[redacted]';
  return trimmed.length > HEADER_MAX ? `${trimmed.slice(0, HEADER_MAX)}…` : trimmed;
}

/**
 * Finds each field's column: `mapping` names a header for a field (case-insensitive, trimmed) and
 * then only that column gives the field; a field mapped to null is read from no column (the
 * console's "not used"); otherwise the field name and its aliases are recognised. First and last
 * name columns compose recipientName when no column gives it (and not when it is mapped to null).
 * Two columns giving one field, a mapped header that is missing, or no email column: 422.
 */
export function resolveColumns(header: string[], mapping: Partial<Record<CsvField, string | null>> = {}): CsvColumns {
  const names = header.map(normalise);
  const columns: CsvColumns = {};
  const mapped = new Set<number>();
  for (const field of CSV_FIELDS) {
    const wanted = mapping[field];
    if (wanted === undefined || wanted === null) continue;
    const index = names.indexOf(normalise(wanted));
    if (index < 0) {
      throw errors.invalidCsv(`mapping.${field} names the column "${wanted}", which the header does not have.`);
    }
    columns[field] = index;
    mapped.add(index);
  }
  names.forEach((name, index) => {
    const source = NAMES.get(name);
    if (source === undefined || mapped.has(index) || mapping[fieldOf(source)] !== undefined) return;
    const taken = columns[source];
    if (taken !== undefined) {
      throw errors.invalidCsv(
        `The columns "${header[taken]?.trim()}" and "${header[index]?.trim()}" both give ${source}; choose one with mapping.${fieldOf(source)}.`,
      );
    }
    columns[source] = index;
  });
  if (columns.recipientName !== undefined) {
    delete columns.givenName;
    delete columns.familyName;
  }
  if (columns.recipientEmail === undefined) {
    throw errors.invalidCsv(
      'The CSV header has no email column: name one "email", "email address", "recipient_email" or "recipient email", or set mapping.recipientEmail.',
    );
  }
  return columns;
}

/** The report's account of the header: recognised columns in file order, and the rest. */
export function describeColumns(header: string[], columns: CsvColumns): ColumnReport {
  const fields = new Map<number, CsvField>();
  for (const [source, index] of Object.entries(columns) as [ColumnSource, number][]) {
    fields.set(index, fieldOf(source));
  }
  const report: ColumnReport = { recognised: [], ignored: [] };
  header.forEach((name, index) => {
    const field = fields.get(index);
    if (field !== undefined) report.recognised.push({ header: shown(name), field });
    else if (report.ignored.length < IGNORED_MAX) report.ignored.push(shown(name));
  });
  return report;
}
