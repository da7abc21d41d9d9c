import type { Core } from '../../core/context.js';
import type { ImportHistoryService } from '../ingest/import-history.service.js';
import { createEarnerLinks } from './certificates.earner.js';
import { createCertificateService } from './certificates.service.js';
import { createCertificateZips } from './certificates.zip.js';

/**
 * Certificates: designs, the PDF of each credential and its cache, and the earner's links (issue 44).
 *
 * `earnerLink(issuerId, credentialId)` gives the earner's own certificate link for a credential, to
 * put in the award email and on the wallet offer page: an unguessable capability URL (it shows the
 * full name, which no public page does), the same each time until staff revoke it, or null when
 * certificates are off for the badge, no name is stored to print, or the credential is revoked or
 * erased. Another module receives it as a function from src/services.ts (importing this folder from
 * one it depends on would close an import circle).
 *
 * `batchZip(issuerId, batchId)` streams the certificates an import batch issued as one ZIP.
 */
export function createCertificatesModule(
  core: Pick<Core, 'config' | 'db' | 'clock' | 'log'>,
  deps: Parameters<typeof createCertificateService>[1] & {
    imports: Pick<ImportHistoryService, 'exists' | 'credentialIds'>;
  },
) {
  const service = createCertificateService(core, deps);
  const zips = createCertificateZips({
    clock: core.clock,
    imports: deps.imports,
    pdf: service.bulkPdf,
    onError: (err) => core.log.error({ err }, 'certificate ZIP stopped'),
  });
  const links = createEarnerLinks(core, {
    audit: deps.audit,
    credentials: deps.credentials,
    enabledFor: service.enabledFor,
    pdf: service.pdf,
  });
  return { ...service, ...links, ...zips };
}

export type CertificatesModule = ReturnType<typeof createCertificatesModule>;
/** The function the award email and the wallet offer page are given (src/services.ts). */
export type EarnerCertificateLink = CertificatesModule['earnerLink'];
