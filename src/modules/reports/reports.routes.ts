import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors } from '../../core/schemas.js';
import { CSV_CONTENT_TYPE } from './csv.js';
import { IssuanceReportSchema, IssuerAnalyticsSchema, WindowQuery } from './reports.schemas.js';

const csvResponse = (description: string) => ({
  description,
  content: { 'text/csv': { schema: Type.String() } },
});

const windowDescription =
  'The window is from <= t < to. A window longer than 366 days, or with from later than to, is refused (400).';
const eventsDescription =
  'Verifications and shares are counted as soon as the server that answered them has written them: at once when that is the server answering this call, otherwise within about a second (each server writes its events every 100 ms).';

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { issuance, analytics } = app.services.reports;
  const tags = ['Reports and analytics'];

  app.get(
    '/api/v1/reports/issuance',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getIssuanceReport',
        tags,
        summary: 'Issuance report: credentials by status, issuance, verifications and imports',
        description: `Status counts are all-time snapshots; issuedInWindow, verifies, channels and imports count the window (unbounded on a side left out). ${windowDescription}`,
        querystring: WindowQuery,
        response: { 200: Type.Ref(IssuanceReportSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => issuance.report(request.issuerId(), request.query),
  );

  app.get(
    '/api/v1/reports/issuance.csv',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getIssuanceReportCsv',
        tags,
        summary: 'The issuance report per definition as a CSV attachment',
        description: `Columns: definitionId, name, slug, issued, valid, expired, revoked, verifies. ${windowDescription}`,
        querystring: WindowQuery,
        response: { 200: csvResponse('CSV, one line per definition'), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      const csv = await issuance.csv(request.issuerId(), request.query);
      return reply.type(CSV_CONTENT_TYPE).header('content-disposition', csv.disposition).send(csv.body);
    },
  );

  app.get(
    '/api/v1/analytics',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getAnalytics',
        tags,
        summary: 'Issuer analytics: totals, funnel, daily series and breakdowns',
        description: `Without from, the window is the 30 days before to; without to, it ends now. ${windowDescription} ${eventsDescription}`,
        querystring: WindowQuery,
        response: { 200: Type.Ref(IssuerAnalyticsSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => analytics.analytics(request.issuerId(), request.query),
  );

  app.get(
    '/api/v1/analytics.csv',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getAnalyticsCsv',
        tags,
        summary: 'Analytics per UTC day as a CSV attachment',
        description: `Columns: date, issued, verifies, engagement, linkedin, wallet_apple, wallet_google, share_link. ${windowDescription} ${eventsDescription}`,
        querystring: WindowQuery,
        response: { 200: csvResponse('CSV, one line per UTC day'), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      const csv = await analytics.csv(request.issuerId(), request.query);
      return reply.type(CSV_CONTENT_TYPE).header('content-disposition', csv.disposition).send(csv.body);
    },
  );
};
