import type { Core } from '../../core/context.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { createSmtpMailer } from './notifications.mailer.js';
import { createNotificationService } from './notifications.service.js';

/** Earner notifications, sending through SMTP_URL when it is configured. */
export function createNotificationModule(
  core: Core,
  deps: {
    issuers: Pick<IssuerService, 'getIssuer'>;
    definitions: Pick<DefinitionService, 'findRow' | 'listRows' | 'textFor'>;
    audit: Pick<AuditService, 'append'>;
    certificateLink?: (issuerId: string, credentialId: string) => Promise<string | null>;
    walletOffer?: (
      issuerId: string,
      credentialId: string,
    ) => Promise<{ offer: string; qr: string; lcw: string; page: string } | null>;
  },
) {
  const mailer = core.config.mail ? createSmtpMailer(core.config.mail.smtpUrl) : null;
  return createNotificationService(core, { ...deps, mailer });
}
