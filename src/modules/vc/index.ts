import type { Core } from '../../core/context.js';
import type { ReadCaches } from '../../db/read-cache.js';
import type { AlignmentService } from '../alignments/alignments.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { ImageService } from '../images/images.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { createPresentedCredentialReader } from './presented.js';
import { createReceivedEndorsementService } from './received-endorsements.service.js';
import { createSigningKeyService } from './signing-keys.service.js';
import { createVcService } from './vc.service.js';

/** Open Badges 3.0: signing keys, did:web documents, signed credentials and status lists. */
export function createVcModule(
  core: Pick<Core, 'config' | 'db' | 'dialect' | 'clock' | 'ids'>,
  deps: {
    issuers: Pick<IssuerService, 'findIssuerBySlug' | 'getIssuer'>;
    definitions: Pick<DefinitionService, 'findRow'>;
    credentials: Pick<CredentialService, 'findRow'>;
    alignments: Pick<AlignmentService, 'listRows'>;
    audit: Pick<AuditService, 'append'>;
    images: Pick<ImageService, 'hostedPng'>;
    readCaches: ReadCaches;
  },
) {
  const signingKeys = createSigningKeyService(core, { audit: deps.audit });
  const credentials = createVcService(core, { ...deps, signingKeys });
  const presented = createPresentedCredentialReader(core, { issuers: deps.issuers, signingKeys });
  const receivedEndorsements = createReceivedEndorsementService(core, { audit: deps.audit });
  return { signingKeys, credentials, presented, receivedEndorsements };
}

export type VcModule = ReturnType<typeof createVcModule>;
