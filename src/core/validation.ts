import { Ajv, type AnySchema, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = formats as unknown as typeof formats.default;

import type { FastifyInstance, FastifySchema, FastifySchemaCompiler } from 'fastify';

type JsonObject = Record<string, unknown>;

/** Marker of a body that may be left out: the document says `required: false` instead (src/core/openapi.ts). */
export const OPTIONAL_BODY = 'x-optional-body';
/**
 * Marker of a body whose handler refuses U+0000 and unpaired surrogates per item; internal, left out
 * of the document.
 */
export const NUL_CHECKED_BY_HANDLER = 'x-nul-checked-by-handler';

/**
 * Marks a body whose handler looks for U+0000 and unpaired surrogates itself, per item: connector
 * calls must turn a bad record into a record error instead of failing the whole batch.
 */
export function nulCheckedByHandler<T extends object>(schema: T): T {
  return { ...schema, [NUL_CHECKED_BY_HANDLER]: true };
}

/** Marks a body schema whose body may be left out entirely (revoke, reissue). */
export function optionalBody<T extends object>(schema: T): T {
  return { ...schema, [OPTIONAL_BODY]: true };
}

/**
 * Request bodies are closed: an object schema that lists properties and says nothing about
 * additionalProperties refuses unknown ones (400), rather than silently dropping them. Schemas that
 * really are free-form say `additionalProperties: true` (or use a record type).
 */
export function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema as JsonObject)) {
    out[key] =
      key === 'properties' || key === 'patternProperties' ? mapValues(value, closeObjects) : closeObjects(value);
  }
  if (out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, fn(v)]));
}

type Validator = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] };

/** A surrogate code unit that is not half of a pair (with the u flag a pair is one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

/** What in `value` no text column of either engine can hold, or null when it can be stored. */
function unstorable(value: string): { character: string; code: string } | null {
  if (value.includes('\u0000')) return { character: 'the NUL character (U+0000)', code: 'nul' };
  // A lone surrogate: PostgreSQL refuses its JSON escape, and UTF-8 cannot encode it.
  if (LONE_SURROGATE.test(value)) return { character: 'an unpaired surrogate (U+D800-U+DFFF)', code: 'surrogate' };
  return null;
}

/**
 * The first string (or key) holding U+0000 or an unpaired surrogate: its JSON pointer, what it
 * holds and the issue code; null when there is none.
 */
export function unstorableTextAt(data: unknown): { path: string; character: string; code: string } | null {
  const pending: [unknown, string][] = [[data, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      const found = unstorable(value);
      if (found) return { path, ...found };
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const found = unstorable(key);
        if (found) return { path: `${path}/${key}`, ...found };
        pending.push([child, `${path}/${key}`]);
      }
    }
  }
  return null;
}

/**
 * Refuses U+0000 and unpaired surrogates in any string after the schema's own checks: no id, name or
 * email contains them, and PostgreSQL cannot hold them (the query would fail with a 500 instead of
 * this 400).
 */
function refusingUnstorableText(inner: Validator): Validator {
  const validate: Validator = (data) => {
    const valid = inner(data);
    const at = unstorableTextAt(data);
    // U+0000 is named as such even where a name's pattern also refuses it (it excludes every control
    // character): "must not contain the NUL character" says more than the pattern.
    if (!valid && at?.code !== 'nul') {
      validate.errors = inner.errors;
      return false;
    }
    validate.errors =
      at === null
        ? null
        : [
            {
              instancePath: at.path,
              schemaPath: '#',
              keyword: at.code,
              params: {},
              message: `must not contain ${at.character}`,
            },
          ];
    return at === null;
  };
  validate.errors = null;
  return validate;
}

/**
 * The formats every schema of the service is checked with: ajv-formats' full ones. (Email fields
 * use EMAIL_PATTERN in core/schemas.ts, not the `email` format: they take surrounding whitespace.)
 */
export function addServiceFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  return ajv;
}

