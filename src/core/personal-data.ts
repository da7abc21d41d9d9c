import { errors } from './errors.js';

/**
 * An email address as the service's own `email` format reads one (a local part, "@", a domain of
 * one or more labels: `ada@localhost` included, or an address literal: `ada@[127.0.0.1]`), found
 * anywhere in a text: a local-part character right before an "@" and a letter, a digit or "[" right
 * after it. A looser rule (a dot in the domain) would let addresses the service itself accepts through.
 */
const EMAIL_ADDRESS = /[\p{L}\p{N}.!#$%&'*+/=?^_`{|}~-]@[\p{L}\p{N}[]/u;
/** "%40" is an "@" once a URL-encoded key is decoded; NFKC turns "＠" and "﹫" into "@". */
const ENCODED_AT = /%40/giu;
/**
 * What a reader does not see between the characters of an address: format characters (zero-width
 * space and joiners, the soft hyphen, bidi marks), control characters, and combining marks (a mark
 * after the "@", or one ending a local part written in a script with vowel signs).
 */
const UNSEEN = /[\p{Cf}\p{Cc}\p{M}]/gu;

/**
 * True when `text` holds an email address, also written with a fullwidth or URL-encoded "@" or with
 * invisible characters inside it: the text is NFKC-normalised and stripped of UNSEEN before the check.
 */
export function containsEmail(text: string): boolean {
  return EMAIL_ADDRESS.test(text.normalize('NFKC').replace(UNSEEN, '').replace(ENCODED_AT, '@'));
}

/**
 * Why a value kept beyond a GDPR erasure (a completion key, a revocation reason: stored on the
 * credential and in its append-only audit record) is refused, or null when it may be stored. The
 * message names the field and never quotes the value.
 */
export function personalDataProblem(field: string, value: string | null | undefined): string | null {
  if (value === null || value === undefined || !containsEmail(value)) return null;
  return `${field} may not contain an email address: it is kept on the credential and in the audit log after an erasure`;
}

/** Throws a 400 naming the field when it holds an email address. */
export function refuseEmailIn(field: string, value: string | null | undefined): void {
  const problem = personalDataProblem(field, value);
  if (problem) throw errors.validation(`${problem}.`, [{ path: `/${field}`, message: problem, code: 'personalData' }]);
}
