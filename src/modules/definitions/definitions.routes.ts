import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import { CreateDefinitionBody, DefinitionSchema, UpdateDefinitionBody } from './definitions.schemas.js';

const Definition = Type.Ref(DefinitionSchema);

export const definitionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { definitions } = app.services;
  const tags = ['Definitions'];

  app.post(
    '/api/v1/definitions',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'createDefinition',
        tags,
        summary: 'Create a credential definition (BadgeClass)',
        body: CreateDefinitionBody,
        response: { 201: Definition, ...errorResponses(400, 409, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await definitions.create(request.issuerId(), request.actor(), request.body)),
  );

  app.get(
    '/api/v1/definitions',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listDefinitions',
        tags,
        summary: "The issuer's credential definitions",
        response: { 200: Type.Array(Definition), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => definitions.list(request.issuerId()),
  );

  app.get(
    '/api/v1/definitions/:id',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getDefinition',
        tags,
        summary: 'One credential definition',
        params: IdParams,
        response: { 200: Definition, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) => definitions.get(request.issuerId(), request.params.id),
  );

  app.patch(
    '/api/v1/definitions/:id',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'updateDefinition',
        tags,
        summary: 'Change optional fields or archive/reactivate a definition (the slug is permanent)',
        params: IdParams,
        body: UpdateDefinitionBody,
        response: { 200: Definition, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) => definitions.update(request.issuerId(), request.actor(), request.params.id, request.body),
  );
};

export const definitionSchemas = [DefinitionSchema];
