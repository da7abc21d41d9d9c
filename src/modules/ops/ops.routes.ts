import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sha256Hex } from '../../core/hashing.js';
import { errorResponses, openErrors } from '../../core/schemas.js';

const READY_TIMEOUT_MS = 2_000;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The page at `/`: what the service is and where its documentation lives (the API reference, the
 * OpenAPI document, and how to embed a badge, which nothing else the service serves explains to a
 * person). Issuers without a website link their name here from the verification page.
 */
export function renderLandingPage(publicBaseUrl: string): string {
  const base = escapeHtml(publicBaseUrl);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accolade: Open Badges credentials service</title></head>
<body>
<main>
<h1>Accolade</h1>
<p>An Open Badges 2.0 credentials service: issuers issue, manage and revoke badges through its API, and
anyone can verify a badge on its verification page or through the open verification API.</p>
<ul>
<li><a href="/docs">API reference</a> (interactive)</li>
<li><a href="/openapi.json">OpenAPI document</a> (JSON)</li>
<li><a href="#embed">Embedding a live-verified badge</a></li>
<li><a href="/api/v1/trust/controls">Security controls and subprocessors</a> (JSON)</li>
</ul>
<h2 id="embed">Embedding a badge</h2>
<p>Put the script on your page once, and a <code>div</code> for each badge (its assertion URL) or for an
earner's whole wallet (their profile URL). Each is verified live when the page loads.</p>
<pre><code>&lt;div data-service-credential="ASSERTION_URL"&gt;&lt;/div&gt;
&lt;div data-service-profile="PROFILE_URL"&gt;&lt;/div&gt;
&lt;script src="${base}/embed/v1.js" async&gt;&lt;/script&gt;</code></pre>
</main>
</body>
</html>
`;
}

function tokensMatch(presented: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(sha256Hex(presented)), Buffer.from(sha256Hex(expected)));
}

/** Liveness, readiness and Prometheus metrics: exempt from rate limits, for load balancers and scrapers. */
export const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, metrics, config } = app.core;
  const landingPage = renderLandingPage(config.publicBaseUrl);

  app.get(
    '/',
    {
      schema: {
        operationId: 'getLandingPage',
        tags: ['Operations'],
        summary: 'What this service is, with links to the API reference, the OpenAPI document and the embed guide',
        response: {
          200: { description: 'The landing page', content: { 'text/html': { schema: Type.String() } } },
          ...errorResponses(...openErrors),
        },
      },
    },
    async (_request, reply) =>
      reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'none'")
        .header('cache-control', 'public, max-age=300')
        .send(landingPage),
  );

  app.get(
    '/health',
    {
      config: { rateLimitExempt: true },
      schema: {
        operationId: 'getHealth',
        tags: ['Operations'],
        summary: 'Liveness: the process is up',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    {
      config: { rateLimitExempt: true },
      schema: {
        operationId: 'getReadiness',
        tags: ['Operations'],
        summary: 'Readiness: the database answers',
        response: {
          200: Type.Object({ status: Type.Literal('ready'), checks: Type.Object({ database: Type.Literal('ok') }) }),
          503: Type.Object({
            status: Type.Literal('unavailable'),
            checks: Type.Object({ database: Type.Literal('failing') }),
          }),
        },
      },
    },
    async (_request, reply) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          database.ping(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('readiness check timed out')), READY_TIMEOUT_MS);
          }),
        ]);
        return { status: 'ready' as const, checks: { database: 'ok' as const } };
      } catch {
        reply.header('retry-after', '5');
        return reply.status(503).send({ status: 'unavailable' as const, checks: { database: 'failing' as const } });
      } finally {
        clearTimeout(timer);
      }
    },
  );

  app.get(
    '/metrics',
    {
      config: { rateLimitExempt: true },
      schema: {
        operationId: 'getMetrics',
        tags: ['Operations'],
        summary: 'Prometheus metrics (bearer METRICS_TOKEN when configured)',
        response: {
          200: { description: 'Prometheus text format', content: { 'text/plain': { schema: Type.String() } } },
          401: {
            ...errorResponses(401)[401],
            description: 'METRICS_TOKEN is set and the bearer token is missing or wrong',
          },
        },
      },
    },
    async (request, reply) => {
      if (config.metricsToken) {
        const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
        if (!match?.[1] || !tokensMatch(match[1], config.metricsToken)) {
          return reply.status(401).send({ error: 'unauthorized', message: 'The metrics token is missing or wrong.' });
        }
      }
      reply.header('content-type', metrics.registry.contentType);
      return metrics.registry.metrics();
    },
  );
};
