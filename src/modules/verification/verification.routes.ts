import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { BULK_IDS_PER_UNIT, costPerItems } from '../../core/rate-limit.js';
import { errorResponses, keyedErrors, openErrors } from '../../core/schemas.js';
import {
  BulkVerifyBody,
  BulkVerifyResultSchema,
  VerificationResultSchema,
  VerifyBody,
} from './verification.schemas.js';

const Result = Type.Ref(VerificationResultSchema);

export const verificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { verify, verifier } = app.services.verification;
  const tags = ['Verification'];

  app.post(
    '/api/v1/verify',
    {
      schema: {
        operationId: 'verifyCredential',
        tags,
        summary: 'Verify one assertion (open)',
        description:
          'id is the assertion URL or the bare credential id. An id of another host, a malformed id or an unknown one answers 200 with authentic=false and status unknown.',
        body: VerifyBody,
        response: { 200: Result, ...errorResponses(400, ...openErrors) },
      },
    },
    async (request) => verify.verify(request.body.id, verifier(request)),
  );

  app.post(
    '/api/v1/verify/bulk',
    {
      config: { rateLimitCost: costPerItems('ids', BULK_IDS_PER_UNIT) },
      schema: {
        operationId: 'verifyCredentialsBulk',
        tags,
        summary: 'Verify up to 1,000 assertions in one call (open); results in request order',
        body: BulkVerifyBody,
        response: { 200: Type.Ref(BulkVerifyResultSchema), ...errorResponses(400, ...openErrors) },
      },
    },
    async (request) => verify.verifyBulk(request.body.ids, verifier(request)),
  );

  app.post(
    '/api/v1/verify/premium',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'verifyCredentialPremium',
        tags,
        summary: 'Verify one assertion with the API key (plans with premium verification; metered)',
        body: VerifyBody,
        response: { 200: Result, ...errorResponses(400, 402, ...keyedErrors) },
      },
    },
    async (request) => verify.verifyPremium(request.issuerId(), request.body.id, verifier(request)),
  );
};
