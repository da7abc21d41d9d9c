import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors, openErrors } from '../../core/schemas.js';
import { CreateProfileBody, EarnerProfileSchema, ProfileCreatedSchema } from './verification.schemas.js';

const ProfileCreated = Type.Ref(ProfileCreatedSchema);

export const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { profiles } = app.services;
  const tags = ['Verification'];

  app.post(
    '/api/v1/profiles',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'createEarnerProfile',
        tags,
        summary: "Create (or get) the recipient's public earner profile",
        description:
          'recipientEmail is hashed with the issuer salt at once and never stored. A recipient has one profile per issuer: asking again answers 200 with the same link.',
        body: CreateProfileBody,
        response: {
          201: { ...ProfileCreated, description: 'Created' },
          200: { ...ProfileCreated, description: 'The existing profile' },
          ...errorResponses(400, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { created, profile } = await profiles.create(
        request.issuerId(),
        request.actor(),
        request.body.recipientEmail,
      );
      return reply.status(created ? 201 : 200).send(profile);
    },
  );

  app.delete(
    '/api/v1/profiles/:id',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'deleteEarnerProfile',
        tags,
        summary: 'Delete an earner profile (its link stops working)',
        params: IdParams,
        response: {
          204: Type.Null({ description: 'Deleted' }),
          ...errorResponses(404, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      await profiles.delete(request.issuerId(), request.actor(), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/v1/profiles/:id',
    {
      schema: {
        operationId: 'getEarnerProfile',
        tags,
        summary: "An earner's public profile: partial name and live assertion URLs",
        params: IdParams,
        response: { 200: Type.Ref(EarnerProfileSchema), ...errorResponses(404, ...openErrors) },
      },
    },
    async (request) => profiles.getPublic(request.params.id),
  );
};
