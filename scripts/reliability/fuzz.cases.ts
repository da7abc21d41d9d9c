import { generateSync } from 'json-schema-faker';
import type { CaseDraw } from './fuzz.mutations.js';
import { encodable, fillPath, type JsonSchema, type OperationSpec } from './lib/openapi.js';
import { collectionOf, collectionOfField, poolValues, type ResourcePool } from './lib/resources.js';

/*
 * `materialise` turns a drawn case description (fuzz.mutations.ts) into an HTTP request against the
 * current resource pool: json-schema-faker values, real ids some of the time, then the mutation.
 */

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** `latin1`: the payload is sent as one byte per character (bytes that are not UTF-8). */
  encoding?: 'latin1';
}

/** A small image for operations whose body is raw bytes (an image upload). */
const TINY_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle r="4" cx="5" cy="5"/></svg>';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fake(schema: JsonSchema, seed: number, allOptionals: boolean): unknown {
  const generate = (all: boolean) =>
    generateSync(schema as never, {
      seed,
      alwaysFakeOptionals: all,
      optionalsProbability: all ? 1 : 0.5,
      maxDefaultItems: 3,
      // Large values are the huge-string mutation's job; valid cases stay small so every case is fast.
      maxItems: 20,
      maxLength: 400,
    });
  try {
    return generate(allOptionals);
  } catch (err) {
    // json-schema-faker reaches an object's minProperties with additional properties only, so a
    // closed object (a PATCH body) whose drawn optionals fall short throws: it then takes them all.
    if (allOptionals) throw err;
    return generate(true);
  }
}

/** JSON pointers (as key lists) of every leaf in a value, objects and arrays walked. */
function leaves(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...at, i]));
  if (isObject(value)) {
    const keys = Object.keys(value);
    return keys.length === 0 ? [at] : keys.flatMap((k) => leaves(value[k], [...at, k]));
  }
  return [at];
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy: Json | unknown[] = Array.isArray(root) ? [...root] : { ...(root as Json) };
  (copy as Json)[head as string] = setAt((root as Json)[head as string], rest, value);
  return copy;
}

function pickFrom<T>(list: T[], pick: number): T | undefined {
  return list.length === 0 ? undefined : list[pick % list.length];
}

/** Room for a value in a URL: Node refuses a request line over its 16 KiB header limit before any app sees it. */
const URL_VALUE_BUDGET = 12_000;

/** Cuts a value so that, percent-encoded, it still fits in a URL that can reach the app. */
function fitForUrl(value: string): string {
  const encoded = encodeURIComponent(encodable(value)).length;
  return encoded <= URL_VALUE_BUDGET ? value : value.slice(0, Math.floor((value.length * URL_VALUE_BUDGET) / encoded));
}

function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV import the service can act on: real definitions, some repeated rows, some broken emails. */
function realisticCsv(pool: ResourcePool, seed: number): string {
  const definitions = poolValues(pool, 'definitions');
  const slugs = poolValues(pool, 'badges');
  const rows = ['email,name,definition_id,definition,completion_key,issued_on'];
  const count = 1 + (seed % 6);
  for (let i = 0; i < count; i++) {
    const n = (seed + i) % 97;
    const email = n % 7 === 0 ? `broken${n}@@example` : `learner${n}@example.test`;
    const definition = pickFrom(definitions, seed + i) ?? '';
    const slug = n % 3 === 0 ? (pickFrom(slugs, seed + i) ?? '') : '';
    rows.push(
      [email, `Learner ${n}`, slug ? '' : definition, slug, n % 2 === 0 ? `csv-${n}` : '', '2026-01-0' + ((n % 9) + 1)]
        .map(csvCell)
        .join(','),
    );
  }
  return `${rows.join('\r\n')}\r\n`;
}

/** Completion records shaped like a learning system's, naming real definitions. */
function realisticRecords(pool: ResourcePool, seed: number): unknown[] {
  const slugs = poolValues(pool, 'badges');
  const count = 1 + (seed % 4);
  return Array.from({ length: count }, (_, i) => {
    const n = (seed + i) % 89;
    return {
      email: `learner${n}@example.test`,
      firstName: 'Learner',
      lastName: String(n),
      courseCode: pickFrom(slugs, seed + i) ?? `course-${n}`,
      completedAt: '2026-02-01T00:00:00Z',
      externalId: `rec-${n}`,
    };
  });
}

