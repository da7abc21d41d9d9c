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
    '/api/v1/gdpr/export/document',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'exportRecipientDocument',
        tags,
        summary: 'The same export as a printable HTML document to send the person (the access is audited)',
        description:
          'What POST /api/v1/gdpr/export returns, as one self-contained HTML file (no script, no external resource) in plain words: who holds the data, every credential with its badge, dates, status, the name as stored and its links, the emails about each, and the audit records about them. An attachment named subject-access-<UTC day>.html. recipientEmail is hashed with the issuer salt for the lookup and never stored.',
        body: RecipientBody,
        response: {
          200: {
            description: 'The document, an attachment',
            content: { 'text/html': { schema: Type.String() } },
          },
          ...errorResponses(400, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const document = await gdpr.exportDocument(request.issuerId(), request.actor(), request.body.recipientEmail);
      return reply
        .type('text/html; charset=utf-8')
        .header('content-disposition', document.disposition)
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(document.body);
    },
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
