import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { BULK_IDS_PER_UNIT, costPerItems } from '../../core/rate-limit.js';
import { errorResponses, keyedErrors, openErrors } from '../../core/schemas.js';
import {
  BulkVerifyBody,
  BulkVerifyResultSchema,
  VerificationResultSchema,
  VerifyBody,
  type VerifyRequest,
} from './verification.schemas.js';

const Result = Type.Ref(VerificationResultSchema);

/**
 * A credential given as JSON is canonicalised and its signature checked: a few milliseconds of CPU
 * where an id is one indexed read, so it costs that many requests of the rate limit.
 */
const JSON_VERIFY_COST = 10;
const credentialCost = (request: FastifyRequest) =>
  request.body !== null && typeof request.body === 'object' && 'credential' in request.body ? JSON_VERIFY_COST : 1;

export const verificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { verify, verifier } = app.services.verification;
  const tags = ['Verification'];

  app.post(
    '/api/v1/verify',
    {
      config: { rateLimitCost: credentialCost },
      schema: {
        operationId: 'verifyCredential',
        tags,
        summary: 'Verify one assertion (open)',
        description:
          'id is the assertion URL or the bare credential id. An id of another host, a malformed id or an unknown one answers 200 with authentic=false and status unknown. Instead of id, credential may give an Open Badges 3.0 credential of this service as JSON: its Data Integrity proof is checked with the issuer keys this service publishes; a changed field, another issuer or a foreign DID answers authentic=false and status unknown. A credential costs ' +
          `${JSON_VERIFY_COST} requests of the open rate limit.`,
        body: VerifyBody,
        response: { 200: Result, ...errorResponses(400, ...openErrors) },
      },
    },
    async (request) => verify.verifyAny(request.body as VerifyRequest, verifier(request)),
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
      config: { auth: 'key', rateLimitCost: credentialCost },
      schema: {
        operationId: 'verifyCredentialPremium',
        tags,
        summary: 'Verify one assertion with the API key (plans with premium verification; metered)',
        description: 'The body of /api/v1/verify: an id, or an Open Badges 3.0 credential as JSON.',
        body: VerifyBody,
        response: { 200: Result, ...errorResponses(400, 402, ...keyedErrors) },
      },
    },
    async (request) => verify.verifyPremium(request.issuerId(), request.body as VerifyRequest, verifier(request)),
  );
};
