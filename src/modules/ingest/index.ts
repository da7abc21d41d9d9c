import type { Core } from '../../core/context.js';
import type { BatchIssuance } from '../credentials/issuance.batch.js';
import type { IssuanceService } from '../credentials/issuance.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { NotificationService } from '../notifications/notifications.service.js';
import { createCompletionIngestService } from './completions.service.js';
import { createConnectorService } from './connectors/connectors.service.js';
import { createCsvImportService } from './csv.service.js';
import { createImportGate } from './import-gate.js';
import { createImportHistoryService } from './import-history.service.js';
import { createImportRunner, type EarnerLink } from './import-run.js';

/** Ingest: CSV import, single completions and the LMS/SIS connectors. */
export function createIngestModule(
  core: Pick<Core, 'db' | 'clock' | 'ids'>,
  deps: {
    issuers: Pick<IssuerService, 'identity'>;
    definitions: Pick<DefinitionService, 'findRow' | 'listRows'>;
    issuance: Pick<IssuanceService, 'issue' | 'recipientHash' | 'toIssued' | 'heldCredential' | 'heldCredentials'>;
    batchIssuance: Pick<BatchIssuance, 'preview' | 'issue'>;
    notifications: Pick<NotificationService, 'wanted' | 'notifyAll'>;
    linkToEarners?: (issuerId: string, links: EarnerLink[]) => Promise<void>;
  },
) {
  const runner = createImportRunner(core, deps);
  const context = { issuers: deps.issuers, definitions: deps.definitions, notifications: deps.notifications, runner };
  return {
    csv: createCsvImportService(core, context),
    imports: createImportGate(),
    history: createImportHistoryService(core),
    completions: createCompletionIngestService(core, deps),
    connectors: createConnectorService(core, context),
  };
}

export type IngestModule = ReturnType<typeof createIngestModule>;
