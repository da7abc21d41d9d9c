import type { Core } from '../../core/context.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { VcModule } from '../vc/index.js';
import { createWalletService } from './wallet.service.js';

/** Wallet offers: OpenID4VCI 1.0 for the earner's credential, signed through the vc module's keys. */
export function createWalletModule(
  core: Pick<Core, 'config' | 'db' | 'clock' | 'ids'>,
  deps: {
    issuers: Pick<IssuerService, 'findIssuerBySlug'>;
    credentials: Pick<CredentialService, 'findRow'>;
    definitions: Pick<DefinitionService, 'findRow'>;
    vc: Pick<VcModule, 'credentials'>;
    audit: Pick<AuditService, 'append'>;
    certificateLink?: (issuerId: string, credentialId: string) => Promise<string | null>;
  },
) {
  return createWalletService(core, {
    issuers: deps.issuers,
    credentials: deps.credentials,
    definitions: deps.definitions,
    vc: deps.vc.credentials,
    audit: deps.audit,
    ...(deps.certificateLink ? { certificateLink: deps.certificateLink } : {}),
  });
}
