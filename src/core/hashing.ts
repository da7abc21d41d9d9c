import { hash } from 'node:crypto';

/**
 * One-shot SHA-256 (hex): no Hash object per call, which mattered once a batch import hashed each
 * row four times (recipient, completion key, audit stripe, audit record).
 */
export function sha256Hex(input: string): string {
  return hash('sha256', input, 'hex');
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

/**
 * Canonical JSON (keys in code-unit order, no whitespace, undefined members left out) so a hash over
 * an object is stable. Written as loops over the sorted keys: it runs once per audit record.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    // An undefined element writes nothing between its commas, as Array.prototype.join does.
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (canonicalJson(value[i]) ?? '');
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  // The default sort compares UTF-16 code units, the canonical order.
  const keys = Object.keys(object).sort();
  let out = '{';
  for (const key of keys) {
    const member = object[key];
    if (member === undefined) continue;
    out += `${out === '{' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}
