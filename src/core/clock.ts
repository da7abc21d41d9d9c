import { randomBytes, randomUUID } from 'node:crypto';

/** Time source; tests inject a controllable one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Randomness source for identifiers and secrets; tests may inject a deterministic one. */
export interface IdSource {
  uuid(): string;
  /** URL-safe random string of exactly `length` characters. */
  token(length: number): string;
  hex(bytes: number): string;
}

export const randomIds: IdSource = {
  uuid: () => randomUUID(),
  token: (length) =>
    randomBytes(Math.ceil((length * 3) / 4) + 3)
      .toString('base64url')
      .slice(0, length),
  hex: (bytes) => randomBytes(bytes).toString('hex'),
};

/** ISO 8601 UTC with milliseconds: the stored form of every timestamp. */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}

export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(iso) + days * 86_400_000).toISOString();
}

/** Calendar month (UTC) used as the quota period, e.g. "2026-11". */
export function quotaPeriod(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function periodStart(period: string): string {
  return `${period}-01T00:00:00.000Z`;
}
