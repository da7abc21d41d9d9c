import type { FastifyInstance } from 'fastify';

/**
 * The security headers every response carries: helmet's defaults with CSP left to the routes that
 * serve HTML (the verification page sets its own nonce'd policy) and a cross-origin resource policy,
 * since badges and documents are embedded and fetched from other origins. They never vary by
 * request, so they are built once and written straight onto the response (helmet's own names and
 * order): building helmet's middleware per request cost more than a bare route's whole answer.
 */
export function securityHeaders(options: { hsts: boolean }): readonly (readonly [string, string])[] {
  return [
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    ['Cross-Origin-Resource-Policy', 'cross-origin'],
    ['Origin-Agent-Cluster', '?1'],
    ['Referrer-Policy', 'no-referrer'],
    ...(options.hsts ? [['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'] as const] : []),
    ['X-Content-Type-Options', 'nosniff'],
    ['X-DNS-Prefetch-Control', 'off'],
    ['X-Download-Options', 'noopen'],
    ['X-Frame-Options', 'SAMEORIGIN'],
    ['X-Permitted-Cross-Domain-Policies', 'none'],
    ['X-XSS-Protection', '0'],
  ];
}

/** Sets the security headers and the request id on every response, routed or not. */
export function registerSecurityHeaders(app: FastifyInstance, options: { hsts: boolean }): void {
  const headers = securityHeaders(options);
  app.addHook('onRequest', (request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of headers) raw.setHeader(name, value);
    reply.header('x-request-id', request.id);
    done();
  });
}
