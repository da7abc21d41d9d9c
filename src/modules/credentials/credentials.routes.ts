import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors, quotaExceededResponse } from '../../core/schemas.js';
import { optionalBody } from '../../core/validation.js';
import { CSV_CONTENT_TYPE } from '../reports/csv.js';
import {
  CorrectNameBody,
  CredentialConflictSchema,
  CredentialDetailSchema,
  CredentialPageSchema,
  ExpiringCredentialsQuery,
  ExportCredentialsQuery,
  ExportExpiringQuery,
  IssueCredentialBody,
  IssuedCredentialSchema,
  ListCredentialsQuery,
  ReissueBody,
  RenewalReportSchema,
  RenewalsBody,
  RevokeBody,
  RevokeResultSchema,
  SearchCredentialsBody,
} from './credentials.schemas.js';
import { EXPORT_MAX_ROWS } from './credentials.service.js';
import { RENEW_AGAIN_WITHIN_DAYS } from './renewals.js';

const Issued = Type.Ref(IssuedCredentialSchema);

export const credentialRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { issuance, credentials } = app.services;
  const tags = ['Credentials'];

  app.post(
    '/api/v1/credentials',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'issueCredential',
        tags,
        summary: 'Issue a credential (idempotent on completionKey)',
        description:
          'recipientEmail is hashed with the issuer salt at once and never stored. Re-sending a known completionKey answers 200 with the existing credential and created=false. With ifAlreadyHeld "refuse", a recipient who already holds a valid credential of the definition under another key is 409 already_held, naming it.',
        body: IssueCredentialBody,
        response: {
          201: { ...Issued, description: 'Issued' },
          200: { ...Issued, description: 'Replay: the existing credential' },
          409: { ...Type.Ref(CredentialConflictSchema), description: 'already_held (ifAlreadyHeld "refuse" only)' },
          ...errorResponses(400, 404, ...keyedErrors),
          ...quotaExceededResponse,
        },
      },
    },
    async (request, reply) => {
      const outcome = await issuance.issue(request.issuerId(), request.actor(), { ...request.body, source: 'api' });
      return reply.status(outcome.created ? 201 : 200).send(issuance.toIssued(outcome));
    },
  );

  app.get(
    '/api/v1/credentials',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listCredentials',
        tags,
        summary: "The issuer's credentials, newest first",
        querystring: ListCredentialsQuery,
        response: { 200: Type.Ref(CredentialPageSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => credentials.list(request.issuerId(), request.query),
  );

  app.post(
    '/api/v1/credentials/search',
    {
      config: { auth: 'key', role: 'viewer' },
      schema: {
        operationId: 'searchCredentials',
        tags,
        summary:
          'Find credentials by recipient email (hashed for the lookup, never stored), part of the name, completion key, definition, status and time of issue',
        body: SearchCredentialsBody,
        response: { 200: Type.Ref(CredentialPageSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => credentials.search(request.issuerId(), request.body),
  );

  app.get(
    '/api/v1/credentials/export.csv',
    {
      config: { auth: 'key', role: 'viewer' },
      schema: {
        operationId: 'exportCredentialsCsv',
        tags,
        summary: 'The credentials as a CSV attachment, one line per credential (newest first)',
        description: `UTF-8 with a byte order mark (Excel reads accents right); times as YYYY-MM-DD HH:MM:SS in UTC, which Excel reads as dates. Columns: name, definition, status, issued, expires, verificationUrl. No email (none is stored). Cells that a spreadsheet would run as a formula are prefixed with '. At most ${EXPORT_MAX_ROWS} lines: narrow a larger export by status, definitionId or recipientName.`,
        querystring: ExportCredentialsQuery,
        response: {
          200: { description: 'CSV, one line per credential', content: { 'text/csv': { schema: Type.String() } } },
          ...errorResponses(400, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const csv = await credentials.exportCsv(request.issuerId(), request.query);
      return reply.type(CSV_CONTENT_TYPE).header('content-disposition', csv.disposition).send(csv.body);
    },
  );

  app.get(
    '/api/v1/credentials/expiring',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listExpiringCredentials',
        tags,
        summary: 'Unrevoked credentials expiring within the next withinDays days, soonest first',
        querystring: ExpiringCredentialsQuery,
        response: { 200: Type.Ref(CredentialPageSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => credentials.expiring(request.issuerId(), request.query),
  );

  app.get(
    '/api/v1/credentials/expiring.csv',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'exportExpiringCredentialsCsv',
        tags,
        summary: 'The credentials expiring within withinDays days as a CSV attachment, soonest first',
        description: `UTF-8 with a byte order mark; times as YYYY-MM-DD HH:MM:SS in UTC. Columns: name, definition, completionKey, issued, expires, verificationUrl. No email (none is stored). Cells that a spreadsheet would run as a formula are prefixed with '. At most ${EXPORT_MAX_ROWS} lines. The file can be sent back as it is to POST /api/v1/credentials/renewals.`,
        querystring: ExportExpiringQuery,
        response: {
          200: { description: 'CSV, one line per credential', content: { 'text/csv': { schema: Type.String() } } },
          ...errorResponses(400, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const csv = await credentials.exportExpiringCsv(request.issuerId(), request.query);
      return reply.type(CSV_CONTENT_TYPE).header('content-disposition', csv.disposition).send(csv.body);
    },
  );

  app.post(
    '/api/v1/credentials/renewals',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'renewCredentials',
        tags,
        summary: 'Renew credentials by completion key: each is reissued with an expiry counted from today',
        description: `Each credential is reissued (its original shows "Replaced by a newer credential") with the expiry its definition's validity gives from today. A key whose credential was replaced before follows its replacements to the newest, which is renewed once it falls due (it expires within ${RENEW_AGAIN_WITHIN_DAYS} days and over half its validity has passed), so a roster of original keys renews year after year. One report row per key: renewed, already_renewed (the newest replacement is not due yet: it is named, nothing new is issued) or error (unknown key, revoked, archived definition, quota). Sending the same keys again renews nothing twice.`,
        body: RenewalsBody,
        response: { 200: Type.Ref(RenewalReportSchema), ...errorResponses(400, 422, ...keyedErrors) },
      },
    },
    async (request) => credentials.renew(request.issuerId(), request.actor(), request.body),
  );

  app.get(
    '/api/v1/credentials/:id',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getCredential',
        tags,
        summary: 'One credential with its effective status',
        params: IdParams,
        response: { 200: Type.Ref(CredentialDetailSchema), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request) => credentials.get(request.issuerId(), request.params.id),
  );

  app.post(
    '/api/v1/credentials/:id/revoke',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'revokeCredential',
        tags,
        summary: 'Revoke a credential (repeating it changes nothing)',
        params: IdParams,
        body: optionalBody(RevokeBody),
        response: { 200: Type.Ref(RevokeResultSchema), ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) =>
      credentials.revoke(request.issuerId(), request.actor(), request.params.id, request.body?.reason ?? null),
  );

  app.post(
    '/api/v1/credentials/:id/reissue',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'reissueCredential',
        tags,
        summary: 'Issue a fresh credential replacing this one (the original is revoked as "reissued")',
        params: IdParams,
        body: optionalBody(ReissueBody),
        response: {
          201: { ...Issued, description: 'Reissued' },
          200: {
            ...Issued,
            description: 'Replay: the credential of a known completionKey or, without one, the existing replacement',
          },
          ...errorResponses(400, 404, ...keyedErrors),
          ...quotaExceededResponse,
        },
      },
    },
    async (request, reply) => {
      const outcome = await credentials.reissue(
        request.issuerId(),
        request.actor(),
        request.params.id,
        request.body ?? {},
      );
      return reply.status(outcome.created ? 201 : 200).send(credentials.toIssued(outcome));
    },
  );

  app.post(
    '/api/v1/credentials/:id/correct-name',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'correctCredentialName',
        tags,
        summary:
          'Correct the earner name: a replacement carrying the new name (the original shows "Replaced by a newer credential")',
        description:
          "Issues a replacement with the name given and the original's dates, and revokes the original with reason reissued, linked both ways (replaces, replacedBy) like a reissue. notify with the earner's recipientEmail emails them the corrected credential. Repeating the same correction replays. 409 credential_replaced: the credential was already replaced (credentialId names the newest); 409 credential_revoked: a revoked credential is not corrected.",
        params: IdParams,
        body: CorrectNameBody,
        response: {
          201: { ...Issued, description: 'Corrected: the replacement' },
          200: { ...Issued, description: 'Replay: the replacement already carrying this name' },
          409: { ...Type.Ref(CredentialConflictSchema), description: 'credential_replaced or credential_revoked' },
          ...errorResponses(400, 404, ...keyedErrors),
          ...quotaExceededResponse,
        },
      },
    },
    async (request, reply) => {
      const outcome = await credentials.correctName(
        request.issuerId(),
        request.actor(),
        request.params.id,
        request.body,
      );
      return reply.status(outcome.created ? 201 : 200).send(credentials.toIssued(outcome));
    },
  );
};
