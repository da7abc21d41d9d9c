import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { errors } from '../../core/errors.js';
import { BULK_IDS_PER_UNIT, costPerItems } from '../../core/rate-limit.js';
import { errorResponses, keyedErrors, openErrors } from '../../core/schemas.js';
import {
  BulkVerifyBody,
  BulkVerifyResultSchema,
  PresentedCredential,
  VerificationResultSchema,
  VerifyBody,
  type VerifyRequest,
} from './verification.schemas.js';

const Result = Type.Ref(VerificationResultSchema);

/**
 * VC Data Model 2.0's media type for a credential secured by an embedded proof. A body of this type is
 * the credential itself; `application/json` keeps the interface's body (`id`) exactly as written.
 */
const VC_MEDIA_TYPE = 'application/vc';
const isPresentedCredential = (request: FastifyRequest) =>
  request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() === VC_MEDIA_TYPE;

/**
 * A credential is canonicalised and its signature checked: a few milliseconds of CPU where an id is
 * one indexed read, so it costs that many requests of the rate limit.
 */
const JSON_VERIFY_COST = 10;
const credentialCost = (request: FastifyRequest) => (isPresentedCredential(request) ? JSON_VERIFY_COST : 1);

/**
 * The verify service's question: the credential under application/vc, else the `{ id }` body. Fastify
 * validates a body against the schema of its content type, so a request with no body at all reaches
 * here unvalidated and is refused here.
 */
function verifyRequest(request: FastifyRequest): VerifyRequest {
  const body = request.body;
  if (body === null || typeof body !== 'object') {
    throw errors.validation('The body must be a JSON object with an id.', [
      { path: '', message: 'must be object', code: 'type' },
    ]);
  }
  return isPresentedCredential(request)
    ? { credential: body as Record<string, unknown> }
    : { id: (body as { id: string }).id };
}

/** Either body of /api/v1/verify and /api/v1/verify/premium. */
const verifyBody = {
  content: {
    'application/json': { schema: VerifyBody },
    [VC_MEDIA_TYPE]: { schema: PresentedCredential },
  },
};

export const verificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { verify, verifier } = app.services.verification;
  const tags = ['Verification'];
  app.addContentTypeParser(VC_MEDIA_TYPE, { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));

  app.post(
    '/api/v1/verify',
    {
      config: { rateLimitCost: credentialCost },
      schema: {
        operationId: 'verifyCredential',
        tags,
        summary: 'Verify one assertion (open)',
        description:
          'id is the assertion URL or the bare credential id. An id of another host, a malformed id or an unknown one answers 200 with authentic=false and status unknown. With Content-Type application/vc, the body is instead an Open Badges 3.0 credential of this service as JSON: its Data Integrity proof is checked with the issuer keys this service publishes; a changed field, another issuer or a foreign DID answers authentic=false and status unknown. A credential costs ' +
          `${JSON_VERIFY_COST} requests of the open rate limit.`,
        body: verifyBody,
        response: { 200: Result, ...errorResponses(400, ...openErrors) },
      },
    },
    async (request) => verify.verifyAny(verifyRequest(request), verifier(request)),
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
        description: 'The body of /api/v1/verify: an id, or (application/vc) an Open Badges 3.0 credential.',
        body: verifyBody,
        response: { 200: Result, ...errorResponses(400, 402, ...keyedErrors) },
      },
    },
    async (request) => verify.verifyPremium(request.issuerId(), verifyRequest(request), verifier(request)),
  );
};