/** Points fields that name resources at real ones, so the request reaches past the lookups. */
function withRealValues(body: unknown, pool: ResourcePool, pick: number): unknown {
  if (!isObject(body)) return body;
  const out: Json = { ...body };
  for (const [field, value] of Object.entries(out)) {
    const collection = collectionOfField(field);
    if (collection && typeof value === 'string') {
      out[field] = pickFrom(poolValues(pool, collection), pick) ?? value;
    } else if (field === 'csv' && typeof value === 'string') {
      out[field] = realisticCsv(pool, pick);
    } else if (field === 'records' && Array.isArray(value)) {
      out[field] = realisticRecords(pool, pick);
    } else if (field === 'url' && typeof value === 'string') {
      out[field] = pickFrom(poolValues(pool, 'urls'), pick) ?? value;
    } else if (field === 'id' && typeof value === 'string') {
      out[field] = pickFrom(poolValues(pool, 'assertionUrls'), pick) ?? value;
    } else if (field === 'ids' && Array.isArray(value)) {
      const urls = poolValues(pool, 'assertionUrls');
      out[field] = [...urls.slice(0, 5), ...poolValues(pool, 'credentials').slice(0, 3), ...value.slice(0, 2)];
    } else if (field === 'expiresOn' && typeof value === 'string') {
      // An expiry must come after the time of issue: a generated date would refuse the request.
      out[field] = new Date(Date.now() + 365 * 86_400_000).toISOString();
    } else if (Array.isArray(value)) {
      out[field] = value.map((item) => (isObject(item) ? withRealValues(item, pool, pick) : item));
    } else if (isObject(value)) {
      out[field] = withRealValues(value, pool, pick);
    }
  }
  return out;
}

