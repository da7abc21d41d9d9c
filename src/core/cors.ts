import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request was answered as an allowed CORS preflight. */
    corsPreflightEnabled: boolean;
  }
}

/** How long a browser may keep a preflight answer. */
const PREFLIGHT_MAX_AGE_S = '86400';
const PREFLIGHT_METHODS = 'GET, POST, OPTIONS';

/**
 * CORS for the open paths only: every origin, no credentials, answered preflights. Every other path
 * (keyed routes above all) gets no CORS header, so no origin is ever reflected. The answers are
 * fixed strings: the only per-request work is matching the path. (This is what @fastify/cors did
 * with a per-request delegator, without rebuilding its options object for each request.) No answer
 * but a preflight's depends on the request's Origin, so only a preflight says `Vary: Origin`:
 * @fastify/cors put it on every response, where it only split caches for nothing.
 */
export function registerCors(app: FastifyInstance, openPaths: readonly RegExp[]): void {
  app.decorateRequest('corsPreflightEnabled', false);

  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    if (!openPaths.some((pattern) => pattern.test(url))) return done();
    reply.header('access-control-allow-origin', '*');
    if (request.raw.method !== 'OPTIONS') return done();
    const headers = request.headers;
    if (!headers.origin || !headers['access-control-request-method']) {
      const message = 'A CORS preflight needs the Origin and Access-Control-Request-Method headers.';
      reply.status(400).send({ error: 'validation_failed', message, issues: [] });
      return;
    }
    request.corsPreflightEnabled = true;
    reply.header('access-control-allow-methods', PREFLIGHT_METHODS);
    reply.header('vary', 'Origin, Access-Control-Request-Headers');
    const requested = headers['access-control-request-headers'];
    if (requested !== undefined) reply.header('access-control-allow-headers', requested);
    reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_S).code(204).header('content-length', '0').send();
  });

  // Lets the router accept preflights; an OPTIONS request the hook did not answer names no route.
  app.options('*', { schema: { hide: true } }, (request, reply) => {
    if (request.corsPreflightEnabled) reply.send();
    else reply.callNotFound();
  });
}
