import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors } from '../../core/schemas.js';
import { ImportCsvBody, ImportReportSchema } from './csv.schemas.js';

/** design.md §4: the CSV import alone takes bodies up to 10 MiB (413 above). */
export const CSV_BODY_LIMIT = 10 * 1024 * 1024;

export const csvRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { csv } = app.services.ingest;

  app.post(
    '/api/v1/ingest/csv',
    {
      bodyLimit: CSV_BODY_LIMIT,
      config: { auth: 'key' },
      schema: {
        operationId: 'importCsv',
        tags: ['Ingest'],
        summary: 'Import credentials from CSV, with a per-row report (or a dry-run preview)',
        description:
          'Columns by header (case-insensitive): recipientEmail (email, recipient_email, recipient email), recipientName (name, recipient_name, full name), completionKey (completion_key, key), definitionId (definition_id), definitionRef (definition, definition_ref, badge, course), issuedOn (issued_on, issue_date, completed_at, date), evidenceUrl (evidence_url, evidence). Rows without a completionKey get the auto: key, so re-importing a file issues nothing new. rowNum is the line a row starts on (header = 1). At most 50,000 data rows and 10 MiB.',
        body: ImportCsvBody,
        response: {
          200: Type.Ref(ImportReportSchema),
          ...errorResponses(400, 413, 422, ...keyedErrors),
        },
      },
    },
    async (request) => csv.import(request.issuerId(), request.actor(), request.body),
  );
};
