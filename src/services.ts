import type { Core } from './core/context.js';
import type { Job } from './core/job.js';
import { createReadCaches } from './db/read-cache.js';
import { createAccountService } from './modules/accounts/accounts.service.js';
import { createSetupService } from './modules/accounts/setup.service.js';
import { createAlignmentService } from './modules/alignments/alignments.service.js';
import { createAuditService } from './modules/audit/audit.service.js';
import { createBackpackModule } from './modules/backpack/index.js';
import { createCertificatesModule } from './modules/certificates/index.js';
import { createClrModule } from './modules/clr/index.js';
import { createCountCompaction } from './modules/credentials/counts.compaction.js';
import { createCredentialService } from './modules/credentials/credentials.service.js';
import { createBatchIssuance } from './modules/credentials/issuance.batch.js';
import { createIssuanceService } from './modules/credentials/issuance.service.js';
import { createDefinitionService } from './modules/definitions/definitions.service.js';
import { createDocumentService } from './modules/documents/documents.service.js';
import { createEndorsementService } from './modules/endorsements/endorsements.service.js';
import { createGdprService } from './modules/gdpr/gdpr.service.js';
import { createImageService } from './modules/images/images.service.js';
import { createIngestModule } from './modules/ingest/index.js';
import { createIssuerService } from './modules/issuers/issuers.service.js';
import { createLtiModule } from './modules/lti/index.js';
import { createNotificationModule } from './modules/notifications/index.js';
import { createSmtpMailer } from './modules/notifications/notifications.mailer.js';
import { createObApiModule } from './modules/obapi/index.js';
import { createPathwayService } from './modules/pathways/pathways.service.js';
import { createReportsModule } from './modules/reports/index.js';
import { createTrustService } from './modules/trust/trust.service.js';
import { createUsageService } from './modules/usage/usage.service.js';
import { createVcModule } from './modules/vc/index.js';
import { createVerificationModule } from './modules/verification/index.js';
import { createProfileService } from './modules/verification/profiles.service.js';
import { createWalletModule } from './modules/wallet/index.js';
import { createWebhookModule } from './modules/webhooks/index.js';
import { createOutboxService } from './modules/webhooks/outbox.service.js';

/**
 * Builds every service once, in dependency order. A module reaches another through the service
 * passed here, never through its repository.
 */
export function createServices(core: Core) {
  const { readCache } = core.config;
  // Public reads are cached per process, kept exact by the database's change feed.
  const changeFeed = readCache.enabled ? core.database.changeFeed(core.log) : null;
  const readCaches = createReadCaches(changeFeed, readCache);
  const audit = createAuditService(core);
  const issuers = createIssuerService(core, { audit, readCaches });
  // Team invitations are emailed when SMTP_URL is set (nodemailer is loaded at the first send).
  const inviteMailer = core.config.mail ? createSmtpMailer(core.config.mail.smtpUrl) : null;
  const accounts = createAccountService(core, { audit, issuers, mailer: inviteMailer });
  const setup = createSetupService(core, { issuers, accounts });
  const images = createImageService(core, { audit });
  const outbox = createOutboxService(core);
  const usage = createUsageService(core, { issuers });
  const definitions = createDefinitionService(core, { audit });
  const notifications = createNotificationModule(core, {
    issuers,
    definitions,
    audit,
    // The wallet is built further down (it signs through vc); the email asks it for an offer when sent.
    walletOffer: (issuerId, credentialId) => wallet.emailOffer(issuerId, credentialId),
    // So are certificates (they read credentials); the award email links the earner's own (issue 44).
    certificateLink: (issuerId, credentialId) => certificates.earnerLink(issuerId, credentialId),
  });
  const issuance = createIssuanceService(core, {
    issuers,
    definitions,
    usage,
    audit,
    outbox,
    notifications,
    // The backpack is built further down (it offers to wallets); a new credential of an address with
    // an earner account is linked to it while the address is at hand.
    linkToEarner: (issuerId, credentialId, email) => backpack.linkAtIssuance(issuerId, credentialId, email),
  });
  const countCompaction = createCountCompaction(core);
  const credentials = createCredentialService(core, { issuance, audit, outbox, countCompaction, notifications });
  const batchIssuance = createBatchIssuance(core, { issuers, issuance, usage, audit, outbox });
  const ingest = createIngestModule(core, {
    issuers,
    definitions,
    issuance,
    batchIssuance,
    notifications,
    linkToEarners: (issuerId, links) => backpack.linkManyAtIssuance(issuerId, links),
  });
  const alignments = createAlignmentService(core, { definitions, audit });
  const endorsements = createEndorsementService(core, { definitions, credentials, audit });
  const documents = createDocumentService(core, { issuers, definitions, endorsements, readCaches });
  const profiles = createProfileService(core, { issuance, audit });
  const vc = createVcModule(core, {
    issuers,
    definitions,
    credentials,
    alignments,
    audit,
    images,
    readCaches,
  });
  const wallet = createWalletModule(core, {
    issuers,
    credentials,
    definitions,
    vc,
    audit,
    // Certificates are built further down; the offer page asks for the earner's link when shown.
    certificateLink: (issuerId, credentialId) => certificates.earnerLink(issuerId, credentialId),
  });
  const backpack = createBackpackModule(core, { audit, wallet });
  const lti = createLtiModule(core, {
    issuance,
    definitions,
    credentials,
    wallet,
    audit,
    certificateLink: (issuerId, credentialId) => certificates.earnerLink(issuerId, credentialId),
  });
  const pathways = createPathwayService(core, { audit, definitions, issuance });
  const clr = createClrModule(core, { audit, issuers, pathways, vc: vc.credentials });
  const obapi = createObApiModule(core, { audit, vc: vc.credentials, backpack, clr });
  const certificates = createCertificatesModule(core, {
    audit,
    issuers,
    definitions,
    credentials,
    images,
    vc: vc.credentials,
    imports: ingest.history,
  });
  const verification = createVerificationModule(core, {
    outbox,
    usage,
    presented: vc.presented,
    images,
    readCaches,
  });
  const gdpr = createGdprService(core, { issuance, audit, outbox, profiles, notifications, issuers });
  const trust = createTrustService(core);
  const reports = createReportsModule(core, { events: verification.events });
  const webhooks = createWebhookModule(core, { outbox, audit });
  const jobs: Job[] = changeFeed ? [changeFeed] : [];
  if (core.config.webhookDispatch === 'inline') jobs.push(...webhooks.jobs);
  jobs.push(...verification.jobs, countCompaction, ...notifications.jobs, ...lti.jobs, ...backpack.jobs, ...obapi.jobs);
  if (inviteMailer) jobs.push({ name: 'invitation-mail', start() {}, stop: async () => inviteMailer.close() });
  return {
    issuers,
    accounts,
    setup,
    images,
    audit,
    outbox,
    usage,
    definitions,
    notifications,
    issuance,
    credentials,
    countCompaction,
    batchIssuance,
    ingest,
    alignments,
    endorsements,
    documents,
    webhooks,
    profiles,
    verification,
    pathways,
    clr,
    gdpr,
    trust,
    reports,
    vc,
    wallet,
    backpack,
    lti,
    obapi,
    certificates,
    changeFeed,
    readCaches,
    jobs,
  };
}

export type Services = ReturnType<typeof createServices>;
