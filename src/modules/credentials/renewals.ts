import { CsvError, parse } from 'csv-parse/sync';
import { AppError, errors } from '../../core/errors.js';
import type { CredentialWithSlugs } from './credentials.repository.js';
import { RENEWALS_MAX, type RenewalReport, type RenewalsInput } from './credentials.schemas.js';
import type { IssueOutcome } from './issuance.service.js';

const KEY_HEADERS = new Set(['completionkey', 'completion_key', 'completion key', 'key']);

type Wanted = { row: number; completionKey: string };

/** The completion keys of a renewals CSV, each with its line number (the header is line 1). */
function keysFromCsv(csv: string): Wanted[] {
  let lines: string[][];
  try {
    lines = parse(csv, {
      bom: true,
      record_delimiter: ['\r\n', '\n'],
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    });
  } catch (err) {
    if (err instanceof CsvError) throw errors.invalidCsv(`The CSV cannot be read: ${err.message}`);
    throw err;
  }
  const [header, ...rows] = lines;
  const column = header?.findIndex((name) => KEY_HEADERS.has(name.toLowerCase())) ?? -1;
  if (column < 0) throw errors.invalidCsv('The CSV needs a header with a completionKey column.');
  if (rows.length === 0) throw errors.invalidCsv('The CSV has no lines after its header.');
  if (rows.length > RENEWALS_MAX) throw errors.invalidCsv(`At most ${RENEWALS_MAX} lines per renewal.`);
  return rows.map((cells, i) => ({ row: i + 2, completionKey: cells[column] ?? '' }));
}

function wantedKeys(input: RenewalsInput): Wanted[] {
  // The schema lets exactly one of the two through.
  if (input.csv !== undefined) return keysFromCsv(input.csv);
  return (input.completionKeys ?? []).map((completionKey, i) => ({ row: i + 1, completionKey }));
}

/**
 * Renewal (issue 39 §5) is a reissue: a fresh credential whose expiry is counted from today by the
 * definition's validity, the original revoked as `reissued` ("Replaced by a newer credential" on its
 * page). A credential already replaced answers with its replacement, as a repeated reissue does, so
 * a CSV sent twice renews each credential once. A credential revoked for any other reason is not
 * brought back by a renewal: that takes an explicit reissue.
 */
export function createRenewals(deps: {
  findByCompletionKey(issuerId: string, completionKey: string): Promise<CredentialWithSlugs | undefined>;
  reissue(issuerId: string, actor: string, id: string, input: { completionKey?: string }): Promise<IssueOutcome>;
  reissuedReason: string;
}) {
  async function renewOne(issuerId: string, actor: string, wanted: Wanted): Promise<RenewalReport['rows'][number]> {
    const base = { row: wanted.row, completionKey: wanted.completionKey };
    const error = (message: string) => ({ ...base, outcome: 'error' as const, message });
    if (wanted.completionKey === '') return error('The completion key is empty.');
    const original = await deps.findByCompletionKey(issuerId, wanted.completionKey);
    if (!original) return error('No credential has this completion key.');
    if (original.revoked_at !== null && original.revoked_reason !== deps.reissuedReason) {
      return error('The credential is revoked; reissue it if it should be replaced.');
    }
    try {
      const outcome = await deps.reissue(issuerId, actor, original.id, {});
      return {
        ...base,
        outcome: outcome.created ? ('renewed' as const) : ('already_renewed' as const),
        credentialId: outcome.row.id,
        replacedId: original.id,
        expiresOn: outcome.row.expires_on,
      };
    } catch (err) {
      if (err instanceof AppError && err.statusCode < 500) return error(`${err.code}: ${err.message}`);
      throw err;
    }
  }

  return {
    async renew(issuerId: string, actor: string, input: RenewalsInput): Promise<RenewalReport> {
      const rows: RenewalReport['rows'] = [];
      for (const wanted of wantedKeys(input)) rows.push(await renewOne(issuerId, actor, wanted));
      const count = (outcome: string) => rows.filter((r) => r.outcome === outcome).length;
      return { renewed: count('renewed'), alreadyRenewed: count('already_renewed'), errors: count('error'), rows };
    },
  };
}
