import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { isUnavailable } from '../db/dialect.js';
import { negotiate } from '../modules/documents/negotiation.js';
import { AppError, type ErrorCode, ErrorCodes, type ValidationIssue } from './errors.js';
import { errorResponses } from './schemas.js';

// node:http's CommonJS object: an ESM import of node:http builds its facade, whose every export is
// read, and one of them (WebSocket) loads Node's bundled undici, about 40 ms of the start.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A hidden route that answers 405 for a method its concrete path lacks (refuseShadowedMethods). */
    refusesMethod?: boolean;
  }
}

interface AjvIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

function validationIssues(err: FastifyError): ValidationIssue[] {
  const context = (err as { validationContext?: string }).validationContext ?? 'body';
  const found = (err.validation ?? []) as AjvIssue[];
  // Some schemas restate their format as a pattern so the document says what is refused (Email's
  // dotted domain): a value failing both is one problem, reported once, by its format.
  const formatFailed = new Set(found.filter((issue) => issue.keyword === 'format').map((issue) => issue.instancePath));
  const issues = found.filter((issue) => issue.keyword !== 'pattern' || !formatFailed.has(issue.instancePath));
  return issues.map((issue) => {
    const extra =
      typeof issue.params.missingProperty === 'string'
        ? `/${issue.params.missingProperty}`
        : typeof issue.params.additionalProperty === 'string'
          ? `/${issue.params.additionalProperty}`
          : '';
    const path = `${issue.instancePath}${extra}`;
    const allowed =
      issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues) ? issue.params.allowedValues : null;
    const message =
      issue.keyword === 'additionalProperties'
        ? `${context}${path} is not a known property`
        : allowed
          ? `${context}${path} must be one of: ${allowed.join(', ')}`
          : `${context}${issue.instancePath} ${issue.message ?? 'is invalid'}`;
    return { path, message, code: issue.keyword };
  });
}

const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation_failed',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation_failed',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_failed',
};

function send(reply: FastifyReply, code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
  const status = ErrorCodes[code];
  if (status === 400 && extra.issues === undefined) extra = { ...extra, issues: [] };
  if (status === 503) reply.header('retry-after', '5');
  return reply.status(status).send({ error: code, message, ...extra });
}

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A 429 for a browser (text/html strictly preferred over JSON, as on the verification page): a
 * small page saying when to retry, with the same status and headers as the Error body.
 */