function nested(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

/** A web console session: its cookie and CSRF token. */
export interface ConsoleSession {
  cookie: string;
  csrf: string;
}

export interface Keys {
  valid: string;
  invalid: string;
  /** For console-only operations, which refuse API keys (without it they are sent the key). */
  console?: ConsoleSession;
  /** For signing out, so the other console operations keep their session. */
  signOut?: ConsoleSession;
}

/** Turns a drawn description into a concrete request for the operation. */
export function materialise(op: OperationSpec, draw: CaseDraw, pool: ResourcePool, keys: Keys): FuzzRequest {
  const { mutation: m } = draw;
  const allOptionals = m.kind === 'valid-all-optionals';

  const pathValues: Record<string, string> = {};
  for (const [i, param] of op.pathParams.entries()) {
    const real = pickFrom(poolValues(pool, collectionOf(op.path, param.name)), draw.pick + i);
    const generated = String(fake(param.schema, draw.jsfSeed + i, false) ?? '');
    pathValues[param.name] = draw.realIds && real !== undefined ? real : generated || 'x';
  }
  const query = new URLSearchParams();
  for (const [i, param] of op.queryParams.entries()) {
    if (!param.required && !allOptionals && (draw.jsfSeed >> i) % 2 === 0) continue;
    const collection = collectionOfField(param.name);
    const real = collection ? pickFrom(poolValues(pool, collection), draw.pick) : undefined;
    const value = draw.realIds && real !== undefined ? real : fake(param.schema, draw.jsfSeed + 100 + i, false);
    query.set(param.name, encodable(typeof value === 'string' ? value : JSON.stringify(value)));
  }

  let body: unknown;
  const bodySchema = op.body?.schema ?? null;
  if (bodySchema) {
    body = fake(bodySchema, draw.jsfSeed, allOptionals);
    if (draw.realIds) body = withRealValues(body, pool, draw.pick);
    // "Resend the email" must name the credential's own recipient (the service keeps no address):
    // the seeded recipient of the credential the path names.
    if (draw.realIds && isObject(body) && /^\/api\/v1\/credentials\/\{id\}\/notification$/.test(op.path)) {
      body = { ...body, recipientEmail: pickFrom(poolValues(pool, 'recipients'), draw.pick) ?? body.recipientEmail };
    }
  }

  const headers: Record<string, string> = {};
  const session = op.method === 'DELETE' && op.path === '/api/v1/session' ? keys.signOut : keys.console;
  if (op.consoleOnly && session && (draw.auth === 'bearer' || draw.auth === 'x-api-key')) {
    headers.cookie = session.cookie;
    headers['x-csrf-token'] = session.csrf;
  } else {
    if (draw.auth === 'bearer') headers.authorization = `Bearer ${keys.valid}`;
    if (draw.auth === 'x-api-key') headers['x-api-key'] = keys.valid;
  }
  if (draw.auth === 'invalid') headers.authorization = `Bearer ${keys.invalid}`;

  let payload: string | undefined;
  let contentType = 'application/json';
  const hasBody = bodySchema !== null;
  switch (m.kind) {
    case 'type-swap': {
      if (hasBody) body = setAt(body, pickFrom(leaves(body), m.pick) ?? [], m.value);
      break;
    }
    case 'unknown-field': {
      if (hasBody && isObject(body)) body = { ...body, [m.name]: m.value };
      else query.set(encodable(m.name) || 'x', JSON.stringify(m.value));
      break;
    }
    case 'missing-required': {
      const required = ((bodySchema?.required as string[] | undefined) ?? []).filter(
        (r) => isObject(body) && r in body,
      );
      const drop = pickFrom(required, m.pick);
      if (drop !== undefined && isObject(body)) {
        const { [drop]: _dropped, ...rest } = body;
        body = rest;
      } else {
        const name = pickFrom(
          op.queryParams.filter((p) => p.required).map((p) => p.name),
          m.pick,
        );
        if (name) query.delete(name);
      }
      break;
    }
    case 'huge-string':
    case 'control-chars':
    case 'grapheme-string': {
      const value = m.kind === 'huge-string' ? m.unit.repeat(Math.ceil(m.length / m.unit.length)) : m.value;
      if (hasBody) body = setAt(body, pickFrom(leaves(body), m.pick) ?? [], value);
      else if (op.pathParams.length > 0) {
        pathValues[op.pathParams[m.pick % op.pathParams.length]?.name ?? ''] = fitForUrl(value);
      } else query.set('q', encodable(fitForUrl(value)));
      break;
    }
    case 'injection': {
      if (m.where === 'body' && hasBody) body = setAt(body, pickFrom(leaves(body), m.pick) ?? [], m.value);
      else if (m.where === 'path' && op.pathParams.length > 0) {
        pathValues[op.pathParams[m.pick % op.pathParams.length]?.name ?? ''] = m.value;
      } else {
        const name = pickFrom(
          op.queryParams.map((p) => p.name),
          m.pick,
        );
        query.set(name ?? 'q', m.value);
      }
      break;
    }
    case 'query-junk': {
      query.append(encodable(m.name) || 'q', encodable(m.value));
      break;
    }
    case 'undotted-email': {
      const emails = leaves(body).filter((at) => /email/i.test(String(at[at.length - 1] ?? '')));
      const at = pickFrom(emails, m.pick);
      if (at) body = setAt(body, at, m.value);
      break;
    }
    default:
      break;
  }

  let encoding: 'latin1' | undefined;
  const rawTypes = op.body && !op.body.contentTypes.includes('application/json') ? op.body.contentTypes : null;
  if (rawTypes && !['empty-body', 'wrong-content-type'].includes(m.kind)) {
    // A raw body (an image): the image itself, under the media type the document names.
    contentType = rawTypes.includes('image/svg+xml') ? 'image/svg+xml' : (rawTypes[0] ?? 'application/octet-stream');
    payload = TINY_SVG;
  } else if (
    hasBody ||
    [
      'empty-body',
      'wrong-content-type',
      'malformed-json',
      'non-object-body',
      'proto-key',
      'deep-nesting',
      'duplicate-key',
      'invalid-utf8',
    ].includes(m.kind)
  ) {
    const text = JSON.stringify(body ?? {});
    switch (m.kind) {
      case 'duplicate-key': {
        const twice = `"twice":${JSON.stringify(m.value ?? null)}`;
        payload =
          text === '{}' || !text.startsWith('{') ? `{${twice},${twice}}` : `{${twice},${twice},${text.slice(1)}`;
        break;
      }
      case 'invalid-utf8': {
        // Each character a byte: the JSON's own non-ASCII text is cut to its low byte, and the drawn
        // byte (a lone continuation byte, an overlong or out-of-range lead) is never UTF-8.
        const quote = text.indexOf('"');
        const at = quote < 0 ? 1 : quote + 1;
        payload = `${text.slice(0, at)}${String.fromCharCode(m.byte)}${text.slice(at)}`;
        encoding = 'latin1';
        break;
      }
      case 'empty-body':
        payload = '';
        break;
      case 'wrong-content-type':
        contentType = m.contentType;
        payload = m.contentType.startsWith('application/x-www-form-urlencoded') ? 'a=1&b=2' : text;
        break;
      case 'malformed-json':
        payload = text.slice(0, Math.max(1, m.cut % Math.max(2, text.length - 1)));
        if (payload === text) payload = `${text}}`;
        break;
      case 'non-object-body':
        payload = JSON.stringify(m.value);
        break;
      case 'proto-key': {
        // Written as text: an object literal would set the prototype rather than carry the key.
        const inner = `{"${m.key}":{"polluted":true,"isAdmin":true}}`;
        const inserted = m.nested ? `"nested":${inner}` : `"${m.key}":{"polluted":true}`;
        payload = text === '{}' ? `{${inserted}}` : `{${inserted},${text.slice(1)}`;
        break;
      }
      case 'deep-nesting':
        payload = nested(m.depth);
        break;
      default:
        payload = text;
    }
  }
  if (payload !== undefined) headers['content-type'] = contentType;
  const qs = query.toString();
  return {
    method: op.method,
    url: `${fillPath(op.path, pathValues)}${qs ? `?${qs}` : ''}`,
    headers,
    ...(payload !== undefined ? { payload } : {}),
    ...(encoding ? { encoding } : {}),
  };
}
