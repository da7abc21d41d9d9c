import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import {
  CreateDefinitionBody,
  DefinitionSchema,
  DefinitionTranslationSchema,
  PutTranslationBody,
  TranslationParams,
  UpdateDefinitionBody,
} from './definitions.schemas.js';

const Definition = Type.Ref(DefinitionSchema);
const Translation = Type.Ref(DefinitionTranslationSchema);

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

  app.get(
    '/api/v1/definitions/:id/translations',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listDefinitionTranslations',
        tags,
        summary: "The definition's translations, by language",
        description: "Each is the definition's text in one language; the definition's own language is not among them.",
        params: IdParams,
        response: { 200: Type.Array(Translation), ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) => definitions.listTranslations(request.issuerId(), request.params.id),
  );

  app.get(
    '/api/v1/definitions/:id/translations/:lang',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getDefinitionTranslation',
        tags,
        summary: "The definition's text in one language",
        description: 'lang is a BCP 47 tag (fr, de-CH); a malformed one is a 400.',
        params: TranslationParams,
        response: { 200: Translation, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) => definitions.getTranslation(request.issuerId(), request.params.id, request.params.lang),
  );

  app.put(
    '/api/v1/definitions/:id/translations/:lang',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'putDefinitionTranslation',
        tags,
        summary: "Create or replace the definition's text in one language",
        description:
          "lang is a BCP 47 tag (fr, de-CH, zh-Hant-TW), stored canonical; a malformed one, or the definition's own language, is a 400. Once a credential was issued, a change makes a new version of the definition and earlier credentials keep the text they were issued with.",
        params: TranslationParams,
        body: PutTranslationBody,
        response: { 200: Translation, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) =>
      definitions.putTranslation(
        request.issuerId(),
        request.actor(),
        request.params.id,
        request.params.lang,
        request.body,
      ),
  );

  app.delete(
    '/api/v1/definitions/:id/translations/:lang',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'deleteDefinitionTranslation',
        tags,
        summary: "Remove the definition's text in one language",
        description: "Credentials asked for in that language show the definition's own text from then on.",
        params: TranslationParams,
        response: {
          204: Type.Null({ description: 'Removed' }),
          ...errorResponses(400, 404, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      await definitions.deleteTranslation(request.issuerId(), request.actor(), request.params.id, request.params.lang);
      return reply.status(204).send(null);
    },
  );
};

export const definitionSchemas = [DefinitionSchema, DefinitionTranslationSchema];