function sendRateLimitPage(request: FastifyRequest, reply: FastifyReply, message: string): boolean {
  if (negotiate(request.headers.accept, { html: true }) !== 'html') return false;
  const seconds = Number(reply.getHeader('retry-after') ?? 60);
  const wait = `${seconds} second${seconds === 1 ? '' : 's'}`;
  reply
    .status(429)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'")
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${seconds}"><title>Too many requests</title></head>
<body>
<h1>Too many requests</h1>
<p>This address has asked for more pages than the service answers in a minute. Please retry in ${wait}; this page reloads itself then.</p>
<p><small>${message.replace(/[<>&]/g, '')}</small></p>
</body>
</html>
`,
    );
  return true;
}

/** The methods of every route registered at a path without parameters (a concrete path). */
type ConcretePaths = Map<string, Set<string>>;

function isConcrete(url: string): boolean {
  return !url.includes(':') && !url.includes('*');
}

/**
 * The methods `path` has routes for, OPTIONS aside (it is answered for CORS preflights only).
 * A request whose method is among them was not found by its route (an unknown id), not refused.
 * A concrete path (`/api/v1/webhooks/catalog`) has only its own routes' methods, as in the
 * OpenAPI document, where a concrete path is matched before a templated one (`/webhooks/{id}`).
 */
function allowedMethods(app: FastifyInstance, concrete: ConcretePaths, path: string): string[] {
  const own = concrete.get(path);
  return app.supportedMethods.filter(
    (method) => method !== 'OPTIONS' && (own ? own.has(method) : app.findRoute({ method, url: path }) !== null),
  );
}

function sendMethodNotAllowed(reply: FastifyReply, method: string, allowed: string[]) {
  reply.header('allow', allowed.join(', '));
  return send(reply, 'method_not_allowed', `${method} is not allowed here; allowed: ${allowed.join(', ')}.`);
}

/** 405 with Allow for a method the path lacks, 404 for a path nothing is routed at. */
function sendUnrouted(app: FastifyInstance, concrete: ConcretePaths, request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0] ?? '';
  const allowed = allowedMethods(app, concrete, path);
  if (allowed.length > 0 && !allowed.includes(request.method)) {
    return sendMethodNotAllowed(reply, request.method, allowed);
  }
  return send(reply, 'not_found', `No route for ${request.method} ${path}.`);
}

/**
 * Documents the failures this handler answers before a route's own code runs: a body Fastify parses
 * can be malformed (400), too large (413) or of another media type (415), and any validated part of
 * the request can fail validation (400). Routes list their own failures; these are everyone's.
 */
function documentFrameworkErrors(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema?.response) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const statuses: (400 | 413 | 415)[] = methods.some((m) => BODY_METHODS.includes(m))
    ? [400, 413, 415]
    : schema.params || schema.querystring
      ? [400]
      : [];
  const response = schema.response as Record<string, unknown>;
  const missing = statuses.filter((status) => response[status] === undefined);
  if (missing.length > 0) route.schema = { ...schema, response: { ...response, ...errorResponses(...missing) } };
}

/**
 * One place renders every failure as the Error body. Returns what to call once every route is
 * registered (refuseShadowedMethods). A 5xx never carries the underlying message:
 * database errors can quote values, and internals are nobody's business.
 */
export function registerErrorHandling(app: FastifyInstance): () => void {
  app.addHook('onRoute', documentFrameworkErrors);
  const concrete: ConcretePaths = new Map();
  app.addHook('onRoute', (route) => {
    if (!isConcrete(route.url) || route.url === '' || route.config?.refusesMethod === true) return;
    const methods = concrete.get(route.url) ?? new Set<string>();
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) methods.add(method);
    if (methods.has('GET')) methods.add('HEAD');
    concrete.set(route.url, methods);
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof AppError) {
      if (err.statusCode >= 500) request.log.error({ err }, 'request failed');
      if (err.code === 'rate_limited' && sendRateLimitPage(request, reply, err.message)) return reply;
      return send(reply, err.code, err.message, err.extra);
    }
    if (err.validation) {
      return send(reply, 'validation_failed', 'The request is invalid.', { issues: validationIssues(err) });
    }
    const mapped = err.code ? fastifyCodes[err.code] : undefined;
    if (mapped === 'validation_failed') {
      const message = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? 'The body is not valid JSON.' : err.message;
      return send(reply, mapped, message, { issues: [{ path: '', message, code: 'json' }] });
    }
    if (mapped) return send(reply, mapped, err.message);
    if (err instanceof SyntaxError && (err.statusCode ?? 500) === 400) {
      return send(reply, 'validation_failed', 'The body is not valid JSON.', {
        issues: [{ path: '', message: 'The body is not valid JSON.', code: 'json' }],
      });
    }
    if (isUnavailable(err)) {
      request.log.warn({ err }, 'database unavailable');
      return send(reply, 'service_unavailable', 'The service is temporarily unavailable; retry shortly.');
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code: ErrorCode = status === 404 ? 'not_found' : status === 413 ? 'payload_too_large' : 'validation_failed';
      return send(reply, code, err.message, code === 'validation_failed' ? { issues: [] } : {});
    }
    request.log.error({ err }, 'unhandled error');
    return send(reply, 'internal_error', 'An unexpected error occurred.');
  });

  app.setNotFoundHandler((request, reply) => sendUnrouted(app, concrete, request, reply));
  // A request no route takes is answered before its body is read: a method this service does not
  // know (QUERY) gets its 405 whatever its Content-Type, and an unknown path never parses a body.
  app.addHook('preParsing', async (request, reply) => {
    if (request.is404) return sendUnrouted(app, concrete, request, reply);
  });
  return () => refuseShadowedMethods(app, concrete);
}

/**
 * Routes a method a concrete path lacks to a 405, where a templated sibling would take it
 * (`DELETE /api/v1/webhooks/catalog` would otherwise look up a webhook called "catalog"). Called once
 * every route is registered; the routes it adds are left out of the document.
 */
function refuseShadowedMethods(app: FastifyInstance, concrete: ConcretePaths): void {
  for (const [path, own] of [...concrete]) {
    // A route a plugin registered under its prefix (`/docs/`) can reach the hook under another url.
    for (const method of app.supportedMethods) if (app.hasRoute({ method, url: path })) own.add(method);
    const allowed = app.supportedMethods.filter((method) => method !== 'OPTIONS' && own.has(method));
    for (const method of app.supportedMethods) {
      if (method === 'OPTIONS' || own.has(method) || app.findRoute({ method, url: path }) === null) continue;
      app.route({
        method,
        url: path,
        schema: { hide: true },
        exposeHeadRoute: false,
        config: { refusesMethod: true },
        handler: (request, reply) => sendMethodNotAllowed(reply, request.method, allowed),
      });
    }
  }
}

/** Node's limit on a request line and its headers together (its `--max-http-header-size` default). */
export const MAX_HEADER_BYTES = 16 * 1024;

function clientErrorAnswer(code: string | undefined): { status: number; body: Record<string, unknown> } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    const message = `The request line and headers together are larger than ${MAX_HEADER_BYTES / 1024} KiB.`;
    return { status: 431, body: { error: 'headers_too_large', message } };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, body: { error: 'request_timeout', message: 'The request did not arrive in time.' } };
  }
  return { status: 400, body: { error: 'validation_failed', message: 'The request is not valid HTTP.', issues: [] } };
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before any route or hook (a
 * request line or headers over 16 KiB, a request that did not arrive in time, bytes that are not
 * HTTP) is answered with the Error body and the service's response headers, then the connection is
 * closed. Fastify's own answer had a body of its own shape (`statusCode`, a status text as `error`).
 */
export function answerClientError(headers: Iterable<readonly [string, string]>) {
  const fixed = [...headers].map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return function clientError(this: FastifyInstance, err: Error & { code?: string }, socket: Duplex): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, body } = clientErrorAnswer(err.code);
    this.log.info({ code: err.code, status }, 'request refused by the HTTP parser');
    if (socket.writable) {
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${fixed}Content-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy(err);
  };
}
