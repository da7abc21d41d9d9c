import { errors } from '../../core/errors.js';

const DAY_MS = 86_400_000;
/** The longest window a report or analytics call may cover (a leap year). */
const MAX_WINDOW_DAYS = 366;
/** Analytics without a `from` looks back this far from `to`. */
const DEFAULT_ANALYTICS_DAYS = 30;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A half-open time window, from <= t < to, as stored-form ISO strings; null = unbounded. */
export interface TimeWindow {
  from: string | null;
  to: string | null;
}

export interface WindowQuery {
  from?: string;
  to?: string;
}

/** The instants a four-digit ISO year holds: beyond them ISO strings gain a sign and stop ordering as text. */
const EARLIEST = Date.parse('0000-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** The stored timestamp form of an instant, held to the years 0000-9999. */
function stored(time: number): string {
  return new Date(Math.min(Math.max(time, EARLIEST), LATEST)).toISOString();
}

/**
 * A query bound in the stored timestamp form, so that windows compare as text against stored ISO
 * columns. A bare date is midnight UTC as `from`, and the end of that whole day as `to`: the
 * window `from=2026-11-01&to=2026-11-30` is all of November. Bounds beyond the years 0000-9999
 * are held to them; a date-time JavaScript cannot represent (a leap second) is a 400.
 */
function bound(value: string, edge: 'from' | 'to'): string {
  const time = DATE_ONLY.test(value)
    ? Date.parse(`${value}T00:00:00.000Z`) + (edge === 'to' ? DAY_MS : 0)
    : Date.parse(value);
  if (Number.isNaN(time)) {
    const message = `\`${edge}\` is not a date-time this service can represent.`;
    throw errors.validation(message, [{ path: `/${edge}`, message, code: 'format' }]);
  }
  return stored(time);
}

function check(window: { from: string; to: string }): void {
  const span = Date.parse(window.to) - Date.parse(window.from);
  if (span < 0) {
    const message = '`from` must not be later than `to`.';
    throw errors.validation(message, [{ path: '/from', message, code: 'window' }]);
  }
  if (span > MAX_WINDOW_DAYS * DAY_MS) {
    const message = `The window may span at most ${MAX_WINDOW_DAYS} days.`;
    throw errors.validation(message, [{ path: '/to', message, code: 'window' }]);
  }
}

/** The issuance report's window: each side absent means unbounded on that side. */
export function reportWindow(query: WindowQuery): TimeWindow {
  const window = {
    from: query.from === undefined ? null : bound(query.from, 'from'),
    to: query.to === undefined ? null : bound(query.to, 'to'),
  };
  if (window.from !== null && window.to !== null) check({ from: window.from, to: window.to });
  return window;
}

/** The analytics window: `to` defaults to now and `from` to 30 days before `to`. */
export function analyticsWindow(query: WindowQuery, now: Date): { from: string; to: string } {
  const to = query.to === undefined ? now.toISOString() : bound(query.to, 'to');
  const from =
    query.from === undefined ? stored(Date.parse(to) - DEFAULT_ANALYTICS_DAYS * DAY_MS) : bound(query.from, 'from');
  check({ from, to });
  return { from, to };
}

/** Every UTC day (YYYY-MM-DD) the window touches, oldest first; none for an empty window. */
export function utcDays(window: { from: string; to: string }): string[] {
  const start = Date.parse(window.from);
  const end = Date.parse(window.to);
  if (end <= start) return [];
  const days: string[] = [];
  const last = new Date(end - 1).toISOString().slice(0, 10);
  for (let day = Math.floor(start / DAY_MS) * DAY_MS; ; day += DAY_MS) {
    const date = new Date(day).toISOString().slice(0, 10);
    days.push(date);
    if (date === last) return days;
  }
}

/** Midnight UTC opening a YYYY-MM-DD day, in the stored timestamp form. */
export function dayStart(day: string): string {
  return `${day}T00:00:00.000Z`;
}

/** Midnight UTC closing a YYYY-MM-DD day (the next day's start). */
export function dayEnd(day: string): string {
  return stored(Date.parse(dayStart(day)) + DAY_MS);
}

/** The UTC day `days` after (or before, when negative) the one holding `iso`. */
export function dayOf(iso: string, days = 0): string {
  return new Date(Date.parse(iso) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The earlier of two stored-form timestamps, or of two days: both order as text. */
export function earlier(a: string, b: string): string {
  return [a, b].sort()[0] as string;
}

/** The later of two stored-form timestamps, or of two days. */
export function later(a: string, b: string): string {
  return [a, b].sort()[1] as string;
}
