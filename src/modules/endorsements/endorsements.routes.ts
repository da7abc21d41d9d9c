import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import { CreateEndorsementBody, EndorsementSchema, type EndorsementTargetType } from './endorsements.schemas.js';

const Endorsement = Type.Ref(EndorsementSchema);

/** The same four operations exist for definitions and for credentials. */
const targets: { targetType: EndorsementTargetType; path: string; noun: string; suffix: string }[] = [
  { targetType: 'definition', path: '/api/v1/definitions/:id/endorsements', noun: 'definition', suffix: 'Definition' },
  { targetType: 'credential', path: '/api/v1/credentials/:id/endorsements', noun: 'credential', suffix: 'Credential' },
];

export const endorsementRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { endorsements } = app.services;
  const tags = ['Endorsements'];

  for (const { targetType, path, noun, suffix } of targets) {
    app.post(
      path,
      {
        config: { auth: 'key' },
        schema: {
          operationId: `endorse${suffix}`,
          tags,
          summary: `Endorse a ${noun}; the endorsement is hosted as an Open Badges 2.0 Endorsement`,
          params: IdParams,
          body: CreateEndorsementBody,
          response: { 201: Endorsement, ...errorResponses(400, 404, ...keyedErrors) },
        },
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(
            await endorsements.create(request.issuerId(), request.actor(), targetType, request.params.id, request.body),
          ),
    );

    app.get(
      path,
      {
        config: { auth: 'key' },
        schema: {
          operationId: `list${suffix}Endorsements`,
          tags,
          summary: `A ${noun}'s endorsements in creation order (empty for an unknown ${noun})`,
          params: IdParams,
          response: { 200: Type.Array(Endorsement), ...errorResponses(...keyedErrors) },
        },
      },
      async (request) => endorsements.list(request.issuerId(), targetType, request.params.id),
    );
  }
};
