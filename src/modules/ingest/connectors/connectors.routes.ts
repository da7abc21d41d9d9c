import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors } from '../../../core/schemas.js';
import { ConnectorBody, ConnectorRunReportSchema, ProviderParams } from './connectors.schemas.js';

const Report = Type.Ref(ConnectorRunReportSchema);
const tags = ['Connectors'];
const description =
  'Always 200 with a per-record report (Moodle and aXcelerate retry anything else): a record that is not a completion is skipped with its reason, a bad record is an error record and never fails the others. Re-sent records replay idempotently. See docs/connectors.md for each preset.';

export const connectorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { connectors } = app.services.ingest;

  // Static, so Fastify routes aXcelerate here before the parametric route below.
  app.post(
    '/api/v1/connectors/axcelerate/completions',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'receiveAxcelerateCompletions',
        tags,
        summary: 'Receive aXcelerate enrolment rows (or a webhook delivery) and issue for completions',
        description,
        body: ConnectorBody,
        response: { 200: Report, ...errorResponses(400, 413, ...keyedErrors) },
      },
    },
    async (request) => connectors.receive(request.issuerId(), request.actor(), 'axcelerate', request.body),
  );

  app.post(
    '/api/v1/connectors/:provider/completions',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'receiveConnectorCompletions',
        tags,
        summary: 'Receive completion records from Moodle, Canvas or any system (generic)',
        description,
        params: ProviderParams,
        body: ConnectorBody,
        response: { 200: Report, ...errorResponses(400, 404, 413, ...keyedErrors) },
      },
    },
    async (request) => connectors.receive(request.issuerId(), request.actor(), request.params.provider, request.body),
  );
};
