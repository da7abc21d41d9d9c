import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../core/errors.js';
import { errorResponses, keyedErrors, PageOffset } from '../../core/schemas.js';
import { AuditChainReport, AuditCheckpoint, AuditRecord } from './audit.schemas.js';
import type { ChainReport } from './audit.service.js';

/**
 * A chain check reads every record of the issuer: it costs this many units of the key's rate limit,
 * and concurrent checks of one issuer share one read of the log.
 */
export const AUDIT_VERIFY_COST = 10;

export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { audit } = app.services;
  const running = new Map<string, Promise<ChainReport>>();
  const verify = (issuerId: string): Promise<ChainReport> => {
    const current = running.get(issuerId);
    if (current) return current;
    const run = audit
      .verify(issuerId)
      .then(([report]) => report ?? { issuerId, records: 0, ok: true })
      .finally(() => running.delete(issuerId));
    running.set(issuerId, run);
    return run;
  };
  app.get(
    '/api/v1/audit',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listAuditRecords',
        tags: ['Audit'],
        summary: "The issuer's append-only audit records, newest first",
        description:
          'Each record carries its stripe, seq, prevHash and hash, so a client can recompute every chain (docs/audit.md).',
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
            offset: PageOffset,
            targetType: Type.Optional(
              Type.String({ minLength: 1, maxLength: 100, description: 'Only records of this target type' }),
            ),
            targetId: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description: 'Only records of this target (a credential id, ...)',
              }),
            ),
            action: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 100,
                description: 'Only records of this action (`credential.revoked`, ...)',
              }),
            ),
            actor: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description:
                  'Only records of this actor, as records name it (`key:<id>`, `user:<id>`, `cli`, `system`, ...)',
              }),
            ),
            from: Type.Optional(
              Type.String({ format: 'date-time', description: 'Only records that occurred at or after this instant' }),
            ),
            to: Type.Optional(
              Type.String({
                format: 'date-time',
                description:
                  'Only records that occurred before this instant. A `from` after `to` is refused (400); `from` equal to `to` is an empty window, as in the reports and analytics.',
              }),
            ),
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
    async (request) => {
      const { limit, offset, from, to, ...filter } = request.query;
      if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to)) {
        throw errors.validation('`from` must not be after `to`.');
      }
      return audit.list(request.issuerId(), limit, offset, {
        ...filter,
        ...(from === undefined ? {} : { from: new Date(from).toISOString() }),
        ...(to === undefined ? {} : { to: new Date(to).toISOString() }),
      });
    },
  );

  app.get(
    '/api/v1/audit/head',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getAuditHead',
        tags: ['Audit'],
        summary: "A checkpoint of the issuer's audit log: each stripe's record count and newest hash",
        description:
          'Keep it outside the service; `accolade audit verify --checkpoint FILE` later proves the log still extends it.',
        response: { 200: Type.Ref(AuditCheckpoint), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => audit.checkpoint(request.issuerId()),
  );

  app.get(
    '/api/v1/audit/verify',
    {
      config: { auth: 'key', rateLimitCost: () => AUDIT_VERIFY_COST },
      schema: {
        operationId: 'verifyAuditLog',
        tags: ['Audit'],
        summary: "Recompute the issuer's audit chains: the check `accolade audit verify` runs",
        description: `Reads every record of the issuer's stripes, recomputes each hash and holds each chain's end to its head; the first break is named. Costs ${AUDIT_VERIFY_COST} units of the rate limit; concurrent checks of one issuer share one run. Checking against a kept checkpoint is the CLI's (\`--checkpoint\`).`,
        response: { 200: Type.Ref(AuditChainReport), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => verify(request.issuerId()),
  );
};

export const auditSchemas = [AuditRecord, AuditCheckpoint, AuditChainReport];
