import { html, type Markup } from '../../core/html.js';
import { DEFAULT_LANGUAGE, fill, type Language } from '../../core/locale.js';
import { backpackDocument, csrfField } from '../backpack/backpack.layout.js';
import type { BackpackBadge } from '../backpack/backpack.service.js';
import { backpackMessages } from '../backpack/messages/index.js';
import type { SendSummary } from './send.service.js';

/** The form of a send: the earner's badges to tick and the other platform's address. */
export function sendPage(
  nonce: string,
  input: {
    csrf: string;
    badges: Pick<BackpackBadge, 'credentialId' | 'name' | 'issuerName'>[];
    platforms: { origin: string; name: string }[];
    chosen?: string[];
    address?: string;
    error?: string;
  },
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = backpackMessages(language).send;
  const chosen = new Set(input.chosen ?? []);
  const recent = input.platforms.map((p) => `${p.name} (${p.origin})`).join(', ');
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.title}</h1>
<p>${words.lead}</p>
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
${
  input.badges.length === 0
    ? html`<p>${words.none}</p>`
    : html`<form method="post" action="/backpack/send">
${csrfField(input.csrf)}
<fieldset><legend>${words.choose}</legend>
${input.badges.map(
  (badge) =>
    html`<label><input type="checkbox" name="credential" value="${badge.credentialId}"${chosen.has(badge.credentialId) ? html` checked` : ''}> ${badge.name} · ${badge.issuerName}</label>`,
)}
</fieldset>
<label for="address">${words.address}</label>
<input id="address" name="address" type="url" required value="${input.address ?? ''}" aria-describedby="address-hint">
<p id="address-hint">${words.addressHint}</p>
${recent ? html`<p>${fill(words.recent, { platforms: recent })}</p>` : ''}
<div><button type="submit">${words.submit}</button></div>
</form>`
}
<p><a href="/backpack">${words.back}</a></p>`,
    language,
  );
}

/**
 * The step between the form and the other platform: a link the earner follows. The backpack's
 * policy holds form posts (and every redirect of them) to this origin (form-action 'self'), and
 * the page names the host the earner is about to sign in to.
 */
export function continuePage(
  nonce: string,
  input: { authorizationUrl: string; host: string; name: string },
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = backpackMessages(language).send;
  const host = { host: input.host };
  return backpackDocument(
    fill(words.continueTitle, host),
    nonce,
    html`<h1>${fill(words.continueTitle, host)}</h1>
<p>${fill(words.continueBody, { name: input.name, host: input.host })}</p>
<p><a id="continue" href="${input.authorizationUrl}" rel="noreferrer">${fill(words.continue, host)}</a></p>
<p><a href="/backpack">${words.back}</a></p>`,
    language,
  );
}

/** What became of each badge of a send, and of the access the other platform gave. */
export function sentPage(
  nonce: string,
  summary: SendSummary,
  names: Map<string, string>,
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = backpackMessages(language).send;
  const title = fill(words.resultTitle, { name: summary.name });
  const outcome = (r: SendSummary['results'][number]) =>
    r.outcome === 'failed' ? fill(words.failed, { reason: r.reason ?? '' }) : words[r.outcome];
  return backpackDocument(
    title,
    nonce,
    html`<h1>${title}</h1>
<ul>${summary.results.map(
      (r) =>
        html`<li class="send-result send-${r.outcome}" data-credential="${r.credentialId}"><strong>${names.get(r.credentialId) ?? r.credentialId}</strong>: ${outcome(r)}</li>`,
    )}</ul>
<p>${fill(summary.revoked ? words.revoked : words.notRevoked, { host: summary.host })}</p>
<p class="links"><a href="/backpack/send">${words.again}</a> <a href="/backpack">${words.back}</a></p>`,
    language,
  );
}

/** A send that ended with no badge sent: a heading, what happened, and the way back. */
function endedPage(nonce: string, title: string, message: Markup, language: Language): string {
  const words = backpackMessages(language).send;
  return backpackDocument(
    title,
    nonce,
    html`<h1>${title}</h1>
${message}
<p class="links"><a href="/backpack/send">${words.again}</a> <a href="/backpack">${words.back}</a></p>`,
    language,
  );
}

/** A send that ended before any badge went: the reason, and the way back. */
export function sendFailedPage(nonce: string, reason: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = backpackMessages(language).send;
  return endedPage(nonce, words.failedTitle, html`<p class="error" role="alert">${reason}</p>`, language);
}

/** The earner pressed Deny at the other platform (RFC 6749 §4.1.2.1): nothing was sent, as they chose. */
export function sendDeclinedPage(nonce: string, host: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = backpackMessages(language).send;
  return endedPage(
    nonce,
    words.declinedTitle,
    html`<p role="status">${fill(words.declinedBody, { host })}</p>`,
    language,
  );
}
