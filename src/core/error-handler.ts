import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { isUnavailable } from '../db/dialect.js';
import { negotiate } from '../modules/documents/negotiation.js';
import { AppError, type ErrorCode, ErrorCodes, type ValidationIssue } from './errors.js';
import { errorResponses } from './schemas.js';

interface AjvIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

function validationIssues(err: FastifyError): ValidationIssue[] {
  const context = (err as { validationContext?: string }).validationContext ?? 'body';
  return ((err.validation ?? []) as AjvIssue[]).map((issue) => {
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

/**
 * The methods `path` has routes for, OPTIONS aside (it is answered for CORS preflights only).
 * A request whose method is among them was not found by its route (an unknown id), not refused.
 */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  return app.supportedMethods.filter((method) => method !== 'OPTIONS' && app.findRoute({ method, url: path }));
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
 * One place renders every failure as the Error body. A 5xx never carries the underlying message:
 * database errors can quote values, and internals are nobody's business.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.addHook('onRoute', documentFrameworkErrors);
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

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = allowedMethods(app, path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return send(
        reply,
        'method_not_allowed',
        `${request.method} is not allowed here; allowed: ${allowed.join(', ')}.`,
      );
    }
    return send(reply, 'not_found', `No route for ${request.method} ${path}.`);
  });
}
