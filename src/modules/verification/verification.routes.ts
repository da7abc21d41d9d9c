import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { errors } from '../../core/errors.js';
import { strictJsonParser } from '../../core/json-body.js';
import { JSONLD_BASE_VALUES, JSONLD_VALUES_PER_UNIT, jsonLdCost, measureJsonLd } from '../../core/jsonld-budget.js';
import { BULK_IDS_PER_UNIT } from '../../core/rate-limit.js';
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
 * A credential's signature is checked (a credential given as JSON is canonicalised first, a VC-JWT's
 * key is looked up): up to a few milliseconds of CPU where an id is one indexed read, so a credential
 * or a VC-JWT costs this many requests of the rate limit, singly or in a bulk call.
 */
export const CREDENTIAL_VERIFY_COST = 10;
/**
 * The most VC-JWTs one bulk call takes: priced at CREDENTIAL_VERIFY_COST each, they stay within one
 * minute of the default open limit (300) with the rest of the call's ids.
 */
export const MAX_BULK_JWTS = 25;

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
  if (isPresentedCredential(request)) return { credential: body as Record<string, unknown> };
  const { id, lang } = body as { id: string; lang?: string };
  return lang === undefined ? { id } : { id, lang };
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

  /**
   * A credential under application/vc costs CREDENTIAL_VERIFY_COST and more as it holds more values
   * (core/jsonld-budget.ts; one past the budget is refused by the service, before any JSON-LD step);
   * an id that is a VC-JWT costs CREDENTIAL_VERIFY_COST; any other id 1.
   */
  const singleCost = (request: FastifyRequest) => {
    if (isPresentedCredential(request)) {
      const measured = measureJsonLd(request.body);
      return 'work' in measured ? jsonLdCost(measured.work, CREDENTIAL_VERIFY_COST) : CREDENTIAL_VERIFY_COST;
    }
    const id = (request.body as { id?: unknown } | null)?.id;
    return typeof id === 'string' && verify.checksSignature(id) ? CREDENTIAL_VERIFY_COST : 1;
  };
  /** The VC-JWTs among a bulk call's ids (before validation too: anything but a string is left to the schema). */
  const bulkJwts = (ids: unknown) =>
    Array.isArray(ids) ? ids.filter((id) => typeof id === 'string' && verify.checksSignature(id)).length : 0;
  /** Each VC-JWT costs CREDENTIAL_VERIFY_COST, the other ids one unit per BULK_IDS_PER_UNIT (rounded up); at least 1. */
  const bulkCost = (request: FastifyRequest) => {
    const ids = (request.body as { ids?: unknown } | null)?.ids;
    if (!Array.isArray(ids)) return 1;
    const jwts = bulkJwts(ids);
    return Math.max(1, jwts * CREDENTIAL_VERIFY_COST + Math.ceil((ids.length - jwts) / BULK_IDS_PER_UNIT));
  };
  /** More than MAX_BULK_JWTS VC-JWTs: a 400 before anything is charged or checked. */
  const refuseManyJwts = async (request: FastifyRequest) => {
    const jwts = bulkJwts((request.body as { ids?: unknown } | null)?.ids);
    if (jwts <= MAX_BULK_JWTS) return;
    const message = `must hold at most ${MAX_BULK_JWTS} VC-JWTs (each has its signature checked); ${jwts} were given`;
    throw errors.validation(`ids ${message}.`, [{ path: '/ids', message, code: 'maxJwts' }]);
  };

  app.addContentTypeParser(VC_MEDIA_TYPE, { parseAs: 'buffer' }, strictJsonParser(app));

  app.post(
    '/api/v1/verify',
    {
      config: { rateLimitCost: singleCost },
      schema: {
        operationId: 'verifyCredential',
        tags,
        summary: 'Verify one assertion (open)',
        description:
          'id is the assertion URL or the bare credential id. An id of another host, a malformed id or an unknown one answers 200 with authentic=false and status unknown. With Content-Type application/vc, the body is instead an Open Badges 3.0 credential of this service as JSON: its Data Integrity proof is checked with the issuer keys this service publishes; a changed field, another issuer or a foreign DID answers authentic=false and status unknown; more than one proof answers 400. An id that is a VC-JWT costs ' +
          `${CREDENTIAL_VERIFY_COST} requests of the open rate limit (its signature is checked); a credential costs ${CREDENTIAL_VERIFY_COST} ` +
          `plus one per ${JSONLD_VALUES_PER_UNIT} values past ${JSONLD_BASE_VALUES} (objects and arrays weigh eight, 64 bytes of strings one), as its JSON-LD ` +
          'processing grows with them, and is refused with 400 past the limits of its schema before any is done; any other id costs 1.',
        body: verifyBody,
        response: { 200: Result, ...errorResponses(400, ...openErrors) },
      },
    },
    async (request) => verify.verifyAny(verifyRequest(request), verifier(request)),
  );

  app.post(
    '/api/v1/verify/bulk',
    {
      config: { rateLimitCost: bulkCost },
      preValidation: refuseManyJwts,
      schema: {
        operationId: 'verifyCredentialsBulk',
        tags,
        summary: 'Verify up to 1,000 assertions in one call (open); results in request order',
        description:
          `Each VC-JWT among the ids costs ${CREDENTIAL_VERIFY_COST} requests of the rate limit (its signature is checked, as ` +
          `for a single verify), and a call takes at most ${MAX_BULK_JWTS} of them (more answer 400); the other ids ` +
          `cost one request per ${BULK_IDS_PER_UNIT}, rounded up.`,
        body: BulkVerifyBody,
        response: { 200: Type.Ref(BulkVerifyResultSchema), ...errorResponses(400, ...openErrors) },
      },
    },
    async (request) => verify.verifyBulk(request.body.ids, verifier(request), request.body.lang),
  );

  app.post(
    '/api/v1/verify/premium',
    {
      config: { auth: 'key', rateLimitCost: singleCost },
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
