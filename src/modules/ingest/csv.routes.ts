import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { jsonStream } from '../../core/json-pieces.js';
import { errorResponses, keyedErrors } from '../../core/schemas.js';
import { ImportCsvBody, ImportReportSchema } from './csv.schemas.js';
import { IMPORT_RETRY_AFTER_SECONDS, type ImportSlot } from './import-gate.js';

/** design.md §4: the CSV import alone takes bodies up to 10 MiB (413 above). */
export const CSV_BODY_LIMIT = 10 * 1024 * 1024;

export const csvRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { csv, imports } = app.services.ingest;
  const slots = new WeakMap<object, ImportSlot>();

  app.post(
    '/api/v1/ingest/csv',
    {
      bodyLimit: CSV_BODY_LIMIT,
      config: { auth: 'key' },
      // The import's slot is taken before its body is read: a refused import never buffers its
      // 10 MiB. The slot is freed when the import ends, or when the request ends without one.
      preParsing: (request, reply, payload, done) => {
        let slot: ImportSlot;
        try {
          slot = imports.enter(request.issuerId());
        } catch (err) {
          reply.header('retry-after', String(IMPORT_RETRY_AFTER_SECONDS));
          return done(err as Error);
        }
        slots.set(request, slot);
        reply.raw.once('close', () => slot.abandon());
        return done(null, payload);
      },
      schema: {
        operationId: 'importCsv',
        tags: ['Ingest'],
        summary: 'Import credentials from CSV, with a per-row report (or a dry-run preview)',
        description:
          'Columns by header (case-insensitive): recipientEmail (email, recipient_email, recipient email), recipientName (name, recipient_name, full name; else first name + last name), completionKey (completion_key, key), definitionId (definition_id), definitionRef (definition, definition_ref, badge, course), issuedOn (issued_on, issue_date, completed_at, date, completed, completion date, date completed, awarded), evidenceUrl (evidence_url, evidence). Rows without a completionKey get the auto: key, so re-importing a file issues nothing new. rowNum is the line a row starts on (header = 1). The report lists the columns it recognised (and the field each fed) and those it ignored. A mapping field set to null is read from no column (not used). Dates: ISO 8601, YYYY-MM-DD, D Month YYYY and unix times always; DD/MM/YYYY, MM/DD/YYYY and Excel serial numbers in mapping.dateFormat, which, when absent, is detected from the issuedOn column (report.dateFormat); a file whose day/month dates all have day and month ≤ 12 is ambiguous and its rows are errors until mapping.dateFormat names the order. A bad date says how to fix it ("issuedOn: date 31/02/2026 is not a day; correct the day or the month"). A row whose recipient already holds a valid credential of the definition, with or without its own completion key, is skipped and issues nothing (dry run: already_issued, message "already held: …"). A dry run’s rows also give recipientName, definitionName and issuedOn as read. At most 50,000 data rows and 10 MiB. One import at a time per issuer and two per process: another answers 429 import_busy with Retry-After.',
        body: ImportCsvBody,
        response: {
          200: Type.Ref(ImportReportSchema),
          ...errorResponses(400, 413, 422, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const report = await (slots.get(request) as ImportSlot).run(() =>
        csv.import(request.issuerId(), request.actor(), request.body),
      );
      // The report holds exactly the schema's fields (ImportReport), so its JSON is what the
      // response serializer would write. For 50,000 rows (7.8 MB) the serializer's concatenations held
      // about 32 MB of heap and took 106 ms; the text is sent in pieces instead (docs/decisions.md).
      return reply.type('application/json; charset=utf-8').send(jsonStream(report, 'rows'));
    },
  );
};
