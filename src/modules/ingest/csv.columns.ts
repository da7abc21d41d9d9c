import { errors } from '../../core/errors.js';

export const CSV_FIELDS = [
  'recipientEmail',
  'recipientName',
  'completionKey',
  'definitionId',
  'definitionRef',
  'issuedOn',
  'evidenceUrl',
] as const;
export type CsvField = (typeof CSV_FIELDS)[number];

/** Header names recognised per field (design.md §4 CSV import), besides the field name itself. */
const ALIASES: Record<CsvField, string[]> = {
  recipientEmail: ['email', 'recipient_email', 'recipient email'],
  recipientName: ['name', 'recipient_name', 'full name'],
  completionKey: ['completion_key', 'key'],
  definitionId: ['definition_id'],
  definitionRef: ['definition', 'definition_ref', 'badge', 'course'],
  issuedOn: ['issued_on', 'issue_date', 'completed_at', 'date'],
  evidenceUrl: ['evidence_url', 'evidence'],
};

const normalise = (name: string) => name.trim().toLowerCase();

const NAMES = new Map<string, CsvField>(
  CSV_FIELDS.flatMap((field) => [field.toLowerCase(), ...ALIASES[field]].map((name) => [name, field] as const)),
);

/** Column index per field; a field without a column is absent. */
export type CsvColumns = Partial<Record<CsvField, number>>;

/**
 * Finds each field's column: `mapping` names a header for a field (case-insensitive, trimmed) and
 * then only that column gives the field; otherwise the field name and its aliases are recognised.
 * Two columns giving one field, a mapped header that is missing, or no email column: 422.
 */
export function resolveColumns(header: string[], mapping: Partial<Record<CsvField, string>> = {}): CsvColumns {
  const names = header.map(normalise);
  const columns: CsvColumns = {};
  const mapped = new Set<number>();
  for (const field of CSV_FIELDS) {
    const wanted = mapping[field];
    if (wanted === undefined) continue;
    const index = names.indexOf(normalise(wanted));
    if (index < 0) {
      throw errors.invalidCsv(`mapping.${field} names the column "${wanted}", which the header does not have.`);
    }
    columns[field] = index;
    mapped.add(index);
  }
  names.forEach((name, index) => {
    const field = NAMES.get(name);
    if (field === undefined || mapping[field] !== undefined || mapped.has(index)) return;
    const taken = columns[field];
    if (taken !== undefined) {
      throw errors.invalidCsv(
        `The columns "${header[taken]?.trim()}" and "${header[index]?.trim()}" both give ${field}; choose one with mapping.${field}.`,
      );
    }
    columns[field] = index;
  });
  if (columns.recipientEmail === undefined) {
    throw errors.invalidCsv(
      'The CSV header has no email column: name one "email", "recipient_email" or "recipient email", or set mapping.recipientEmail.',
    );
  }
  return columns;
}
