import type { Config } from '../../config.js';
import { ENGAGEMENT_ACTIONS, type EngagementAction } from './events.js';

export type WalletPassUrls = Config['walletPassUrls'];
type WalletAction = keyof WalletPassUrls;

function isWallet(action: EngagementAction): action is WalletAction {
  return action === 'wallet_apple' || action === 'wallet_google';
}

/** An action the service offers: a wallet only when its pass service is configured. */
export function isShareAction(value: string, wallets: WalletPassUrls): value is EngagementAction {
  const action = ENGAGEMENT_ACTIONS.find((known) => known === value);
  return action !== undefined && (!isWallet(action) || wallets[action] !== null);
}

/** What a share target is built from: server data only, never anything from the request. */
export interface Shareable {
  credentialId: string;
  badgeName: string;
  issuerName: string;
  issuedOn: string;
  expiresOn: string | null;
  verifyPageUrl: string;
  assertionUrl: string;
  /** The issuer's LinkedIn organization id (its profile setting), when it has one. */
  linkedInOrganizationId?: string | null;
}

const LINKEDIN_ADD_TO_PROFILE = 'https://www.linkedin.com/profile/add';

/**
 * LinkedIn's add-to-profile form, prefilled as a certification pointing at the verification page.
 * The issuing organization is its LinkedIn page (`organizationId`) when the issuer set its id, so
 * the certification shows that page; else its name (`organizationName`), as plain text.
 */
export function linkedInUrl(item: Shareable): string {
  const issued = new Date(item.issuedOn);
  const params = new URLSearchParams({
    startTask: 'CERTIFICATION_NAME',
    name: item.badgeName,
    ...(item.linkedInOrganizationId
      ? { organizationId: item.linkedInOrganizationId }
      : { organizationName: item.issuerName }),
    issueYear: String(issued.getUTCFullYear()),
    issueMonth: String(issued.getUTCMonth() + 1),
    certUrl: item.verifyPageUrl,
    certId: item.credentialId,
  });
  if (item.expiresOn) {
    const expires = new Date(item.expiresOn);
    params.set('expirationYear', String(expires.getUTCFullYear()));
    params.set('expirationMonth', String(expires.getUTCMonth() + 1));
  }
  return `${LINKEDIN_ADD_TO_PROFILE}?${params.toString()}`;
}

/**
 * Where a share action sends the browser: LinkedIn's form, a configured wallet-pass service given the
 * assertion URL (it signs the pass; this service holds no pass keys), or the page itself.
 */
export function shareTarget(action: EngagementAction, item: Shareable, wallets: WalletPassUrls): string {
  if (action === 'linkedin') return linkedInUrl(item);
  const pass = isWallet(action) ? wallets[action] : null;
  return pass ? pass.replaceAll('{assertionUrl}', encodeURIComponent(item.assertionUrl)) : item.verifyPageUrl;
}

/** The share buttons in page order; their words are the page's catalogue's (messages/). */
const SHARE_BUTTONS: readonly EngagementAction[] = ['linkedin', 'wallet_apple', 'wallet_google', 'share_link'];

/** The share buttons the page offers: a wallet's only when its pass service is configured. */
export function pageShareButtons(wallets: WalletPassUrls): readonly { action: EngagementAction }[] {
  return SHARE_BUTTONS.filter((action) => isShareAction(action, wallets)).map((action) => ({ action }));
}
