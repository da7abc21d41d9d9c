import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { OPERATION_DESCRIPTIONS, OPERATION_TAGS } from './operation-descriptions.js';
import { closeObjects, NUL_CHECKED_BY_HANDLER, OPTIONAL_BODY } from './validation.js';

/**
 * What the route schemas alone do not tell the OpenAPI document, added where the document is
 * generated: who may call an operation, which ones are not rate limited, the headers of a 429 and
 * of a redirect, and request bodies as the validator really checks them (closed objects, optional
 * bodies). Spread into the @fastify/swagger options.
 */

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** `x-rate-limit` of the operations the limiter lets through uncounted (liveness, readiness, metrics). */
export const RATE_LIMIT_EXEMPT = 'exempt';

const RATE_LIMIT_HEADERS = {
  'Retry-After': { $ref: '#/components/headers/RetryAfter' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

const HEADERS = {
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitLimit: {
    description: 'Requests allowed per window (one minute): the plan’s rate with a key, the open rate without.',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitRemaining: {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitReset: {
    description: 'Seconds until the current window resets.',
    schema: { type: 'integer', minimum: 0 },
  },
  Location: {
    description: 'Where the redirect leads.',
    schema: { type: 'string', format: 'uri-reference' },
  },
};

const RATE_LIMIT_NOTE =
  'Every operation is rate limited per API key (per client address without one), except those marked `x-rate-limit: exempt`; a 429 carries `Retry-After` and the `X-RateLimit-*` headers.';

/** What every operation's request is held to, beyond its own schemas (docs/decisions.md, "The document says exactly what the service does"). */
const REQUEST_RULES_NOTE = [
  'Query parameters: an operation under /api/ answers 400 validation_failed to a query parameter it does not list (as a body answers to an unknown property); the public pages, hosted documents, images and the embed script outside /api/ ignore parameters they do not list, since their links are shared and gain tracking and cache-busting parameters.',
  'No string in a request may hold U+0000 or an unpaired surrogate (400). A JSON body must be UTF-8 and may not name a key twice in one object (400).',
  'A URL over 8 KiB answers 414, and a request line with headers over 16 KiB answers 431, both with the Error body. A method a path does not have answers 405 with Allow, a concrete path (/api/v1/webhooks/catalog) taking precedence over a templated one (/api/v1/webhooks/{id}).',
].join(' ');

/**
 * Per route: an operation without a security requirement is open and says so (`security: []`), one
 * the limiter exempts is marked `x-rate-limit: exempt`, and one without a description of its own
 * gets its entry of OPERATION_DESCRIPTIONS.
 */
export const describeRoute: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema) return { schema, url };
  const description = schema.description ?? OPERATION_DESCRIPTIONS[schema.operationId ?? ''];
  return {
    url,
    schema: {
      ...schema,
      ...(description === undefined ? {} : { description }),
      security: schema.security ?? [],
      ...(route.config?.rateLimitExempt === true ? { 'x-rate-limit': RATE_LIMIT_EXEMPT } : {}),
    },
  };
};

/**
 * Every string a request carries is refused with a 400 when it holds U+0000 (src/core/validation.ts);
 * a string schema that has no pattern, format or enum of its own says so with this pattern. (The
 * formats and patterns the service uses take no U+0000 already.)
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

function forbidNul(schema: unknown, freeFormNote = FREE_FORM_NUL_NOTE): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const item of schema) forbidNul(item, freeFormNote);
    return;
  }
  const node = schema as Json;
  if (node.type === 'string' && node.pattern === undefined && node.format === undefined && node.enum === undefined) {
    node.pattern = NO_NUL_PATTERN;
  }
  if (isFreeForm(node)) node.description = [node.description, freeFormNote].filter(Boolean).join(' ');
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' || key === 'patternProperties') {
      for (const property of Object.values(value as Json)) forbidNul(property, freeFormNote);
    } else if (SUBSCHEMA_KEYS.has(key)) forbidNul(value, freeFormNote);
  }
}

/** The keywords whose value is a schema or a list of schemas. */
const SUBSCHEMA_KEYS = new Set(['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'not']);

/** Said on a value the schema leaves open, since no pattern can reach the strings inside it. */
export const FREE_FORM_NUL_NOTE = 'No string in it, key or value, may hold U+0000 (400).';
/** The same for a body whose handler checks each record itself (connectors: one bad record fails alone). */
export const RECORD_NUL_NOTE =
  'A record with U+0000 in any string, key or value, is an error record; the others go on.';

/** A value of any type, or an object taking properties the schema does not list. */
function isFreeForm(node: Json): boolean {
  if (node.type === undefined) return !('$ref' in node || 'anyOf' in node || 'oneOf' in node || 'allOf' in node);
  return node.type === 'object' && node.additionalProperties === true;
}

/**
 * A property with a `default` is filled in by the validator when it is left out (ajv's
 * useDefaults), so the document does not list it as required.
 */
function notRequiredWhenDefaulted(schema: unknown): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const item of schema) notRequiredWhenDefaulted(item);
    return;
  }
  const node = schema as Json;
  const properties = node.properties as Record<string, Json> | undefined;
  if (Array.isArray(node.required) && properties) {
    const required = node.required.filter((name: string) => properties[name]?.default === undefined);
    if (required.length > 0) node.required = required;
    else delete node.required;
  }
  for (const value of Object.values(node)) notRequiredWhenDefaulted(value);
}

/**
 * A request body as the validator checks it: closed objects, defaulted properties not required, and
 * a body that may be left out also taken as `null` (validation.ts treats both alike).
 */
function describeRequestBody(requestBody: Json): void {
  const content = (requestBody.content ?? {}) as Record<string, Json>;
  for (const media of Object.values(content)) {
    const schema = media.schema as Json | undefined;
    if (!schema) continue;
    const optional = schema[OPTIONAL_BODY] === true;
    const perRecord = schema[NUL_CHECKED_BY_HANDLER] === true;
    if (optional) requestBody.required = false;
    const { [OPTIONAL_BODY]: _optional, [NUL_CHECKED_BY_HANDLER]: _nul, ...rest } = schema;
    const closed = closeObjects(rest) as Json;
    media.schema = optional ? { ...closed, nullable: true } : closed;
    notRequiredWhenDefaulted(media.schema);
    forbidNul(media.schema, perRecord ? RECORD_NUL_NOTE : FREE_FORM_NUL_NOTE);
  }
}

/** Marker of an operation whose body is raw bytes of the listed media types (no JSON schema validates it). */
const RAW_BODY = 'x-raw-body';

/**
 * Route schema fields documenting a body taken as raw bytes (an image upload): spread into the
 * route's schema, they become a requestBody of `format: binary` for each media type.
 */
export function rawRequestBody(mediaTypes: readonly string[], description: string) {
  return { consumes: [...mediaTypes], [RAW_BODY]: { mediaTypes: [...mediaTypes], description } };
}

function describeRawBody(operation: Json): void {
  const raw = operation[RAW_BODY] as { mediaTypes: string[]; description: string } | undefined;
  if (!raw) return;
  delete operation[RAW_BODY];
  const binary = { schema: { type: 'string', format: 'binary' } };
  operation.requestBody = {
    required: true,
    description: raw.description,
    content: Object.fromEntries(raw.mediaTypes.map((type) => [type, binary])),
  };
}

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

/** Any URL longer than this is refused before routing (app.ts), so every operation may answer 414. */
const URI_TOO_LONG = { description: 'The request URL is longer than 8 KiB', content: ERROR_CONTENT };

/**
 * A request line or header block over Node's 16 KiB header limit is refused by the HTTP server
 * itself, before any route (app.ts, `clientErrorHandler`), so every operation may answer 431.
 */
const HEADERS_TOO_LARGE = {
  description: 'The request line and headers together are larger than 16 KiB',
  content: ERROR_CONTENT,
};

function describeResponses(responses: Json): void {
  responses['414'] ??= URI_TOO_LONG;
  responses['431'] ??= HEADERS_TOO_LARGE;
  for (const [status, response] of Object.entries(responses as Record<string, Json>)) {
    if (status === '429') response.headers = { ...(response.headers as Json | undefined), ...RATE_LIMIT_HEADERS };
    if (/^3\d\d$/.test(status) && status !== '304') {
      response.headers = { Location: { $ref: '#/components/headers/Location' }, ...(response.headers as Json) };
    }
  }
}

/** The whole document: shared headers, the licence, and every operation's body and responses. */
export const describeDocument: SwaggerTransformObject = (documentObject) => {
  const document = ('openapiObject' in documentObject ? documentObject.openapiObject : {}) as Json;
  const info = document.info as Json;
  document.info = {
    ...info,
    description: `${info.description ?? ''} ${RATE_LIMIT_NOTE} ${REQUEST_RULES_NOTE}`.trim(),
    license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
  };
  document.tags = OPERATION_TAGS.map((tag) => ({ ...tag }));
  const components = (document.components ?? {}) as Json;
  document.components = { ...components, headers: { ...(components.headers as Json | undefined), ...HEADERS } };
  for (const item of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      describeRawBody(operation);
      if (operation.requestBody) describeRequestBody(operation.requestBody as Json);
      for (const parameter of (operation.parameters ?? []) as Json[]) forbidNul(parameter.schema);
      describeResponses((operation.responses ?? {}) as Json);
    }
  }
  return document;
};

/** The @fastify/swagger options that apply these decorations. */
export const documentDecorations = { transform: describeRoute, transformObject: describeDocument };
