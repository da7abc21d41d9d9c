import type { Core } from '../../core/context.js';
import type { AuditService } from '../audit/audit.service.js';
import { createSmtpMailer } from '../notifications/notifications.mailer.js';
import type { WalletService } from '../wallet/wallet.service.js';
import { createPollingJob } from '../webhooks/polling-job.js';
import { systemLookup } from '../webhooks/ssrf.js';
import { createCollectionService } from './backpack.collections.js';
import { createImportService } from './backpack.import.js';
import { backpackSecrets } from './backpack.secrets.js';
import { createBackpackService, EARNER_AUDIT_CHAIN } from './backpack.service.js';

/** How often expired sessions, sign-in links and import checks are deleted. */
const PRUNE_INTERVAL_MS = 15 * 60_000;

/** The earner's backpack: accounts, sign-in links, sessions, the cross-issuer list of badges and imports. */
export function createBackpackModule(
  core: Core,
  deps: { audit: Pick<AuditService, 'append' | 'appendMany'>; wallet: Pick<WalletService, 'createOffer'> },
) {
  const secrets = backpackSecrets(core.config);
  const mailer = core.config.mail ? createSmtpMailer(core.config.mail.smtpUrl) : null;
  const imports = createImportService(core, {
    audit: deps.audit,
    lookup: systemLookup,
    auditChain: EARNER_AUDIT_CHAIN,
  });
  const service = createBackpackService(core, { ...deps, secrets, mailer });
  const collections = createCollectionService(core, { audit: deps.audit, auditChain: EARNER_AUDIT_CHAIN });
  service.onAccountDeleted((executor, accountId) => collections.deleteAccount(executor, accountId));
  const prune = createPollingJob({
    name: 'backpack-prune',
    intervalMs: PRUNE_INTERVAL_MS,
    log: core.log,
    pass: service.pruneExpired,
  });
  return { ...service, secrets, mailer, imports, collections, jobs: [prune] };
}

export type BackpackModule = ReturnType<typeof createBackpackModule>;
