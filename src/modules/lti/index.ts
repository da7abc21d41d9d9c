import type { Core } from '../../core/context.js';
import { keyEncryptionKey } from '../../core/kek.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import type { IssuanceService } from '../credentials/issuance.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { WalletService } from '../wallet/wallet.service.js';
import { createPollingJob } from '../webhooks/polling-job.js';
import { systemLookup } from '../webhooks/ssrf.js';
import { createAdvantage } from './lti.advantage.js';
import { createAwarder } from './lti.awards.js';
import { createPlatformHttp } from './lti.http.js';
import { createIdTokenVerifier } from './lti.idtoken.js';
import { createToolKeys } from './lti.keys.js';
import { createLaunches } from './lti.launch.js';
import { createRefusalRecords } from './lti.refusals.js';
import { createRegistrations } from './lti.registration.js';
import { createLtiRepository } from './lti.repository.js';
import { createSealer } from './lti.sealed.js';
import { createLtiService } from './lti.service.js';

/** The LTI 1.3 Advantage tool (issue 43): registration, launches, deep linking and the score sync. */
export function createLtiModule(
  core: Pick<Core, 'config' | 'db' | 'dialect' | 'clock' | 'ids' | 'log'>,
  deps: {
    issuance: Pick<IssuanceService, 'issue' | 'toIssued'>;
    definitions: Pick<DefinitionService, 'list' | 'findRow'>;
    credentials: Pick<CredentialService, 'search'>;
    wallet: Pick<WalletService, 'createOffer'>;
    audit: Pick<AuditService, 'append'>;
    /** The earner's certificate link for the earned page (the certificates module's earnerLink). */
    certificateLink?: (issuerId: string, credentialId: string) => Promise<string | null>;
  },
) {
  const repo = createLtiRepository(core.db, core.dialect);
  const http = createPlatformHttp(core.config.webhookAllowPrivate, systemLookup);
  let kek: Buffer | null = null;
  const sealer = createSealer(() => {
    kek ??= keyEncryptionKey(core.config);
    return kek;
  }, core.clock);
  const keys = createToolKeys(core, repo, deps.audit);
  const verifier = createIdTokenVerifier(http, core.clock);
  const refusals = createRefusalRecords(core, deps.audit);
  const launches = createLaunches(core, { repo, verifier, sealer, refusals });
  const registrations = createRegistrations(core, { repo, http, audit: deps.audit });
  const advantage = createAdvantage(http, keys, core.clock);
  const service = createLtiService(core, {
    repo,
    launches,
    keys,
    sealer,
    advantage,
    award: createAwarder(deps.issuance),
    audit: deps.audit,
    definitions: deps.definitions,
    credentials: deps.credentials,
    wallet: deps.wallet,
    ...(deps.certificateLink ? { certificateLink: deps.certificateLink } : {}),
  });
  const sync = createPollingJob({
    name: 'lti-score-sync',
    intervalMs: core.config.ltiSyncIntervalMs,
    log: core.log,
    pass: async () => {
      await refusals.flush();
      await service.syncDue();
    },
  });
  return { registrations, launches, keys, refusals, service, sync, jobs: [sync] };
}

export type LtiModule = ReturnType<typeof createLtiModule>;
