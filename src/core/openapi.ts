import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
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

/**
 * Per route: an operation without a security requirement is open and says so (`security: []`), and
 * one the limiter exempts is marked `x-rate-limit: exempt`.
 */
export const describeRoute: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema) return { schema, url };
  return {
    url,
    schema: {
      ...schema,
      security: schema.security ?? [],
      ...(route.config?.rateLimitExempt === true ? { 'x-rate-limit': RATE_LIMIT_EXEMPT } : {}),
    },
  };
};

/** A request body as the validator checks it: closed objects, and `required: false` where it may be left out. */
function describeRequestBody(requestBody: Json): void {
  const content = (requestBody.content ?? {}) as Record<string, Json>;
  for (const media of Object.values(content)) {
    const schema = media.schema as Json | undefined;
    if (!schema) continue;
    if (schema[OPTIONAL_BODY] === true) requestBody.required = false;
    const { [OPTIONAL_BODY]: _optional, [NUL_CHECKED_BY_HANDLER]: _nul, ...rest } = schema;
    media.schema = closeObjects(rest);
  }
}

/** Any URL longer than this is refused before routing (app.ts), so every operation may answer 414. */
const URI_TOO_LONG = {
  description: 'The request URL is longer than 8 KiB',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

function describeResponses(responses: Json): void {
  responses['414'] ??= URI_TOO_LONG;
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
    description: `${info.description ?? ''} ${RATE_LIMIT_NOTE}`.trim(),
    license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
  };
  const components = (document.components ?? {}) as Json;
  document.components = { ...components, headers: { ...(components.headers as Json | undefined), ...HEADERS } };
  for (const item of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      if (operation.requestBody) describeRequestBody(operation.requestBody as Json);
      describeResponses((operation.responses ?? {}) as Json);
    }
  }
  return document;
};

/** The @fastify/swagger options that apply these decorations. */
export const documentDecorations = { transform: describeRoute, transformObject: describeDocument };
