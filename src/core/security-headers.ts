import type { FastifyInstance } from 'fastify';

export type Headers = readonly (readonly [string, string])[];

/**
 * The security headers of every response: no MIME sniffing, no framing, a cross-origin resource
 * policy (badges and documents are embedded and fetched from other origins) and, behind TLS, HSTS.
 * These are the headers the OWASP REST Security Cheat Sheet asks of an API response.
 */
export function responseHeaders(options: { hsts: boolean }): Headers {
  return [
    ['Cross-Origin-Resource-Policy', 'cross-origin'],
    ...(options.hsts ? [['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'] as const] : []),
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Frame-Options', 'SAMEORIGIN'],
  ];
}

/**
 * The rest of helmet's defaults (CSP is left to the routes that serve HTML, SVG or scripts, each
 * with its own policy), in helmet's names. A browser applies each of them to a document it renders
 * only (opener isolation, agent clusters, the referrer its links send, DNS prefetching, IE's
 * download prompt, Adobe's cross-domain policies, the old XSS auditor), so a JSON answer does not
 * carry them: about half of its header bytes, which every client parses on every call.
 */
export const DOCUMENT_HEADERS: Headers = [
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/** JSON and JSON-LD (`application/json`, `application/ld+json`, any `+json`): never rendered as a document. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Sets `headers` (`responseHeaders`) and the request id on every response the router answers, and
 * the document headers on every response that is not JSON (HTML, SVG, scripts, an empty answer).
 * They never vary by request, so they are built once and written straight onto the response:
 * building helmet's middleware per request cost more than a bare route's whole answer.
 */
export function registerSecurityHeaders(app: FastifyInstance, headers: Headers): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of headers) raw.setHeader(name, value);
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !JSON_TYPE.test(type)) {
      const raw = reply.raw;
      for (const [name, value] of DOCUMENT_HEADERS) raw.setHeader(name, value);
    }
    done(null, payload);
  });
}
