import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { completionRoutes } from './completions.routes.js';
import { IngestResultSchema } from './completions.schemas.js';
import { connectorRoutes } from './connectors/connectors.routes.js';
import { ConnectorRecordReportSchema, ConnectorRunReportSchema } from './connectors/connectors.schemas.js';
import { csvRoutes } from './csv.routes.js';
import { ImportReportSchema, ImportRowReportSchema } from './csv.schemas.js';
import { importHistoryRoutes } from './import-history.routes.js';
import {
  ImportBatchDetailSchema,
  ImportBatchEntrySchema,
  ImportBatchPageSchema,
  ImportBatchSchema,
} from './import-history.schemas.js';

export const ingestSchemas = [
  ImportRowReportSchema,
  ImportReportSchema,
  IngestResultSchema,
  ConnectorRecordReportSchema,
  ConnectorRunReportSchema,
  ImportBatchSchema,
  ImportBatchPageSchema,
  ImportBatchEntrySchema,
  ImportBatchDetailSchema,
];

export const ingestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(csvRoutes);
  await app.register(completionRoutes);
  await app.register(connectorRoutes);
  await app.register(importHistoryRoutes);
};
