import { Ajv } from 'ajv';
import type { Core } from '../../core/context.js';
import { hashRecipientEmail } from '../../core/hashing.js';
import { canonicalLanguage } from '../../core/language.js';
import { personalDataProblem } from '../../core/personal-data.js';
import { Email, NAME_CONTROL_CHARACTER, WebUrl } from '../../core/schemas.js';
import { addServiceFormats } from '../../core/validation.js';
import { CompletionKey } from '../credentials/credentials.schemas.js';
import { autoCompletionKey } from '../credentials/issuance.batch.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { NotificationService } from '../notifications/notifications.service.js';
import { type DateFormat, type DateResult, parseDate } from './dates.js';
import { createDefinitionResolver, type DefinitionLookup, type DefinitionResolver } from './definition-resolver.js';
import type { PreparedEntry, RowProblem, RowProblemCode } from './import-run.js';

const ajv = addServiceFormats(new Ajv());
/** The very checks the API schemas apply, so a row passes exactly when the same JSON field would. */
const isEmail = ajv.compile(Email);
const isWebUrl = ajv.compile(WebUrl);
const EMAIL_MAX = Email.maxLength ?? 254;
const URL_MAX = WebUrl.maxLength ?? 2048;
const NAME_MAX = 200;
const KEY_MAX = CompletionKey.maxLength ?? 255;

/** What a request knows about the issuer while it prepares many completions. */
export interface IngestContext {
  resolver: DefinitionResolver;
  salt: string;
  now: Date;
}

export type IngestContextDeps = {
  issuers: Pick<IssuerService, 'identity'>;
  definitions: Pick<DefinitionService, 'listRows'>;
  notifications: Pick<NotificationService, 'wanted'>;
};

/** Reads the issuer's salt and definitions once for a whole import or connector call. */
export async function loadIngestContext(
  core: Pick<Core, 'clock'>,
  deps: IngestContextDeps,
  issuerId: string,
): Promise<IngestContext> {
  const [identity, definitions] = await Promise.all([
    deps.issuers.identity(issuerId),
    deps.definitions.listRows(issuerId),
  ]);
  return { resolver: createDefinitionResolver(definitions), salt: identity.salt, now: core.clock.now() };
}

/** One completion as read from a CSV row or connector record: trimmed text, '' when absent. */
export interface CompletionFields {
  recipientEmail: string;
  recipientName: string;
  /** '' means the default `auto:` key. */
  completionKey: string;
  /** Raw date value (text, or a number from JSON). */
  issuedOn: unknown;
  evidenceUrl: string;
  /** The row's own notify choice (yes/no, true/false, 1/0); '' means the run's. */
  notify: string;
  /** The language to issue in (BCP 47); '' means the definition's own. */
  language: string;
}

export interface PrepareOptions {
  /** The name the sender knows the date by (issuedOn in CSV, completedAt in connectors). */
  dateField: string;
  dateFormat?: DateFormat;
  /** The file's day/month dates read both ways (CSV detection): their message asks the user to choose. */
  ambiguousDates?: boolean;
  /** Whether a new credential notifies its earner when the row does not say (the call's, else the issuer's). */
  notify: boolean;
}

const NOTIFY_VALUES = new Map([
  ['yes', true],
  ['y', true],
  ['true', true],
  ['1', true],
  ['no', false],
  ['n', false],
  ['false', false],
  ['0', false],
]);

/** A row's notify choice: its own when given, else the run's; undefined when unreadable. */
function notifyChoice(cell: string, fallback: boolean): boolean | undefined {
  if (cell === '') return fallback;
  return NOTIFY_VALUES.get(cell.toLowerCase());
}

/** A problem of a field: the API's message, and what a report's problems list says of it. */
interface FieldProblem {
  message: string;
  code: RowProblemCode;
}

function emailProblem(email: string): FieldProblem | null {
  if (email === '') return { message: 'recipientEmail is missing', code: 'missing' };
  // Length first: a megabyte-long cell never reaches the format's regular expression.
  if (email.length > EMAIL_MAX || !isEmail(email))
    return { message: 'recipientEmail is not a valid email address', code: 'invalid_email' };
  return null;
}

/** The longest value a report's problem quotes; a longer cell is cut with an ellipsis. */
const QUOTED_MAX = 80;

/**
 * The cell a problem quotes, so the preview can show what is wrong: cut to QUOTED_MAX characters.
 * Nothing of an address is quoted but its domain ("…@school.example", where typos usually are): an
 * invalid email keeps no local part, and any other field holding an address quotes nothing. Reports
 * answer the caller and are never stored with their problems (docs/decisions.md).
 */
function quotedValue(field: string, value: unknown): string | null {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  if (text === '') return null;
  const at = text.lastIndexOf('@');
  if (at !== -1 && field !== 'recipientEmail') return null;
  const quoted = at === -1 ? text : `…${text.slice(at)}`;
  return quoted.length > QUOTED_MAX ? `${quoted.slice(0, QUOTED_MAX)}…` : quoted;
}

/** A date cell as a message may quote it: short, and never anything shaped like an email address. */
function quotedDate(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : String(value);
  return text.length <= 40 && !text.includes('@') ? ` ${text}` : '';
}

/** The order a day/month date was read in, for its message ("" for other dates). */
function dayMonthOrder(value: unknown, format: DateFormat | undefined): string {
  const dayMonth = typeof value === 'string' && /^\s*\d{1,2}[/.-]\d{1,2}[/.-]\d{4}\s*$/.test(value);
  return dayMonth && format !== undefined ? ` (read as ${format})` : '';
}

