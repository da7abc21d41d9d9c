import { EMAIL_PATTERN } from '../../core/schemas.js';

/** RFC 5321 §4.5.3.1: a path is at most 256 octets with its brackets, so an address at most 254. */
export const STAFF_EMAIL_MAX = 254;
/** RFC 5321 §4.5.3.1.1: a local part is at most 64 octets. */
export const STAFF_EMAIL_LOCAL_MAX = 64;

const ADDRESS = new RegExp(EMAIL_PATTERN);

/**
 * A staff email as the console stores and compares it, whatever path it came in by (an invite, the
 * CLI, a password sign-in, a sign-in through the issuer's provider), or null when it is refused:
 * trimmed, the `Email` schema's syntax (ASCII atext, a dotted domain: no second `@`, no control
 * character, no space), at most 254 characters with a local part of at most 64, and only ASCII
 * letters folded to lower case. `toLowerCase` would fold other letters onto ASCII ones (the Kelvin
 * sign U+212A becomes `k`), so a provider's `\u212Aate@…` would be the account `kate@…`; nothing
 * outside ASCII gets this far anyway.
 */
export function staffEmail(raw: string): string | null {
  const address = raw.trim();
  if (address.length > STAFF_EMAIL_MAX || !ADDRESS.test(address)) return null;
  if (address.lastIndexOf('@') > STAFF_EMAIL_LOCAL_MAX) return null;
  return address.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}
