import { html, type Markup, safeUrl } from '../../core/html.js';
import type { ImportedBadge } from './backpack.import.js';
import { importedSection } from './backpack.import.pages.js';
import { backpackDocument, csrfField, shownDate } from './backpack.layout.js';

export { backpackCsp } from './backpack.layout.js';

import type { BackpackBadge } from './backpack.service.js';

/** The sign-in form: one textbox, one button; `next` carries on where the earner was going. */
export function signInPage(nonce: string, options: { next: string | null; error?: string } = { next: null }): string {
  return backpackDocument(
    'Sign in to your backpack',
    nonce,
    html`<h1>Your badges, in one place</h1>
<p>Enter the email address your badges were sent to. We will email you a link that signs you in.</p>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<form method="post" action="/backpack/sign-in">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254">
${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ''}
<div><button type="submit">Send me a sign-in link</button></div>
</form>`,
  );
}

/** The same answer for every address, whether or not it holds a badge. */
export function linkSentPage(nonce: string, minutes: number): string {
  return backpackDocument(
    'Check your email',
    nonce,
    html`<h1>Check your email</h1>
<p role="status">If that address can receive email, a sign-in link is on its way. It works once, for ${minutes} minutes.</p>
<p><a href="/backpack">Back</a></p>`,
  );
}

/** What a link opens: a button, so a mail scanner fetching the link signs nobody in. */
export function confirmSignInPage(nonce: string, action: string, binding: string): string {
  return backpackDocument(
    'Sign in to your backpack',
    nonce,
    html`<h1>Sign in to your backpack</h1>
<form method="post" action="${action}"><input type="hidden" name="binding" value="${binding}"><button type="submit">Sign in</button></form>`,
  );
}

/** A sign-in post that did not come from the link's own page in this browser (login CSRF): nothing is signed in. */
export function signInNotStartedHerePage(nonce: string): string {
  return backpackDocument(
    'Open the link again',
    nonce,
    html`<h1>Open the link from your email again</h1>
<p>This sign-in did not start on the page the link opens, in this browser, so nobody was signed in. Open the link from your email and press Sign in there.</p>`,
  );
}

export function linkUnusablePage(nonce: string): string {
  return backpackDocument(
    'This link no longer works',
    nonce,
    html`<h1>This link no longer works</h1>
<p>A sign-in link works once, for a short time. Ask for a new one.</p>
<p><a href="/backpack">Sign in</a></p>`,
  );
}

function badgeCard(badge: BackpackBadge, csrf: string): Markup {
  const image = safeUrl(badge.imageUrl) ?? badge.bakedSvgUrl;
  const live = badge.status !== 'revoked';
  return html`<article class="badge" aria-label="${badge.name}">
<img src="${image}" alt="">
<div>
<h2>${badge.name}</h2>
<p>${badge.issuerName} · issued ${shownDate(badge.issuedOn)}${badge.expiresOn ? html` · expires ${shownDate(badge.expiresOn)}` : ''}</p>
<p class="status status-${badge.status}">Status: ${badge.status}</p>
<p class="links">
<a href="${badge.verifyUrl}">Verification page</a>
<a href="${badge.bakedSvgUrl}">Download image</a>
<a href="${badge.credentialUrl}">Open Badges 3.0 credential</a>
<a href="${badge.assertionUrl}">Open Badges 2.0 assertion</a>
${badge.status === 'valid' ? html`<a href="${badge.linkedInUrl}">Add to LinkedIn</a>` : ''}
</p>
${live ? html`<form class="inline" method="post" action="/backpack/badges/${badge.credentialId}/wallet">${csrfField(csrf)}<button type="submit" class="secondary">Add to a wallet</button></form>` : ''}
</div>
</article>`;
}

/** An app the earner allowed to use the Open Badges API for them (the API's own ConnectedApp). */
export interface ConnectedAppView {
  clientId: string;
  clientName: string;
  clientUri: string | null;
  scopes: string[];
  grantedAt: string;
}

/** The apps the earner allowed, each with the scopes granted, since when, and "Revoke access". */
export function connectedAppsSection(apps: ConnectedAppView[], csrf: string): Markup {
  return html`<h2>Connected apps</h2>
${
  apps.length === 0
    ? html`<p>No app can use your badges.</p>`
    : apps.map(
        (app) => html`<article class="badge" aria-label="${app.clientName}"><div>
<h3>${app.clientName}</h3>
${app.clientUri && safeUrl(app.clientUri) ? html`<p><a href="${safeUrl(app.clientUri) ?? ''}">${app.clientUri}</a></p>` : ''}
<p>Allowed on ${shownDate(app.grantedAt)} to:</p>
<ul>${app.scopes.map((scope) => html`<li><code>${scope.split('/').at(-1) ?? scope}</code></li>`)}</ul>
<form class="inline" method="post" action="/backpack/apps/${encodeURIComponent(app.clientId)}/revoke">${csrfField(csrf)}<button type="submit" class="danger">Revoke access</button></form>
</div></article>`,
      )
}`;
}

