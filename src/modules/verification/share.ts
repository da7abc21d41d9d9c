import { ENGAGEMENT_ACTIONS, type EngagementAction } from './events.js';

export function isShareAction(value: string): value is EngagementAction {
  return (ENGAGEMENT_ACTIONS as readonly string[]).includes(value);
}

/** What a share target is built from: server data only, never anything from the request. */
export interface Shareable {
  credentialId: string;
  badgeName: string;
  issuerName: string;
  issuedOn: string;
  expiresOn: string | null;
  verifyPageUrl: string;
}

const LINKEDIN_ADD_TO_PROFILE = 'https://www.linkedin.com/profile/add';

/** LinkedIn's add-to-profile form, prefilled as a certification pointing at the verification page. */
function linkedInUrl(item: Shareable): string {
  const issued = new Date(item.issuedOn);
  const params = new URLSearchParams({
    startTask: 'CERTIFICATION_NAME',
    name: item.badgeName,
    organizationName: item.issuerName,
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
 * Where a share action sends the browser. Wallet passes need a pass-signing set-up that is not
 * configured, so the wallet actions land on the verification page, like share_link.
 */
export function shareTarget(action: EngagementAction, item: Shareable): string {
  return action === 'linkedin' ? linkedInUrl(item) : item.verifyPageUrl;
}

/**
 * The share buttons the page offers. Wallet buttons belong here once a wallet pass issuer is
 * configured; until then offering them would only lead back to the page itself.
 */
export const PAGE_SHARE_BUTTONS: readonly { action: EngagementAction; label: string }[] = [
  { action: 'linkedin', label: 'Add to LinkedIn' },
  { action: 'share_link', label: 'Copy link' },
];
