import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, openErrors } from '../../core/schemas.js';
import { TrustControlsSchema } from './trust.schemas.js';

export const trustRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { trust } = app.services;
  app.get(
    '/api/v1/trust/controls',
    {
      schema: {
        operationId: 'getTrustControls',
        tags: ['Trust'],
        summary: 'Security controls with their evidence, subprocessors and service objectives (open)',
        response: { 200: Type.Ref(TrustControlsSchema), ...errorResponses(...openErrors) },
      },
    },
    async () => trust.controls(),
  );
};
