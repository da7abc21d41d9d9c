import { Type } from '@sinclair/typebox';
import { Nullable, PageOffset } from '../../core/schemas.js';

export const ImportBatchSchema = Type.Object(
  {
    id: Type.String({ description: 'The batchId the import answered with' }),
    createdAt: Type.String({ format: 'date-time' }),
    source: Type.String({ description: '`csv` or `connector:<provider>`' }),
    filename: Nullable(Type.String()),
    rows: Type.Integer({ minimum: 0, description: 'Rows (or connector records) in the batch' }),
    issued: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0 }),
    errors: Type.Integer({ minimum: 0 }),
  },
  {
    $id: 'ImportBatch',
    additionalProperties: false,
    description:
      'The counts a real import or connector call kept; dry runs keep nothing, and the per-row report is only in the import response.',
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
