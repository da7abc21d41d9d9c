import { Type } from '@sinclair/typebox';

/**
 * Completion dates as senders write them (design.md §4 Connectors, Dates; issue 39 §2). ISO 8601,
 * `D Month YYYY` and unix times are read whatever the format; day-first and month-first dates look
 * alike, and Excel serial numbers look like unix times, so those are read only in their named format.
 */
export const DATE_FORMATS = [
  'ISO 8601',
  'DD/MM/YYYY',
  'MM/DD/YYYY',
  'D Month YYYY',
  'Excel serial',
  'DDMMYYYY',
] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export const DateFormatSchema = Type.Unsafe<DateFormat>({
  type: 'string',
  enum: [...DATE_FORMATS],
  description:
    'How to read the dates: DD/MM/YYYY and MM/DD/YYYY (also with - or . and one-digit days or months) and Excel serial numbers (days since 1899-12-30) are read only when named; ISO 8601, YYYY-MM-DD, D Month YYYY (5 April 2025, 5 Apr 2025) and unix times are read whatever this says.',
});

/** Why a value is no date: unreadable text, a date that is not a day of the calendar, or day/month without a format. */
export type DateProblem = 'unreadable' | 'not_a_day' | 'needs_format';
/** `iso: null` when the value means "no date"; `ok: false` with the reason when it is no date we can read. */
export type DateResult = { ok: true; iso: string | null } | { ok: false; problem: DateProblem };

const NO_DATE: DateResult = { ok: true, iso: null };
const UNREADABLE: DateResult = { ok: false, problem: 'unreadable' };
const NOT_A_DAY: DateResult = { ok: false, problem: 'not_a_day' };
const NEEDS_FORMAT: DateResult = { ok: false, problem: 'needs_format' };
/** Below this an all-digit value is unix seconds, above it milliseconds (1e11 s is the year 5138). */
const SECONDS_BELOW = 1e11;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const DAY_MONTH_YEAR = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/;
const DAY_MONTH_YEAR_COMPACT = /^(\d{2})(\d{2})(\d{4})$/;
const NAMED_MONTH = /^(\d{1,2})(?:st|nd|rd|th)?[\s-]+([a-z]+)\.?,?[\s-]+(\d{4})$/i;
const EXCEL_SERIAL = /^\d{1,7}(?:\.\d+)?$/;
/** Excel's day 0 (its 1900 system, counting its phantom 29 February 1900): serial 1 is 1900-01-01. */
const EXCEL_EPOCH = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** A month by its English name or its first three letters (`Sept` too); undefined otherwise. */
function monthNumber(name: string): number | undefined {
  const lower = name.toLowerCase();
  const index = MONTHS.findIndex((month) => month === lower || (lower.length >= 3 && month.startsWith(lower)));
  return index < 0 ? undefined : index + 1;
}

function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number | null {
  if (hour > 23 || minute > 59 || second > 59) return null;
  const at = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const date = new Date(at);
  // Date.UTC rolls 2021-02-30 over into March; a real calendar date survives the round trip.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return at;
}

function fromEpoch(value: number): DateResult {
  if (!Number.isFinite(value) || value < 0) return UNREADABLE;
  if (value === 0) return NO_DATE;
  const ms = value < SECONDS_BELOW ? value * 1000 : value;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? UNREADABLE : { ok: true, iso: date.toISOString() };
}

/** A day/month date in the named order: its time, null when it is no day, undefined when not of that shape. */
function fromDayMonth(text: string, format: DateFormat): number | null | undefined {
  if (format === 'DDMMYYYY') {
    const m = DAY_MONTH_YEAR_COMPACT.exec(text);
    return m ? utc(Number(m[3]), Number(m[2]), Number(m[1])) : undefined;
  }
  const m = DAY_MONTH_YEAR.exec(text);
  if (!m) return undefined;
  const [first, second, year] = [Number(m[1]), Number(m[3]), Number(m[4])];
  return format === 'MM/DD/YYYY' ? utc(year, first, second) : utc(year, second, first);
}

function fromNamedMonth(text: string): number | null | undefined {
  const m = NAMED_MONTH.exec(text);
  if (!m) return undefined;
  const month = monthNumber(m[2] as string);
  return month === undefined ? undefined : utc(Number(m[3]), month, Number(m[1]));
}

function fromExcelSerial(text: string): number | null | undefined {
  if (!EXCEL_SERIAL.test(text)) return undefined;
  const serial = Number(text);
  // 1 is 1900-01-01; 2958465 is 9999-12-31, Excel's last day.
  if (serial < 1 || serial >= 2_958_466) return null;
  return EXCEL_EPOCH + Math.round(serial * DAY_MS);
}

const toResult = (at: number | null): DateResult =>
  at === null ? NOT_A_DAY : { ok: true, iso: new Date(at).toISOString() };

function fromIso(text: string): number | null | undefined {
  const day = DATE_ONLY.exec(text);
  if (day) return utc(Number(day[1]), Number(day[2]), Number(day[3]));
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const local = utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), ms);
  if (local === null) return null;
  const zone = m[8]?.toUpperCase() ?? 'Z';
  if (zone === 'Z') return local;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return local - sign * offsetMinutes * 60_000;
}

