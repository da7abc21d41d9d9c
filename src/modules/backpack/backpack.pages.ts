import { html, type Markup, safeUrl } from '../../core/html.js';
import { DEFAULT_LANGUAGE, fill, formatNumber, type Language } from '../../core/locale.js';
import type { ImportedBadge } from './backpack.import.js';
import { importedSection } from './backpack.import.pages.js';
import { backpackDocument, csrfField, shownDate } from './backpack.layout.js';
import { backpackMessages, plural } from './messages/index.js';

export { backpackCsp } from './backpack.layout.js';

import type { BackpackBadge } from './backpack.service.js';

/**
 * The sign-in form: one textbox, one button; `next` carries on where the earner was going, and
 * `lang` (a language the earner chose with `?lang=`) the language the sign-in email is written in.
 */
export function signInPage(
  nonce: string,
  options: { next: string | null; error?: string; lang?: Language | null } = { next: null },
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = backpackMessages(language).signIn;
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.heading}</h1>
<p>${words.lead}</p>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<form method="post" action="/backpack/sign-in">
<label for="email">${words.email}</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254">
${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ''}
${options.lang ? html`<input type="hidden" name="lang" value="${options.lang}">` : ''}
<div><button type="submit">${words.submit}</button></div>
</form>`,
    language,
  );
}

/** A sign-in refusal in the page's words: not an address, or no mail on this service. */
export function signInError(code: string, language: Language): string {
  const words = backpackMessages(language).signIn;
  return code === 'service_unavailable' ? words.unavailable : words.invalidEmail;
}

/** The same answer for every address, whether or not it holds a badge. */
export function linkSentPage(nonce: string, minutes: number, language: Language = DEFAULT_LANGUAGE): string {
  const words = backpackMessages(language).linkSent;
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.title}</h1>
<p role="status">${fill(words.body, { minutes: formatNumber(language, minutes) })}</p>
<p><a href="/backpack">${words.back}</a></p>`,
    language,
  );
}

/** What a link opens: a button, so a mail scanner fetching the link signs nobody in. */
export function confirmSignInPage(
  nonce: string,
  action: string,
  binding: string,
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = backpackMessages(language).confirm;
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.title}</h1>
<form method="post" action="${action}"><input type="hidden" name="binding" value="${binding}"><button type="submit">${words.submit}</button></form>`,
    language,
  );
}

/** A sign-in post that did not come from the link's own page in this browser (login CSRF): nothing is signed in. */
export function signInNotStartedHerePage(nonce: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = backpackMessages(language).notStartedHere;
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.heading}</h1>
<p>${words.body}</p>`,
    language,
  );
}

export function linkUnusablePage(nonce: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = backpackMessages(language).linkUnusable;
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.title}</h1>
<p>${words.body}</p>
<p><a href="/backpack">${words.signIn}</a></p>`,
    language,
  );
}

/** `lang` on a badge's text when it is not in the page's language (WCAG 3.1.2 "Language of Parts"). */
export const textLang = (textLanguage: string, language: Language) =>
  textLanguage.split('-')[0]?.toLowerCase() === language ? '' : html` lang="${textLanguage}"`;

function badgeCard(badge: BackpackBadge, csrf: string, language: Language): Markup {
  const words = backpackMessages(language);
  const image = safeUrl(badge.imageUrl) ?? badge.bakedSvgUrl;
  const live = badge.status !== 'revoked';
  const date = (iso: string) => ({ date: shownDate(iso, language) });
  return html`<article class="badge" aria-label="${badge.name}">
