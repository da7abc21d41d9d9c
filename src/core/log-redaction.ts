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

/**
 * Parameter names (lowercased, letters and digits only) whose values are secrets whatever they look
 * like: keys and passwords, and the one-time values of the sign-in and wallet protocols (an OIDC
 * `code` and `state`, OpenID4VCI's `pre-authorized_code` and `tx_code`, a PKCE `code_challenge`, a
 * `nonce`, a DIDAuth `challenge`). Redaction goes by the name, never by the value's shape: a
 * lower-case code or a six-digit `tx_code` looks like anything else (issue 48 §7).
 */
const SECRET_NAME =
  /(?:key|token|secret|password|passwd|pwd|signature|auth|authorization|credentials?|code|state|challenge|nonce)$/;

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

/**
 * Path segments whose next segment is a token whatever it looks like: console invites, and the
 * earner's certificate link (`/certificate/<token>`, src/modules/certificates/certificates.links.ts).
 */
const TOKEN_PARENTS = new Set(['invites', 'invite', 'certificate']);

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

/**
 * A JSON escape as one token (so a match never starts inside one), or an API key: the keys are
 * replaced, the escapes written back as they were. Run over the text of a JSON line, a bare
 * `acc_…` expression matched from the last hex digit of `\u001a` on and broke the escape.
 */
const ESCAPE_OR_API_KEY = /\\(?:u[0-9a-fA-F]{4}|.)|acc_[A-Za-z0-9_-]{40}/gs;

/** Where an address's `@` may stand in a line: as itself, or percent-encoded in a quoted URL. */
const AT_SIGN = /@|%40/g;

/** The longest local part (RFC 5321), and so how far back a quoted one is looked for. */
const MAX_LOCAL_PART = 64;

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

/** Whether the character at `index` is escaped: an odd run of backslashes stands before it. */
function escaped(line: string, index: number): boolean {
  let backslashes = 0;
  while (line.charCodeAt(index - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * Where a run of address characters starting at `start` really starts: past the rest of a JSON
 * escape whose backslash stands just before it (`\n`, `\u0001`), so the run and its replacement
 * never take the letters of an escape from its backslash.
 */
function afterEscape(line: string, start: number): number {
  if (!escaped(line, start)) return start;
  return line.charCodeAt(start) === 0x75 /* u */ ? start + 5 : start + 1;
}

/**
 * Where a quoted local part ending just before the `@` at `at` starts (`"john doe"@…`, written
 * `\"john doe\"@…` in a JSON line): at the backslash of its escaped opening quote, no further back
 * than `from` or MAX_LOCAL_PART characters. `at` when there is none.
 */
function quotedLocalPartStart(line: string, at: number, from: number): number {
  if (line.charCodeAt(at - 1) !== 0x22 || !escaped(line, at - 1)) return at;
  const limit = Math.max(from + 1, at - 2 - MAX_LOCAL_PART);
  for (let i = at - 3; i >= limit; i--) {
    if (line.charCodeAt(i) !== 0x22) continue;
    return escaped(line, i) ? i - 1 : at;
  }
  return at;
}

/** Where an address literal starting at `after` ends (`user@[192.0.2.1]`, `[IPv6:…]`); `after` when there is none. */
function addressLiteralEnd(line: string, after: number): number {
  if (line.charCodeAt(after) !== 0x5b /* [ */) return after;
  const limit = Math.min(line.length, after + MAX_LOCAL_PART);
  for (let i = after + 1; i < limit; i++) {
    const code = line.charCodeAt(i);
    if (code === 0x5d /* ] */) return i + 1;
    if (code <= 0x20 || code === 0x22 || code === 0x5c || code === 0x40) return after;
  }
  return after;
}

/**
 * A `name=value` pair (a query string or a form body written into a message) or a JSON member
 * `"name":"value"` (also inside an escaped JSON string, `\"name\":\"value\"`): the name, then
 * the value up to the next separator (`&`, `?`, `=`), quote, backslash or space, so a pair inside
 * another member's value (`"msg":"…?code=…"`) is still found. Names are at most 64 characters,
 * so each position is looked at a bounded number of times.
 */
const NAMED_VALUE = /([A-Za-z0-9_.-]{1,64})(=|\\?"\s*:\s*\\?")([^&"\\\s?=]+)/g;

/** The line with the value of every parameter or member named like a secret (SECRET_NAME) redacted. */
function redactNamedValues(line: string): string {
  return line.replace(NAMED_VALUE, (whole, name: string, separator: string, value: string) =>
    value === REDACTED || !secretName(name) ? whole : `${name}${separator}${REDACTED}`,
  );
}

/**
 * A finished log line with every email address and API key in it replaced by `[redacted]`, in
 * whatever field, message or error it sits, and every value named like a secret too
 * (`redactNamedValues`: `tx_code=…`, `"code":"…"`). Each `@` (or `%40`) with an address on both sides is
 * taken with the run of address characters around it, a quoted local part or an address literal
 * included; a line holding none of `@`, `%40` and `acc_` is returned at once. Each character is
 * looked at a bounded number of times (a run ends at the next `@`; quoted parts and literals are
 * looked for at most MAX_LOCAL_PART characters away), so the cost follows the line's length. The
 * replaced text never holds an unescaped quote nor part of an escape, so the line stays valid JSON.
 */
export function scrubLogLine(raw: string): string {
  const line = redactNamedValues(raw);
  const hasAt = line.includes('@') || line.includes('%40');
  const hasKey = line.includes('acc_');
  if (!hasAt && !hasKey) return line;
  let scrubbed = line;
  if (hasAt) {
    const pieces: string[] = [];
    let from = 0;
    AT_SIGN.lastIndex = 0;
    for (let sign = AT_SIGN.exec(line); sign !== null; sign = AT_SIGN.exec(line)) {
      const at = sign.index;
      const after = at + sign[0].length;
      let start = at;
      while (start > from && addressCharacter(line.charCodeAt(start - 1))) start--;
      start = Math.min(at, afterEscape(line, start));
      if (start === at) start = quotedLocalPartStart(line, at, from);
      let end = after;
      while (end < line.length && addressCharacter(line.charCodeAt(end))) end++;
      if (end === after) end = addressLiteralEnd(line, after);
      if (start === at || end === after) continue;
      pieces.push(line.slice(from, start), REDACTED);
      from = end;
      AT_SIGN.lastIndex = end;
    }
    pieces.push(line.slice(from));
    scrubbed = pieces.join('');
  }
  if (!hasKey) return scrubbed;
  return scrubbed.replace(ESCAPE_OR_API_KEY, (token) => (token.charCodeAt(0) === 0x5c ? token : REDACTED));
}
