import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors } from '../../core/schemas.js';
import { ImportBatchDetailSchema, ImportBatchPageSchema, ListImportsQuery } from './import-history.schemas.js';

export const importHistoryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { history } = app.services.ingest;
  const tags = ['Ingest'];

  app.get(
    '/api/v1/ingest/imports',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listImports',
        tags,
        summary: "The issuer's import history: CSV imports and connector calls, newest first",
        description:
          'Dry runs are not kept. Each batch keeps its counts; `GET /api/v1/ingest/imports/{id}` adds its report.',
        querystring: ListImportsQuery,
        response: { 200: Type.Ref(ImportBatchPageSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => history.list(request.issuerId(), request.query.limit, request.query.offset),
  );

  app.get(
    '/api/v1/ingest/imports/:id',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getImport',
        tags,
        summary: 'One import batch: its counts and the entries it did not issue cleanly',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Type.Ref(ImportBatchDetailSchema), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request) => history.get(request.issuerId(), request.params.id),
  );
};
