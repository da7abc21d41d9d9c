import type { Core } from '../../core/context.js';
import { createCertificateService } from './certificates.service.js';

/** Certificates: designs, the PDF of each credential, and its cache (issue 44). */
export function createCertificatesModule(
  core: Pick<Core, 'config' | 'db' | 'clock'>,
  deps: Parameters<typeof createCertificateService>[1],
) {
  return createCertificateService(core, deps);
}

export type CertificatesModule = ReturnType<typeof createCertificatesModule>;
