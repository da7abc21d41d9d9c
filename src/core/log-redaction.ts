/**
 * What a logged request URL may not show: email addresses, API keys and other credentials. A client
 * may put any of them in a URL (a query parameter no route reads, `?api_key=…` from a careless script,
 * a mistyped path), and the URL is logged for every request before any rate limit, so the redaction
 * must cost time in proportion to the URL's length and nothing more: the URL is split once at its
 * separators and each piece is looked at once. (A single regular expression looking for `x@y`
 * between separators backtracked over every start position: a 16 KB URL blocked the event loop for
 * 0.3 s.)
 */

export const REDACTED = '[redacted]';

/** An API key as the service issues them: `acc_` and 40 URL-safe characters. */
const API_KEY = /acc_[A-Za-z0-9_-]{40}/;

/** Query parameter names (lowercased, letters and digits only) whose values are secrets whatever they look like. */
const SECRET_NAME = /(?:key|token|secret|password|passwd|pwd|signature|auth|authorization|credentials?)$/;

/** Characters of a bearer token, a JWT or a base64 secret. */
const NOT_TOKEN_CHARACTER = /[^A-Za-z0-9._~+/=-]/;

/** A token this long mixing upper case, lower case and digits is random, not a slug or an id. */
const RANDOM_TOKEN_MIN_LENGTH = 32;

function decoded(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A long run of token characters with upper case, lower case and digits: a credential, not a name. */
function looksRandom(text: string): boolean {
  if (text.length < RANDOM_TOKEN_MIN_LENGTH) return false;
  for (const run of text.split(NOT_TOKEN_CHARACTER)) {
    if (run.length >= RANDOM_TOKEN_MIN_LENGTH && /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run)) {
      return true;
    }
  }
  return false;
}

/** Whether one piece of a URL (a path segment, a parameter name or value) must not be logged. */
function sensitive(piece: string): boolean {
  const text = decoded(piece);
  return text.includes('@') || API_KEY.test(text) || looksRandom(text);
}

function secretName(name: string): boolean {
  return SECRET_NAME.test(
    decoded(name)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, ''),
  );
}

function redactPiece(piece: string): string {
  return sensitive(piece) ? REDACTED : piece;
}

/** Path segments whose next segment is a one-time token whatever it looks like (console invites). */
const TOKEN_PARENTS = new Set(['invites', 'invite']);

function redactParameter(pair: string): string {
  const equals = pair.indexOf('=');
  if (equals === -1) return redactPiece(pair);
  const name = pair.slice(0, equals);
  const value = pair.slice(equals + 1);
  return `${redactPiece(name)}=${value === '' ? '' : secretName(name) ? REDACTED : redactPiece(value)}`;
}

/**
 * The URL with every sensitive piece replaced by `[redacted]`: path segments and query parameter
 * names or values that hold an email address (`@`, or `%40`), an API key or a long random token, the
 * segment after `invites`/`invite` (a console invite token, random or not), and
 * the value of any parameter named like a secret (`api_key`, `token`, `key`, `secret`, `password`,
 * `signature`, …). Everything else is logged as it was.
 */
export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  const path = question === -1 ? url : url.slice(0, question);
  const redactedPath = path
    .split('/')
    .map((segment, i, all) => (TOKEN_PARENTS.has(all[i - 1] ?? '') ? REDACTED : redactPiece(segment)))
    .join('/');
  if (question === -1) return redactedPath;
  const query = url.slice(question + 1);
  return `${redactedPath}?${query.split('&').map(redactParameter).join('&')}`;
}

/** An API key anywhere in a log line. */
const API_KEY_ANYWHERE = /acc_[A-Za-z0-9_-]{40}/g;

/**
 * Whether a character can belong to an email address as a log line holds it: not whitespace or a
 * control character, not JSON's quote or escape, not `@`, and not a separator of the text around an
 * address (`,;:<>()[]`) or of a URL (`/?&=#`). Non-ASCII characters can (internationalised addresses).
 */
function addressCharacter(code: number): boolean {
  if (code <= 0x20 || code === 0x7f) return false;
  switch (code) {
    case 0x22: // "
    case 0x5c: // \
    case 0x40: // @
    case 0x2c: // ,
    case 0x3b: // ;
    case 0x3a: // :
    case 0x3c: // <
    case 0x3e: // >
    case 0x28: // (
    case 0x29: // )
    case 0x5b: // [
    case 0x5d: // ]
    case 0x2f: // /
    case 0x3f: // ?
    case 0x26: // &
    case 0x3d: // =
    case 0x23: // #
      return false;
    default:
      return true;
  }
}

/**
 * Where a run of address characters starting at `start` really starts: past the rest of a JSON
 * escape whose backslash stands just before it (`\n`, `\u0001`), so the run and its replacement
 * never take the letters of an escape from its backslash. An even count of backslashes before
 * `start` are escaped backslashes, and the run starts where it is.
 */
function afterEscape(line: string, start: number): number {
  let backslashes = 0;
  while (line.charCodeAt(start - 1 - backslashes) === 0x5c) backslashes++;
  if (backslashes % 2 === 0) return start;
  return line.charCodeAt(start) === 0x75 /* u */ ? start + 5 : start + 1;
}

/**
 * A finished log line with every email address and API key in it replaced by `[redacted]`, in
 * whatever field, message or error it sits. Each `@` with address characters on both sides is taken
 * with the run of them around it; a line without `@` or `acc_` is returned at once. Each character
 * is looked at at most twice (a run ends at the next `@`), so the cost follows the line's length.
 * The replaced run never holds a quote, a backslash or the rest of an escape, so the line stays
 * valid JSON.
 */
export function scrubLogLine(line: string): string {
  const hasAt = line.includes('@');
  if (!hasAt && !line.includes('acc_')) return line;
  let scrubbed = line;
  if (hasAt) {
    const pieces: string[] = [];
    let from = 0;
    for (let at = line.indexOf('@'); at !== -1; at = line.indexOf('@', at + 1)) {
      let start = at;
      while (start > from && addressCharacter(line.charCodeAt(start - 1))) start--;
      start = Math.min(at, afterEscape(line, start));
      let end = at + 1;
      while (end < line.length && addressCharacter(line.charCodeAt(end))) end++;
      if (start === at || end === at + 1) continue;
      pieces.push(line.slice(from, start), REDACTED);
      from = end;
      at = end - 1;
    }
    pieces.push(line.slice(from));
    scrubbed = pieces.join('');
  }
  return scrubbed.replace(API_KEY_ANYWHERE, REDACTED);
}