/** What is wrong with a date and how to fix it ("date 31/02/2026 is not a day"). */
function dateProblem(value: unknown, result: DateResult, now: Date, options: PrepareOptions): FieldProblem | null {
  const field = options.dateField;
  if (!result.ok) {
    const shown = quotedDate(value);
    switch (result.problem) {
      case 'not_a_day':
        return {
          message: `${field}: date${shown} is not a day; correct the day or the month${dayMonthOrder(value, options.dateFormat)}`,
          code: 'not_a_day',
        };
      case 'needs_format':
        return {
          message: options.ambiguousDates
            ? `${field}: date${shown} could be day/month or month/day; choose the date format (mapping.dateFormat DD/MM/YYYY or MM/DD/YYYY)`
            : `${field}: date${shown} is day/month or month/day; name the order with mapping.dateFormat (DD/MM/YYYY or MM/DD/YYYY)`,
          code: 'date_order',
        };
      case 'unreadable': {
        const named = options.dateFormat ?? 'DD/MM/YYYY only when mapping.dateFormat names it';
        return {
          message: `${field} is not a date we can read (ISO 8601, YYYY-MM-DD, D Month YYYY, unix time, ${named}): write it like 2026-02-28 or 28 February 2026`,
          code: 'unreadable_date',
        };
      }
    }
  }
  if (result.iso !== null && Date.parse(result.iso) > now.getTime())
    return { message: `${field} may not be in the future`, code: 'future_date' };
  return null;
}

/**
 * Validates a completion and turns it into a batch item, or an error entry listing every problem
 * (the API's message, and each problem with the value quoted as quotedValue allows).
 * The email is hashed here; it goes on, in memory only, just when the earner is to be notified, and
 * no message ever quotes it.
 */
export function prepareCompletion(
  ctx: IngestContext,
  fields: CompletionFields,
  lookup: DefinitionLookup,
  options: PrepareOptions,
): PreparedEntry {
  const date = parseDate(fields.issuedOn, options.dateFormat);
  const notify = notifyChoice(fields.notify, options.notify);
  const keyProblem = personalDataProblem('completionKey', fields.completionKey);
  const language = fields.language === '' ? null : canonicalLanguage(fields.language);
  const found: [field: string, value: unknown, problem: FieldProblem | null][] = [
    ['recipientEmail', fields.recipientEmail, emailProblem(fields.recipientEmail)],
    [
      'definition',
      null,
      'problem' in lookup
        ? { message: lookup.problem, code: lookup.ambiguous ? 'ambiguous_definition' : 'unknown_definition' }
        : null,
    ],
    [options.dateField, fields.issuedOn, dateProblem(fields.issuedOn, date, ctx.now, options)],
    [
      'evidenceUrl',
      fields.evidenceUrl,
      fields.evidenceUrl !== '' && (fields.evidenceUrl.length > URL_MAX || !isWebUrl(fields.evidenceUrl))
        ? { message: 'evidenceUrl is not a valid http(s) URL', code: 'invalid_url' }
        : null,
    ],
    [
      'recipientName',
      fields.recipientName,
      fields.recipientName.length > NAME_MAX
        ? { message: `recipientName is longer than ${NAME_MAX} characters`, code: 'too_long' }
        : null,
    ],
    [
      'recipientName',
      fields.recipientName,
      NAME_CONTROL_CHARACTER.test(fields.recipientName)
        ? {
            message:
              'recipientName may not contain control characters (a line break or a tab): write the name on one line',
            code: 'line_break',
          }
        : null,
    ],
    [
      'completionKey',
      fields.completionKey,
      fields.completionKey.length > KEY_MAX
        ? { message: `completionKey is longer than ${KEY_MAX} characters`, code: 'too_long' }
        : null,
    ],
    ['completionKey', null, keyProblem === null ? null : { message: keyProblem, code: 'contains_email' }],
    [
      'notify',
      fields.notify,
      notify === undefined
        ? { message: 'notify is not one of yes, no, true, false, 1, 0', code: 'invalid_notify' }
        : null,
    ],
    [
      'language',
      fields.language,
      fields.language !== '' && language === undefined
        ? {
            message:
              'language is not a BCP 47 language tag of a language and an optional script and region, such as fr, de-CH or zh-Hant-TW',
            code: 'invalid_language',
          }
        : null,
    ],
  ];
  // A key holding an email address is never echoed in the report.
  const givenKey =
    fields.completionKey === '' || fields.completionKey.length > KEY_MAX || keyProblem !== null
      ? null
      : fields.completionKey;
  // The last two tests only narrow the types: each of them has already added a problem.
  if (found.some(([, , problem]) => problem !== null) || !date.ok || 'problem' in lookup) {
    const problems: RowProblem[] = [];
    const messages: string[] = [];
    for (const [field, value, problem] of found) {
      if (problem === null) continue;
      messages.push(problem.message);
      problems.push({ field, code: problem.code, value: quotedValue(field, value) });
    }
    return { kind: 'error', message: messages.join('; '), completionKey: givenKey, problems };
  }
  const recipientHash = hashRecipientEmail(fields.recipientEmail, ctx.salt);
  return {
    kind: 'issue',
    ownKey: givenKey !== null,
    email: fields.recipientEmail,
    notifyTo: notify === true ? fields.recipientEmail : null,
    item: {
      definition: lookup.definition,
      recipientHash,
      completionKey: givenKey ?? autoCompletionKey(lookup.definition.id, recipientHash),
      recipientName: fields.recipientName === '' ? null : fields.recipientName,
      evidenceUrl: fields.evidenceUrl === '' ? null : fields.evidenceUrl,
      issuedOn: date.iso,
      language: language === undefined || language === lookup.definition.language ? null : language,
    },
  };
}
