import { Type } from '@sinclair/typebox';
import { Nullable, PageOffset, StringEnum } from '../../core/schemas.js';

const batchFields = {
  id: Type.String({ description: 'The batchId the import answered with' }),
  createdAt: Type.String({ format: 'date-time' }),
  source: Type.String({ description: '`csv` or `connector:<provider>`' }),
  filename: Nullable(Type.String()),
  rows: Type.Integer({ minimum: 0, description: 'Rows (or connector records) in the batch' }),
  issued: Type.Integer({ minimum: 0 }),
  skipped: Type.Integer({ minimum: 0 }),
  errors: Type.Integer({ minimum: 0 }),
};

export const ImportBatchSchema = Type.Object(batchFields, {
  $id: 'ImportBatch',
  additionalProperties: false,
  description: 'The counts a real import or connector call kept; dry runs keep nothing.',
});

export const ImportBatchEntrySchema = Type.Object(
  {
    entry: Type.String({
      description: 'Where the entry was: `row 7` of a CSV file (its line number), `record 2` of a connector call.',
    }),
    outcome: StringEnum(['issued', 'skipped', 'error'] as const),
    completionKey: Nullable(Type.String()),
    credentialId: Nullable(Type.String()),
    message: Nullable(
      Type.String({ description: 'Why the entry was skipped or failed, or a note on its issuance; never an email.' }),
    ),
  },
  { $id: 'ImportBatchEntry', additionalProperties: false },
);

export const ImportBatchDetailSchema = Type.Object(
  {
    ...batchFields,
    report: Nullable(
      Type.Array(Type.Ref(ImportBatchEntrySchema), {
        description:
          'The entries not issued cleanly (skipped, failed, or issued with a note) in file order, at most 1,000; a clean import keeps an empty list. null for batches recorded before reports were kept.',
      }),
    ),
    reportComplete: Type.Boolean({
      description: 'false when more entries were not issued cleanly than the report holds (the counts cover them all).',
    }),
  },
  {
    $id: 'ImportBatchDetail',
    additionalProperties: false,
    description: 'One import batch: its counts and its report.',
  },
);

export const ImportBatchPageSchema = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    limit: Type.Integer(),
    offset: Type.Integer(),
    items: Type.Array(Type.Ref(ImportBatchSchema)),
  },
  { $id: 'ImportBatchPage', additionalProperties: false },
);

export const ListImportsQuery = Type.Object(
  { limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }), offset: PageOffset },
  { additionalProperties: false },
);
