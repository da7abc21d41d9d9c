import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import {
  AddStageBody,
  CreatePathwayBody,
  PathwayProgressSchema,
  PathwaySchema,
  PathwayStageSchema,
  PathwayWithStagesSchema,
  ProgressBody,
  UpdatePathwayBody,
} from './pathways.schemas.js';

const Pathway = Type.Ref(PathwaySchema);

export const pathwayRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { pathways } = app.services;
  const tags = ['Pathways'];

  app.post(
    '/api/v1/pathways',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'createPathway',
        tags,
        summary: 'Create a pathway (a staged set of definitions)',
        body: CreatePathwayBody,
        response: { 201: Pathway, ...errorResponses(400, 409, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await pathways.create(request.issuerId(), request.actor(), request.body)),
  );

  app.get(
    '/api/v1/pathways',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listPathways',
        tags,
        summary: "The issuer's pathways, oldest first",
        response: { 200: Type.Array(Pathway), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => pathways.list(request.issuerId()),
  );

  app.get(
    '/api/v1/pathways/:id',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getPathway',
        tags,
        summary: 'One pathway with its stages in step order',
        params: IdParams,
        response: { 200: Type.Ref(PathwayWithStagesSchema), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request) => pathways.get(request.issuerId(), request.params.id),
  );

  app.patch(
    '/api/v1/pathways/:id',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'updatePathway',
        tags,
        summary: 'Rename, redescribe, archive or reactivate a pathway (the slug is permanent)',
        params: IdParams,
        body: UpdatePathwayBody,
        response: { 200: Pathway, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) => pathways.update(request.issuerId(), request.actor(), request.params.id, request.body),
  );

  app.post(
    '/api/v1/pathways/:id/stages',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'addPathwayStage',
        tags,
        summary: 'Add a definition of this issuer as a stage (once per definition)',
        params: IdParams,
        body: AddStageBody,
        response: { 201: Type.Ref(PathwayStageSchema), ...errorResponses(400, 404, 409, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await pathways.addStage(request.issuerId(), request.actor(), request.params.id, request.body)),
  );

  app.post(
    '/api/v1/pathways/:id/progress',
    {
      config: { auth: 'key', role: 'viewer' },
      schema: {
        operationId: 'getPathwayProgress',
        tags,
        summary: "A recipient's progress: which stages they hold a currently valid credential for",
        description: 'recipientEmail is hashed with the issuer salt for the lookup and never stored.',
        params: IdParams,
        body: ProgressBody,
        response: { 200: Type.Ref(PathwayProgressSchema), ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) => pathways.progress(request.issuerId(), request.params.id, request.body.recipientEmail),
  );
};
