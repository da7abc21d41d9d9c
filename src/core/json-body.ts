import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from './errors.js';

/*
 * JSON request bodies are read strictly: bytes that are not UTF-8 and an object that names a key
 * twice are refused with a 400, instead of being stored as U+FFFD or silently taking the last value
 * (RFC 8259 §4 leaves duplicate names to the receiver; a client that sends one has a bug, and a
 * proxy or validator in front of us may have read the other value).
 */

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Each string of a JSON text, and the colon after it when it is a key (unrolled, so linear). */
const STRING_TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?/g;

/** How many keys a valid JSON text writes: strings followed by a colon. */
function writtenKeys(text: string): number {
  let count = 0;
  STRING_TOKEN.lastIndex = 0;
  for (let match = STRING_TOKEN.exec(text); match !== null; match = STRING_TOKEN.exec(text)) {
    if (match[1] !== undefined) count++;
  }
  return count;
}

/** How many keys the parsed value (an object or array) holds, over every object at any depth. */
function parsedKeys(value: unknown): number {
  let count = 0;
  const pending: object[] = [value as object];
  while (pending.length > 0) {
    const next = pending.pop() as object;
    const children: unknown[] = Array.isArray(next) ? next : Object.values(next);
    if (!Array.isArray(next)) count += children.length;
    for (const child of children) if (child !== null && typeof child === 'object') pending.push(child);
  }
  return count;
}

/**
 * Whether a JSON text names a key twice in one object. A text with duplicates parses to fewer keys
 * than it writes, so counting both answers without keeping a set of names per object.
 */
export function hasDuplicateKeys(text: string, parsed: unknown): boolean {
  if (parsed === null || typeof parsed !== 'object') return false;
  if (!text.includes(':')) return false;
  return writtenKeys(text) !== parsedKeys(parsed);
}

function bodyError(message: string) {
  return errors.validation(message, [{ path: '', message, code: 'json' }]);
}

type Done = (err: Error | null, body?: unknown) => void;

/**
 * The service's JSON body parser (application/json and application/vc): UTF-8 only, no duplicate
 * keys, Fastify's own parse otherwise (prototype keys refused); an empty body is "no body" (revoke
 * and reissue take an optional one), not a parse error.
 */
export function strictJsonParser(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string | Buffer, done: Done) => {
    let text: string;
    try {
      text = typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      return done(bodyError('The body is not valid UTF-8.'));
    }
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, (err, parsed) => {
      if (err) return done(err);
      if (hasDuplicateKeys(text, parsed)) return done(bodyError('The body names a key twice in one object.'));
      return done(null, parsed);
    });
  };
}
