import { createHash } from 'node:crypto';

export function sha256Hex(input: string): string {
  return createHash('sha256').update(input, 'utf8').digest('hex');
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The recipient identity stored and published for an email: sha256(normalised email + issuer salt),
 * hex. Open Badges publishes it as `sha256$<hex>` with the salt, which is how the 1EdTech validator
 * checks a claimed email. The raw email goes no further than this function.
 */
export function hashRecipientEmail(email: string, salt: string): string {
  return sha256Hex(normaliseEmail(email) + salt);
}

/** Canonical JSON (sorted keys) so a hash over an object is stable. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