function createAjv(coerce: boolean): Ajv {
  return addServiceFormats(
    new Ajv({
      coerceTypes: coerce ? 'array' : false,
      useDefaults: true,
      removeAdditional: false,
      allErrors: true,
      strict: false,
    }),
  );
}

/** A validator compiled at its first call, which then answers exactly as `compile()`'s would. */
function compiledAtFirstCall(compile: () => Validator): Validator {
  let inner: Validator | undefined;
  const validate: Validator = (data) => {
    inner ??= compile();
    const ok = inner(data);
    validate.errors = inner.errors;
    return ok;
  };
  validate.errors = null;
  return validate;
}

/**
 * Bodies are validated strictly (no type coercion, unknown properties refused); query strings and
 * path parameters are coerced from text, as they can only be text.
 *
 * With `atFirstUse` (the server's setting), each route's validator is compiled at its first
 * request, not at start, and a shared schema only when a compiled one refers to it: compiling them
 * all at start was about 1.4 s of CPU in ajv before the server answered anything (docs/decisions.md,
 * "Start in a second"). Without it, every validator compiles at route registration (tests use it
 * to prove that every request schema compiles).
 */
export function createValidatorCompiler(
  sharedSchemas: () => Record<string, unknown>,
  atFirstUse = false,
): FastifySchemaCompiler<FastifySchema> {
  const strict = createAjv(false);
  const coercing = createAjv(true);
  const added = { strict: new Set<string>(), coercing: new Set<string>() };
  // Added, not compiled: ajv compiles a shared schema when a route's schema first refers to it.
  const ensureShared = (ajv: Ajv, ids: Set<string>) => {
    for (const [id, schema] of Object.entries(sharedSchemas())) {
      if (ids.has(id)) continue;
      ajv.addSchema(closeObjects(schema) as AnySchema, id);
      ids.add(id);
    }
  };
  const compileFor = ({ schema, httpPart }: Parameters<FastifySchemaCompiler<FastifySchema>>[0]): Validator => {
    const ajv = httpPart === 'body' ? strict : coercing;
    ensureShared(ajv, httpPart === 'body' ? added.strict : added.coercing);
    if (httpPart !== 'body') return refusingUnstorableText(ajv.compile(schema as AnySchema));
    const compiled: ValidateFunction = ajv.compile(closeObjects(schema) as AnySchema);
    if ((schema as JsonObject)[NUL_CHECKED_BY_HANDLER] === true) return compiled;
    if ((schema as JsonObject)[OPTIONAL_BODY] !== true) return refusingUnstorableText(compiled);
    const validate = (data: unknown) => {
      if (data === undefined || data === null) return true;
      const ok = compiled(data);
      validate.errors = compiled.errors;
      return ok;
    };
    validate.errors = null as ValidateFunction['errors'];
    return refusingUnstorableText(validate);
  };
  if (!atFirstUse) return compileFor;
  return (route) => compiledAtFirstCall(() => compileFor(route));
}

/** The operations whose query strings are closed: the API itself (docs/decisions.md, "Unknown query parameters"). */
const CLOSED_QUERY_PREFIX = '/api/';

/**
 * An API operation refuses a query parameter it does not list (400 validation_failed, naming it),
 * as its body refuses an unknown property: a misspelt `limt=5` must not silently list 50. Public
 * pages, hosted documents, images and the embed script (outside /api/) ignore unknown parameters:
 * their links are shared, and the places they are shared add tracking and cache-busting parameters.
 * Hidden routes (the CORS preflight, the 405 answers) are no operations and are left alone.
 * Register before the error handling, whose hook documents the 400 of a route with a query string.
 */
export function closeApiQueryStrings(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(CLOSED_QUERY_PREFIX) || !route.schema || route.schema.hide === true) return;
    const querystring = (route.schema.querystring ?? { type: 'object', properties: {} }) as JsonObject;
    route.schema = { ...route.schema, querystring: { ...querystring, additionalProperties: false } };
  });
}
