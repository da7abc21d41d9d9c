import { Type } from '@sinclair/typebox';

/**
 * Completion dates as senders write them (design.md §4 Connectors, Dates). Day-first and month-first
 * dates look alike, so they are read only when the caller names the format.
 */
export const DATE_FORMATS = ['DD/MM/YYYY', 'DDMMYYYY', 'MM/DD/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export const DateFormatSchema = Type.Unsafe<DateFormat>({
  type: 'string',
  enum: [...DATE_FORMATS],
  description: 'How to read day/month dates; without it only ISO 8601, YYYY-MM-DD and unix times are read.',
});

/** `iso: null` when the value means "no date"; `ok: false` when it is no date we can read. */
export type DateResult = { ok: true; iso: string | null } | { ok: false };

const NO_DATE: DateResult = { ok: true, iso: null };
const UNREADABLE: DateResult = { ok: false };
/** Below this an all-digit value is unix seconds, above it milliseconds (1e11 s is the year 5138). */
const SECONDS_BELOW = 1e11;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const DAY_MONTH_YEAR = /^(\d{2})\/(\d{2})\/(\d{4})$/;
const DAY_MONTH_YEAR_COMPACT = /^(\d{2})(\d{2})(\d{4})$/;

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

function fromNamedFormat(text: string, format: DateFormat): number | null | undefined {
  const pattern = format === 'DDMMYYYY' ? DAY_MONTH_YEAR_COMPACT : DAY_MONTH_YEAR;
  const m = pattern.exec(text);
  if (!m) return undefined;
  const [first, second, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return format === 'MM/DD/YYYY' ? utc(year, first, second) : utc(year, second, first);
}

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
 * `YYYY-MM-DD HH:mm[:ss]` (UTC), all-digit unix seconds (< 1e11) or milliseconds, and a named
 * day/month format. 0, empty and the `1900-01-01` placeholder mean no date.
 */
export function parseDate(value: unknown, format?: DateFormat): DateResult {
  if (value === null || value === undefined) return NO_DATE;
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value !== 'string') return UNREADABLE;
  const text = value.trim();
  if (text === '' || text === '0' || text.startsWith('1900-01-01')) return NO_DATE;
  if (format !== undefined) {
    const named = fromNamedFormat(text, format);
    if (named !== undefined) return named === null ? UNREADABLE : { ok: true, iso: new Date(named).toISOString() };
  }
  if (/^\d+$/.test(text)) return fromEpoch(Number(text));
  const iso = fromIso(text);
  if (iso === undefined || iso === null) return UNREADABLE;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? UNREADABLE : { ok: true, iso: date.toISOString() };
}

/** True when a value carries no date (missing, empty, 0 or the 1900-01-01 placeholder). */
export function isMissingDate(value: unknown): boolean {
  const result = parseDate(value);
  return result.ok && result.iso === null;
}
