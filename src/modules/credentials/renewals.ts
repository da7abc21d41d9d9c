import { CsvError, parse } from 'csv-parse/sync';
import { AppError, errors } from '../../core/errors.js';
import type { CredentialWithSlugs } from './credentials.repository.js';
import { RENEWALS_MAX, type RenewalReport, type RenewalsInput } from './credentials.schemas.js';
import type { IssueOutcome } from './issuance.service.js';

const KEY_HEADERS = new Set(['completionkey', 'completion_key', 'completion key', 'key']);

const EMAIL_HEADERS = new Set(['email', 'recipientemail', 'recipient_email', 'recipient email', 'email address']);

/** A key to renew; `email`, from the CSV's email column, is whom the renewal is told to. */
type Wanted = { row: number; completionKey: string; email?: string };

/** The `'` that `guardCell` (reports/csv.ts) puts before a cell a spreadsheet would run as a formula. */
const FORMULA_GUARD = /^'(?=[=+\-@\t\r])/u;

/** A cell of an exported CSV as it was before the export guarded it, so the export goes back as it is. */
const unguarded = (cell: string) => cell.replace(FORMULA_GUARD, '');

/**
 * A replacement is renewed again only when it falls due: it expires within this many days (the
 * longest window the console offers) and more than half of its validity has passed. A renewal just
 * made is neither, so a CSV sent twice renews nothing twice.
 */
export const RENEW_AGAIN_WITHIN_DAYS = 90;
const DAY_MS = 86_400_000;

function due(credential: CredentialWithSlugs, now: Date): boolean {
  if (credential.expires_on === null) return false;
  const expires = Date.parse(credential.expires_on);
  const issued = Date.parse(credential.issued_on);
  const at = now.getTime();
  return expires - at <= RENEW_AGAIN_WITHIN_DAYS * DAY_MS && at - issued >= (expires - issued) / 2;
}

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
  const emailColumn = header?.findIndex((name) => EMAIL_HEADERS.has(name.toLowerCase())) ?? -1;
  return rows.map((cells, i) => {
    const email = emailColumn < 0 ? '' : (cells[emailColumn] ?? '');
    return { row: i + 2, completionKey: unguarded(cells[column] ?? ''), ...(email ? { email } : {}) };
  });
}

function wantedKeys(input: RenewalsInput): Wanted[] {
  // The schema lets exactly one of the two through.
  if (input.csv !== undefined) return keysFromCsv(input.csv);
  return (input.completionKeys ?? []).map((completionKey, i) => ({ row: i + 1, completionKey }));
}

/**
 * Renewal (issue 39 §5) is a reissue: a fresh credential whose expiry is counted from today by the
 * definition's validity, the replaced one revoked as `reissued` ("Replaced by a newer credential" on
 * its page). A key names the credential it was issued with, so the renewal follows that credential's
 * replacements (`reissued_from`) to the newest: a roster of original keys renews year after year.
 * The newest is renewed when the key names it, or when it falls due (`due`); otherwise it was renewed
 * already and is answered, so a CSV sent twice renews each credential once. A credential revoked for
 * any other reason is not brought back by a renewal: that takes an explicit reissue.
 */
export function createRenewals(deps: {
  findByCompletionKey(issuerId: string, completionKey: string): Promise<CredentialWithSlugs | undefined>;
  latestReplacement(issuerId: string, id: string): Promise<CredentialWithSlugs | undefined>;
  reissue(
    issuerId: string,
    actor: string,
    id: string,
    input: { completionKey?: string; notify?: boolean; recipientEmail?: string },
  ): Promise<IssueOutcome>;
  /** Whether the issuer emails earners by default: a renewal with an address then tells them (issue 46). */
  notifies(issuerId: string): Promise<boolean>;
  reissuedReason: string;
  now(): Date;
}) {
  /** The last of the credential's replacements, each the newest replacement of the one before; or itself. */
  async function newestOf(issuerId: string, credential: CredentialWithSlugs): Promise<CredentialWithSlugs> {
    let newest = credential;
    for (;;) {
      const next = await deps.latestReplacement(issuerId, newest.id);
      if (!next) return newest;
      newest = next;
    }
  }

  async function renewOne(
    issuerId: string,
    actor: string,
    wanted: Wanted,
    notifies: boolean,
  ): Promise<RenewalReport['rows'][number]> {
    const base = { row: wanted.row, completionKey: wanted.completionKey };
    const error = (message: string) => ({ ...base, outcome: 'error' as const, message });
    if (wanted.completionKey === '') return error('The completion key is empty.');
    const named = await deps.findByCompletionKey(issuerId, wanted.completionKey);
    if (!named) return error('No credential has this completion key.');
    const newest = await newestOf(issuerId, named);
    if (newest.revoked_at !== null && newest.revoked_reason !== deps.reissuedReason) {
      return error('The credential is revoked; reissue it if it should be replaced.');
    }
    if (newest !== named && !due(newest, deps.now())) {
      return {
        ...base,
        outcome: 'already_renewed' as const,
        credentialId: newest.id,
        replacedId: newest.reissued_from ?? named.id,
        expiresOn: newest.expires_on,
      };
    }
    try {
      const tell = notifies && wanted.email ? { notify: true, recipientEmail: wanted.email } : {};
      const outcome = await deps.reissue(issuerId, actor, newest.id, tell);
      return {
        ...base,
        outcome: outcome.created ? ('renewed' as const) : ('already_renewed' as const),
        credentialId: outcome.row.id,
        replacedId: newest.id,
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
      const keys = wantedKeys(input);
      const notifies = keys.some((key) => key.email) && (await deps.notifies(issuerId));
      for (const wanted of keys) rows.push(await renewOne(issuerId, actor, wanted, notifies));
      const count = (outcome: string) => rows.filter((r) => r.outcome === outcome).length;
      return { renewed: count('renewed'), alreadyRenewed: count('already_renewed'), errors: count('error'), rows };
    },
  };
}
