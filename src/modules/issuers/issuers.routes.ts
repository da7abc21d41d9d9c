import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors } from '../../core/schemas.js';
import { IssuerSchema } from './issuers.schemas.js';

export const issuerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { issuers } = app.services;

  app.get(
    '/api/v1/issuer/me',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getIssuerMe',
        tags: ['Issuer'],
        summary: 'The issuer the API key belongs to',
        response: { 200: Type.Ref(IssuerSchema), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => {
      const issuer = await issuers.getIssuer(request.issuerId());
      return { id: issuer.id, slug: issuer.slug, name: issuer.name, profileUrl: issuers.profileUrl(issuer.slug) };
    },
  );
};
