import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorResponses, openErrors } from '../../core/schemas.js';
import type { SignedIn } from './session.types.js';
import { CompleteSetupBody, SetupInfo, SetupParams, SetupResult } from './setup.schemas.js';

const TAGS = ['Console'];

/** The first start's set-up (setup.service.ts): open routes, good only through the printed link. */
export const setupRoutes: FastifyPluginAsyncTypebox<{
  startSession: (
    request: FastifyRequest,
    reply: FastifyReply,
    session: SignedIn,
  ) => { user: SignedIn['user']; csrfToken: string };
}> = async (app, options) => {
  const { setup } = app.services;

  app.get(
    '/api/v1/setup/:token',
    {
      schema: {
        operationId: 'getSetup',
        tags: TAGS,
        summary: 'Whether a first-start set-up link is open',
        description:
          'The link printed on the first start of an empty embedded database. 404 once any issuer exists, for an unknown token, and on PostgreSQL.',
        params: SetupParams,
        response: { 200: SetupInfo, ...errorResponses(404, ...openErrors) },
      },
    },
    async (request) => setup.check(request.params.token),
  );

  app.post(
    '/api/v1/setup/:token',
    {
      schema: {
        operationId: 'completeSetup',
        tags: TAGS,
        summary: 'Set up the first organisation and its owner, and sign the owner in',
        description:
          'Creates the organisation (its slug is in every credential URL; it can change until the first credential exists), invites its first owner and signs them in (session cookie). sampleData also creates the demo issuer beside it and answers its API key once. The link is spent by the first success; 409 slug_taken and 400 keep it open.',
        params: SetupParams,
        body: CompleteSetupBody,
        response: { 200: SetupResult, ...errorResponses(400, 404, 409, ...openErrors) },
      },
    },
    async (request, reply) => {
      const outcome = await setup.complete(request.params.token, request.body);
      return {
        ...options.startSession(request, reply, outcome.signedIn),
        issuerSlug: outcome.issuerSlug,
        sample: outcome.sample,
      };
    },
  );
};