/**
 * Reads a completion date: ISO 8601 (an offset, else UTC), `YYYY-MM-DD` (midnight UTC),
 * `YYYY-MM-DD HH:mm[:ss]` (UTC), `D Month YYYY`, all-digit unix seconds (< 1e11) or milliseconds,
 * and in their named format day/month dates and Excel serial numbers. 0, empty and the
 * `1900-01-01` placeholder mean no date. A failure says why: `not_a_day` for 31/02/2026 or
 * 2021-02-30, `needs_format` for a day/month date without a day/month format.
 */
export function parseDate(value: unknown, format?: DateFormat): DateResult {
  if (value === null || value === undefined) return NO_DATE;
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value !== 'string') return UNREADABLE;
  const text = value.trim();
  if (text === '' || text === '0' || text.startsWith('1900-01-01')) return NO_DATE;
  if (format === 'Excel serial') {
    const serial = fromExcelSerial(text);
    if (serial !== undefined) return toResult(serial);
  } else if (format === 'DD/MM/YYYY' || format === 'MM/DD/YYYY' || format === 'DDMMYYYY') {
    const named = fromDayMonth(text, format);
    if (named !== undefined) return toResult(named);
  }
  if (/^\d+$/.test(text)) return fromEpoch(Number(text));
  const month = fromNamedMonth(text);
  if (month !== undefined) return toResult(month);
  if (DAY_MONTH_YEAR.test(text)) return NEEDS_FORMAT;
  const iso = fromIso(text);
  if (iso === undefined) return UNREADABLE;
  if (iso === null) return NOT_A_DAY;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? UNREADABLE : { ok: true, iso: date.toISOString() };
}

/**
 * Values without a day/month date after which detection stops: a roster's dates are of one kind,
 * and reading a 50,000-row file twice to the end doubled its parse for nothing.
 */
const DETECT_WITHOUT_DAY_MONTH = 1000;

/** What a file's dates say about their format (see `createDateDetector`). */
export interface DateDetection {
  /** The format the dates show; null when they show none (no dates, or day/month both ways). */
  detected: DateFormat | null;
  /** Every day/month date has day and month ≤ 12 and some differ: they read two ways; the user chooses. */
  ambiguous: boolean;
}

/**
 * Watches a column's values one by one and tells their format: a day/month date with a first part
 * over 12 is DD/MM/YYYY, one with a second part over 12 is MM/DD/YYYY; day/month dates that are
 * all ≤ 12 are ambiguous (unless each reads the same both ways, like 05/05/2025). Without day/month
 * dates: all small whole numbers are Excel serials, else month names or ISO dates name theirs.
 * The first value that shows the day/month order decides it (a later row of the other order is then
 * "not a day"); so do the first 1,000 values without a day/month date.
 */
export function createDateDetector() {
  let dayFirst = false;
  let monthFirst = false;
  let twoWays = false;
  let dayMonth = 0;
  let serials = 0;
  let others = 0;
  let named = 0;
  let iso = 0;
  return {
    /**
     * Takes one value; answers true once more values cannot change the result much: a day/month
     * date has shown its order, or DETECT_WITHOUT_DAY_MONTH values came without any day/month date.
     */
    add(value: string): boolean {
      const text = value.trim();
      if (text === '' || text === '0' || text.startsWith('1900-01-01')) return false;
      const m = DAY_MONTH_YEAR.exec(text);
      if (m) {
        dayMonth++;
        const [first, second] = [Number(m[1]), Number(m[3])];
        if (first > 12) dayFirst = true;
        if (second > 12) monthFirst = true;
        if (first !== second) twoWays = true;
        return dayFirst !== monthFirst;
      }
      // Five-digit numbers: Excel days of 1927 to 2173; unix times of those years have 9 or 10 digits.
      if (/^\d{5}(?:\.\d+)?$/.test(text)) serials++;
      else others++;
      if (fromNamedMonth(text) !== undefined) named++;
      else if (fromIso(text) !== undefined) iso++;
      return dayMonth === 0 && serials + others >= DETECT_WITHOUT_DAY_MONTH;
    },
    result(): DateDetection {
      if (dayMonth > 0) {
        if (dayFirst !== monthFirst) return { detected: dayFirst ? 'DD/MM/YYYY' : 'MM/DD/YYYY', ambiguous: false };
        if (dayFirst) return { detected: null, ambiguous: false };
        return twoWays ? { detected: null, ambiguous: true } : { detected: 'DD/MM/YYYY', ambiguous: false };
      }
      if (serials > 0 && others === 0) return { detected: 'Excel serial', ambiguous: false };
      if (named > 0) return { detected: 'D Month YYYY', ambiguous: false };
      if (iso > 0) return { detected: 'ISO 8601', ambiguous: false };
      return { detected: null, ambiguous: false };
    },
  };
}

/** True when a value carries no date (missing, empty, 0 or the 1900-01-01 placeholder). */
export function isMissingDate(value: unknown): boolean {
  const result = parseDate(value);
  return result.ok && result.iso === null;
}
