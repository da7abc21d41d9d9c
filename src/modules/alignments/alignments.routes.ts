import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import { AlignmentSchema, CreateAlignmentBody } from './alignments.schemas.js';

const Alignment = Type.Ref(AlignmentSchema);

export const alignmentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { alignments } = app.services;
  const tags = ['Alignments'];

  app.post(
    '/api/v1/definitions/:id/alignments',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'createAlignment',
        tags,
        summary: 'Align a definition with a framework target (shown in its BadgeClass `alignment`)',
        params: IdParams,
        body: CreateAlignmentBody,
        response: { 201: Alignment, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await alignments.create(request.issuerId(), request.actor(), request.params.id, request.body)),
  );

  app.get(
    '/api/v1/definitions/:id/alignments',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listAlignments',
        tags,
        summary: "A definition's alignments in creation order (empty for an unknown definition)",
        params: IdParams,
        response: { 200: Type.Array(Alignment), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => alignments.list(request.issuerId(), request.params.id),
  );
};
