import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors, quotaExceededResponse } from '../../core/schemas.js';
import { IngestCompletionBody, IngestResultSchema } from './completions.schemas.js';

const Result = Type.Ref(IngestResultSchema);

export const completionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { completions } = app.services.ingest;

  app.post(
    '/api/v1/ingest/completions',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'ingestCompletion',
        tags: ['Ingest'],
        summary: 'Issue the credential one completion earns (idempotent)',
        description:
          'definitionId, else definitionRef (slug, else case-insensitive name). Without a completionKey the auto: key applies: one credential per person and definition. 422 ingest_failed when the definition cannot be resolved or is archived, or issuedOn lies in the future.',
        body: IngestCompletionBody,
        response: {
          201: { ...Result, description: 'Issued' },
          200: { ...Result, description: 'Already issued: the existing credential (outcome skipped)' },
          ...errorResponses(400, 422, ...keyedErrors),
          ...quotaExceededResponse,
        },
      },
    },
    async (request, reply) => {
      const result = await completions.ingest(request.issuerId(), request.actor(), request.body);
      return reply.status(result.created ? 201 : 200).send(result);
    },
  );
};
