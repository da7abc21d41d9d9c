import { errors } from './errors.js';

/**
 * An email address as the service's own `email` format reads one (a local part, "@", a domain of
 * one or more labels: `ada@localhost` included), found anywhere in a text: a local-part character
 * right before an "@" and a letter or digit right after it. A looser rule (a dot in the domain)
 * would let addresses the service itself accepts through.
 */
const EMAIL_ADDRESS = /[\p{L}\p{N}.!#$%&'*+/=?^_`{|}~-]@[\p{L}\p{N}]/u;
/** "%40" is an "@" once a URL-encoded key is decoded; NFKC turns "＠" and "﹫" into "@". */
const ENCODED_AT = /%40/giu;

/** True when `text` holds an email address, also written with a fullwidth or URL-encoded "@". */
export function containsEmail(text: string): boolean {
  return EMAIL_ADDRESS.test(text.normalize('NFKC').replace(ENCODED_AT, '@'));
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
