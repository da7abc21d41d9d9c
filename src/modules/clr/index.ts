import type { Core } from '../../core/context.js';
import type { AuditService } from '../audit/audit.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { PathwayService } from '../pathways/pathways.service.js';
import type { VcService } from '../vc/vc.service.js';
import { createClrService } from './clr.service.js';

/** CLR 2.0: ClrCredentials of completed pathways, signed with the issuer's did:web key. */
export function createClrModule(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    issuers: Pick<IssuerService, 'getIssuer'>;
    pathways: Pick<PathwayService, 'completion'>;
    vc: Pick<VcService, 'credential' | 'signDataIntegrityOnly'>;
  },
) {
  return createClrService(core, deps);
}

export type ClrModule = ReturnType<typeof createClrModule>;
