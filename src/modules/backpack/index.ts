import type { Core } from '../../core/context.js';
import type { AuditService } from '../audit/audit.service.js';
import { createSmtpMailer } from '../notifications/notifications.mailer.js';
import type { WalletService } from '../wallet/wallet.service.js';
import { backpackSecrets } from './backpack.secrets.js';
import { createBackpackService } from './backpack.service.js';

/** The earner's backpack: accounts, sign-in links, sessions and the cross-issuer list of badges. */
export function createBackpackModule(
  core: Core,
  deps: { audit: Pick<AuditService, 'append'>; wallet: Pick<WalletService, 'createOffer'> },
) {
  const secrets = backpackSecrets(core.config);
  const mailer = core.config.mail ? createSmtpMailer(core.config.mail.smtpUrl) : null;
  return { ...createBackpackService(core, { ...deps, secrets, mailer }), secrets, mailer };
}

export type BackpackModule = ReturnType<typeof createBackpackModule>;
