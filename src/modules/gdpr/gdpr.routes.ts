import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors } from '../../core/schemas.js';
import { RecipientBody, RecipientErasureSchema, RecipientExportSchema } from './gdpr.schemas.js';

export const gdprRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { gdpr } = app.services;
  const tags = ['GDPR'];

  app.post(
    '/api/v1/gdpr/export',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'exportRecipientData',
        tags,
        summary: 'Everything held about one recipient at this issuer (the access is audited)',
        description: 'recipientEmail is hashed with the issuer salt for the lookup and never stored.',
        body: RecipientBody,
        response: { 200: Type.Ref(RecipientExportSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => gdpr.export(request.issuerId(), request.actor(), request.body.recipientEmail),
  );

  app.post(
    '/api/v1/gdpr/erase',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'eraseRecipientData',
        tags,
        summary: 'Erase a recipient: revoke their credentials, forget their name, delete their earner profiles',
        description:
          'One transaction. Credentials are revoked with reason gdpr_erasure and kept (with the salted hash) along with the audit trail; repeating it revokes nothing more.',
        body: RecipientBody,
        response: { 200: Type.Ref(RecipientErasureSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => gdpr.erase(request.issuerId(), request.actor(), request.body.recipientEmail),
  );
};
