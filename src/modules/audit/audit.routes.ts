import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors, PageOffset } from '../../core/schemas.js';

const AuditRecord = Type.Object(
  {
    id: Type.String(),
    seq: Type.Integer(),
    occurredAt: Type.String({ format: 'date-time' }),
    actor: Type.String({ description: 'API key id, `cli` or `system`' }),
    action: Type.String(),
    targetType: Type.String(),
    targetId: Type.String(),
    details: Type.Object({}, { additionalProperties: true }),
    hash: Type.String({ description: 'SHA-256 chain hash of this record' }),
  },
  { $id: 'AuditRecord' },
);

export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { audit } = app.services;
  app.get(
    '/api/v1/audit',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listAuditRecords',
        tags: ['Audit'],
        summary: "The issuer's append-only audit records, newest first",
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
            offset: PageOffset,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            total: Type.Integer(),
            limit: Type.Integer(),
            offset: Type.Integer(),
            items: Type.Array(Type.Ref(AuditRecord)),
          }),
          ...errorResponses(400, ...keyedErrors),
        },
      },
    },
    async (request) => audit.list(request.issuerId(), request.query.limit, request.query.offset),
  );
};

export const auditSchemas = [AuditRecord];
