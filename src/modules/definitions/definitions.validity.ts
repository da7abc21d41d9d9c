import { addDays } from '../../core/clock.js';
import type { DefinitionRow } from './definitions.repository.js';

/**
 * `iso` plus whole calendar months (UTC), the day kept, or the month's last day when the month is
 * shorter: 31 January plus one month is 28 (or 29) February, as a registrar reads "1 month".
 */
export function addMonths(iso: string, months: number): string {
  const date = new Date(iso);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return date.toISOString();
}

/** When a credential of this definition issued at `issuedOn` expires: null when the definition sets no validity. */
export function expiryFor(
  definition: Pick<DefinitionRow, 'expires_after_days' | 'expires_after_months'>,
  issuedOn: string,
): string | null {
  if (definition.expires_after_months) return addMonths(issuedOn, definition.expires_after_months);
  if (definition.expires_after_days) return addDays(issuedOn, definition.expires_after_days);
  return null;
}
