import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sha256Hex } from '../../core/hashing.js';
import { errorResponses } from '../../core/schemas.js';

const READY_TIMEOUT_MS = 2_000;

function tokensMatch(presented: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(sha256Hex(presented)), Buffer.from(sha256Hex(expected)));
}

/** Liveness, readiness and Prometheus metrics: exempt from rate limits, for load balancers and scrapers. */
export const opsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, metrics, config } = app.core;

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