/** A credential an app sent through the Open Badges API (the API's own UpsertedBadge). */
export interface UpsertedBadgeView {
  key: string;
  name: string;
  issuerName: string;
  issuedOn: string | null;
  sentBy: string;
  receivedAt: string;
  status: ImportedBadge['status'] | null;
  reason: string | null;
  checkedAt: string | null;
}

const CHECK_WORDS: Record<ImportedBadge['status'], string> = {
  verified: 'verified',
  expired: 'expired',
  revoked: 'revoked by its issuer',
  suspended: 'suspended by its issuer',
  unverified: 'not verified',
};

/**
 * What apps sent into the backpack, each marked with the app it came from and its last check; one
 * never checked is "not verified" until the earner checks it (never shown valid unchecked).
 */
export function upsertedSection(sent: UpsertedBadgeView[], csrf: string): Markup {
  if (sent.length === 0) return html``;
  return html`<h2>Sent by apps</h2>
${sent.map(
  (badge) => html`<article class="badge" aria-label="${badge.name}"><div>
<h3>${badge.name}</h3>
<p>${badge.issuerName}${badge.issuedOn ? html` · issued ${shownDate(badge.issuedOn)}` : ''}</p>
<p>Sent by ${badge.sentBy} on ${shownDate(badge.receivedAt)} through the Open Badges API</p>
<p class="status status-${badge.status ?? 'unverified'}">Status: ${badge.status ? CHECK_WORDS[badge.status] : 'not verified'}</p>
<p>${badge.status === null ? 'Not checked yet.' : html`${badge.reason ?? ''} Checked ${shownDate(badge.checkedAt ?? badge.receivedAt)}.`}</p>
<form class="inline" method="post" action="/backpack/sent/check">${csrfField(csrf)}<input type="hidden" name="key" value="${badge.key}"><button type="submit" class="secondary">${badge.status === null ? 'Check it' : 'Check again'}</button></form>
</div></article>`,
)}`;
}

export function backpackPage(
  nonce: string,
  badges: BackpackBadge[],
  csrf: string,
  imports: ImportedBadge[] = [],
  records: Markup = html``,
  apps: Markup = html``,
  sent: Markup = html``,
  collections: Markup = html``,
): string {
  return backpackDocument(
    'Your backpack',
    nonce,
    html`<header><h1>Your backpack</h1>
<form method="post" action="/backpack/sign-out">${csrfField(csrf)}<button type="submit" class="secondary">Sign out</button></form></header>
<p>${badges.length === 0 ? 'No badges have been issued to your address on this service yet.' : `${badges.length} ${badges.length === 1 ? 'badge' : 'badges'} from every issuer on this service.`}</p>
${badges.map((badge) => badgeCard(badge, csrf))}
<div id="collections">${collections}</div>
${importedSection(imports, csrf)}
${sent}
${records}
${apps}
<h2>Your account</h2>
<p><a href="/backpack/account/delete">Delete my account</a></p>`,
  );
}

export function deleteAccountPage(nonce: string, csrf: string, badges: number): string {
  return backpackDocument(
    'Delete your account',
    nonce,
    html`<h1>Delete your account</h1>
<p>This removes your account and its links to ${badges} ${badges === 1 ? 'badge' : 'badges'}. The issuers keep their records; you can sign in again later and find your badges again.</p>
<form method="post" action="/backpack/account/delete">${csrfField(csrf)}<button type="submit" class="danger">Delete my account</button></form>
<p><a href="/backpack">Cancel</a></p>`,
  );
}

export function accountDeletedPage(nonce: string): string {
  return backpackDocument(
    'Account deleted',
    nonce,
    html`<h1>Your account is deleted</h1><p role="status">Nothing of it is kept.</p><p><a href="/backpack">Sign in again</a></p>`,
  );
}

export function walletOfferPage(nonce: string, offer: { offer: string; qr: string; lcw: string }): string {
  return backpackDocument(
    'Add to a wallet',
    nonce,
    html`<h1>Add to a wallet</h1>
<p>Scan this code with your wallet app (OpenID4VCI), or open the offer on this device.</p>
<img src="${offer.qr.startsWith('data:image/png;base64,') ? offer.qr : ''}" alt="Wallet offer QR code" width="240" height="240">
<p class="links"><a href="${offer.offer}">Open in a wallet app</a> <a href="${safeUrl(offer.lcw) ?? ''}">Add to the Learner Credential Wallet</a></p>
<p><a href="/backpack">Back to your backpack</a></p>`,
  );
}
