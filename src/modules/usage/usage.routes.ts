import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors, Nullable } from '../../core/schemas.js';

const UsageSummary = Type.Object(
  {
    planCode: Type.String(),
    issuanceQuota: Type.Optional(Nullable(Type.Integer({ description: 'null means unlimited' }))),
    issuanceUsed: Type.Integer(),
    issuanceRemaining: Type.Optional(Nullable(Type.Integer())),
    premiumVerification: Type.Boolean(),
    periodStart: Type.String({ format: 'date-time', description: 'Start of the calendar month (UTC)' }),
    metering: Type.Object({ issuance: Type.Integer(), premiumVerification: Type.Integer() }),
    generatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'UsageSummary' },
);

export const usageSchemas = [UsageSummary];

export const usageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { usage } = app.services;
  app.get(
    '/api/v1/usage',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getUsage',
        tags: ['Usage'],
        summary: "The plan, this month's issuance against its quota, and metering",
        response: { 200: Type.Ref(UsageSummary), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => usage.summary(request.issuerId()),
  );
};