<img src="${image}" alt="">
<div>
<h2${textLang(badge.textLanguage, language)}>${badge.name}</h2>
<p>${badge.issuerName} · ${fill(words.badge.issued, date(badge.issuedOn))}${badge.expiresOn ? html` · ${fill(words.badge.expires, date(badge.expiresOn))}` : ''}</p>
<p class="status status-${badge.status}">${fill(words.badge.status, { status: words.status[badge.status] })}</p>
<p class="links">
<a href="${badge.verifyUrl}">${words.badge.verify}</a>
<a href="${badge.bakedSvgUrl}">${words.badge.download}</a>
<a href="${badge.credentialUrl}">${words.badge.ob3}</a>
<a href="${badge.assertionUrl}">${words.badge.ob2}</a>
${badge.status === 'valid' ? html`<a href="${badge.linkedInUrl}">${words.badge.linkedIn}</a>` : ''}
</p>
${live ? html`<form class="inline" method="post" action="/backpack/badges/${badge.credentialId}/wallet">${csrfField(csrf)}<button type="submit" class="secondary">${words.badge.wallet}</button></form>` : ''}
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
export function connectedAppsSection(
  apps: ConnectedAppView[],
  csrf: string,
  language: Language = DEFAULT_LANGUAGE,
): Markup {
  const words = backpackMessages(language).apps;
  return html`<h2>${words.heading}</h2>
${
  apps.length === 0
    ? html`<p>${words.none}</p>`
    : apps.map(
        (app) => html`<article class="badge" aria-label="${app.clientName}"><div>
<h3>${app.clientName}</h3>
${app.clientUri && safeUrl(app.clientUri) ? html`<p><a href="${safeUrl(app.clientUri) ?? ''}">${app.clientUri}</a></p>` : ''}
<p>${fill(words.allowed, { date: shownDate(app.grantedAt, language) })}</p>
<ul>${app.scopes.map((scope) => html`<li><code>${scope.split('/').at(-1) ?? scope}</code></li>`)}</ul>
<form class="inline" method="post" action="/backpack/apps/${encodeURIComponent(app.clientId)}/revoke">${csrfField(csrf)}<button type="submit" class="danger">${words.revoke}</button></form>
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

/**
 * What apps sent into the backpack, each marked with the app it came from and its last check; one
 * never checked is "not verified" until the earner checks it (never shown valid unchecked).
 */
export function upsertedSection(
  sent: UpsertedBadgeView[],
  csrf: string,
  language: Language = DEFAULT_LANGUAGE,
): Markup {
  if (sent.length === 0) return html``;
  const words = backpackMessages(language);
  const date = (iso: string) => shownDate(iso, language);
  return html`<h2>${words.sent.heading}</h2>
${sent.map(
  (badge) => html`<article class="badge" aria-label="${badge.name}"><div>
<h3>${badge.name}</h3>
<p>${badge.issuerName}${badge.issuedOn ? html` · ${fill(words.badge.issued, { date: date(badge.issuedOn) })}` : ''}</p>
<p>${fill(words.sent.sentBy, { app: badge.sentBy, date: date(badge.receivedAt) })}</p>
<p class="status status-${badge.status ?? 'unverified'}">${fill(words.badge.status, { status: words.check[badge.status ?? 'unverified'] })}</p>
<p>${badge.status === null ? words.sent.notChecked : html`${badge.reason ?? ''} ${fill(words.sent.checked, { date: date(badge.checkedAt ?? badge.receivedAt) })}`}</p>
<form class="inline" method="post" action="/backpack/sent/check">${csrfField(csrf)}<input type="hidden" name="key" value="${badge.key}"><button type="submit" class="secondary">${badge.status === null ? words.sent.check : words.sent.checkAgain}</button></form>
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
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = backpackMessages(language).home;
  const count = { count: formatNumber(language, badges.length) };
  return backpackDocument(
    words.title,
    nonce,
    html`<header><h1>${words.title}</h1>
<form method="post" action="/backpack/sign-out">${csrfField(csrf)}<button type="submit" class="secondary">${words.signOut}</button></form></header>
<p>${badges.length === 0 ? words.none : fill(plural(language, badges.length, words.countOne, words.countOther), count)}</p>
${badges.map((badge) => badgeCard(badge, csrf, language))}
${badges.length > 0 ? html`<p><a href="/backpack/send">${backpackMessages(language).send.link}</a></p>` : ''}
<div id="collections">${collections}</div>
${importedSection(imports, csrf, language)}
${sent}
${records}
${apps}
<h2>${words.account}</h2>
<p><a href="/backpack/account/delete">${words.deleteAccount}</a></p>`,
    language,
  );
}

export function deleteAccountPage(
  nonce: string,
  csrf: string,
  badges: number,
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = backpackMessages(language).deleteAccount;
  const body = plural(language, badges, words.bodyOne, words.bodyOther);
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.title}</h1>
<p>${fill(body, { count: formatNumber(language, badges) })}</p>
<form method="post" action="/backpack/account/delete">${csrfField(csrf)}<button type="submit" class="danger">${words.submit}</button></form>
<p><a href="/backpack">${words.cancel}</a></p>`,
    language,
  );
}

export function accountDeletedPage(nonce: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = backpackMessages(language).deleted;
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.heading}</h1><p role="status">${words.body}</p><p><a href="/backpack">${words.signInAgain}</a></p>`,
    language,
  );
}

export function walletOfferPage(
  nonce: string,
  offer: { offer: string; qr: string; lcw: string },
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = backpackMessages(language).walletOffer;
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.title}</h1>
<p>${words.body}</p>
<img src="${offer.qr.startsWith('data:image/png;base64,') ? offer.qr : ''}" alt="${words.qr}" width="240" height="240">
<p class="links"><a href="${offer.offer}">${words.open}</a> <a href="${safeUrl(offer.lcw) ?? ''}">${words.lcw}</a></p>
<p><a href="/backpack">${words.back}</a></p>`,
    language,
  );
}
