import { escapeHtml, html, Markup, safeUrl } from '../../core/html.js';
import { fill, formatDate, formatNumber, type Language } from '../../core/locale.js';
import { qrcode } from '../../core/qrcode.js';
import { type VerificationMessages, verificationMessages } from './messages/index.js';
import { earnerDocument, languageLinks } from './page.document.js';
import type { PageView } from './page.service.js';
import { REPLACED_BY_NEWER, REVOKED_BY_ISSUER } from './revocation-reason.js';

/** QR codes by page URL: encoding one costs 1-2 ms, and a shared link is viewed again and again. */
const QR_CACHE_SIZE = 1000;
const qrCache = new Map<string, Markup>();

/**
 * A copy of `text` held in one piece. The encoder builds its SVG from thousands of appended
 * fragments, and V8 keeps such a string as a tree of them: every page embedding the cached tree
 * walked it again when the response's length and bytes were computed (about 50 µs of a page's
 * 60 µs in `Buffer.byteLength`); the flat copy is walked once, here.
 */
function flat(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** The QR code of `url` as inline SVG, cached (the wallet offer page draws its offer's the same way). */
export async function qrCode(url: string): Promise<Markup> {
  const cached = qrCache.get(url);
  if (cached) return cached;
  const svg = new Markup(
    flat(await (await qrcode()).toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' })),
  );
  const oldest = qrCache.keys().next();
  if (qrCache.size >= QR_CACHE_SIZE && !oldest.done) qrCache.delete(oldest.value);
  qrCache.set(url, svg);
  return svg;
}

const DAY_MS = 86_400_000;
/** Shown dates by language and UTC day: formatting one took about 3 % of a page's CPU, and pages show few distinct days. */
const shownDays = new Map<string, string>();
const SHOWN_DAYS_MAX = 1000;

function shownDate(language: Language, at: Date): string {
  const key = `${language}${Math.floor(at.getTime() / DAY_MS)}`;
  let text = shownDays.get(key);
  if (text === undefined) {
    text = formatDate(language, at);
    const oldest = shownDays.keys().next();
    if (shownDays.size >= SHOWN_DAYS_MAX && !oldest.done) shownDays.delete(oldest.value);
    shownDays.set(key, text);
  }
  return text;
}

/** A `<time>` with the machine-readable instant and the date written for the page's language. */
export function dateMarkup(language: Language, iso: string): Markup {
  return html`<time datetime="${iso}">${shownDate(language, new Date(iso))}</time>`;
}

/**
 * `template` (a catalogue text) as markup: its own text escaped, each `{name}` replaced by the
 * value given, escaped unless it is markup built here (a link, a `<strong>`, a date).
 */
export function rich(template: string, values: Record<string, Markup | string>): Markup {
  return new Markup(
    escapeHtml(template).replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = values[name];
      if (value === undefined) return whole;
      return value instanceof Markup ? value.value : escapeHtml(value);
    }),
  );
}

/** How the page presents the credential: a reissue's original reads as replaced, not as revoked (issue 46). */
type Shown = 'valid' | 'expired' | 'revoked' | 'replaced' | 'unknown';

function shownStatus(view: PageView): Shown {
  const { status, revokedReason } = view.result;
  return status === 'revoked' && revokedReason === REPLACED_BY_NEWER ? 'replaced' : status;
}

/**
 * The valid banner's check mark, the page's one character outside Latin-1 in English. Held in the
 * page's text as its character reference, the text stays a one-byte string in V8 and is encoded to
 * UTF-8 in a fast copy; with the character itself in it, the whole page was a two-byte string, whose
 * length and UTF-8 encoding (`unibrow::Utf8::Encode`) took about 10 % of a page's CPU in a perf
 * profile. `pageBytes` puts the character's own bytes back, so the wire carries exactly what it
 * did. No interpolated text can hold this reference: escaping turns every `&` it holds into `&amp;`.
 */
const CHECK_MARK_REF = '&#x2713;';
const CHECK_MARK = new Markup(CHECK_MARK_REF);
const CHECK_MARK_UTF8 = Buffer.from('\u2713', 'utf8');

/** The page as UTF-8, its check mark (if any) as the character itself. */
function pageBytes(page: string): Buffer {
  const at = page.indexOf(CHECK_MARK_REF);
  if (at === -1) return Buffer.from(page, 'utf8');
  return Buffer.concat([
    Buffer.from(page.slice(0, at), 'utf8'),
    CHECK_MARK_UTF8,
    Buffer.from(page.slice(at + CHECK_MARK_REF.length), 'utf8'),
  ]);
}

function statusBanner(view: PageView, words: VerificationMessages, shown: Shown): Markup {
  const { result, language } = view;
  const issuer = result.issuer.name;
  const region = words.statusRegion;
  switch (shown) {
    case 'valid':
      return html`<section class="status status-valid" aria-label="${region}">
<p class="label">${CHECK_MARK} ${words.status.valid}</p><p>${rich(words.validBody, { issuer })}</p></section>`;
    case 'expired':
      return html`<section class="status status-expired" aria-label="${region}">
<p class="label">${words.status.expired}</p><p>${
        result.expiresOn
          ? rich(words.expiredBody, { issuer, date: dateMarkup(language, result.expiresOn) })
          : rich(words.expiredBodyUndated, { issuer })
      }</p></section>`;
    case 'replaced':
      return html`<section class="status status-replaced" aria-label="${region}">
<p class="label">${words.status.replaced}</p><p>${rich(words.replacedBody, { issuer })}${
        view.replacementUrl ? html` <a class="replacement" href="${view.replacementUrl}">${words.seeNewer}</a>` : ''
      }</p></section>`;
    default: {
      // The issuer's own stated reason is the issuer's to publish, as written; none is said for a
      // revocation without one (an erasure reads the same).
      const reason = result.revokedReason;
      const detail = reason && reason !== REVOKED_BY_ISSUER ? html` ${rich(words.revokedReason, { reason })}` : html``;
      return html`<section class="status status-revoked" aria-label="${region}">
<p class="label">${words.status.revoked}</p><p>${rich(words.revokedBody, { issuer })}${detail}</p></section>`;
    }
  }
}

function chips(title: string, items: readonly string[]): Markup {
  if (items.length === 0) return html``;
  return html`<h2>${title}</h2><ul class="chips">${items.map((item) => html`<li>${item}</li>`)}</ul>`;
}

function alignments(view: PageView, words: VerificationMessages): Markup {
  if (view.alignments.length === 0) return html``;
  return html`<h2>${words.alignedTo}</h2><ul class="list">${view.alignments.map((a) => {
    const url = safeUrl(a.url);
    const where = [a.framework, a.code].filter((part) => part).join(' · ');
    return html`<li>${url ? html`<a href="${url}">${a.name}</a>` : a.name}${where ? html` <span class="muted">(${where})</span>` : ''}${
      a.description ? html`<br><span class="muted">${a.description}</span>` : ''
    }</li>`;
  })}</ul>`;
}

function endorsements(view: PageView, words: VerificationMessages): Markup {
  if (view.endorsements.length === 0) return html``;
  return html`<h2>${words.endorsements}</h2><ul class="list">${view.endorsements.map((e) => {
    const url = safeUrl(e.endorserUrl);
    const endorser = url ? html`<a href="${url}">${e.endorser}</a>` : e.endorser;
    const template = e.of === 'badge' ? words.endorsingBadge : words.endorsingCredential;
    return html`<li><blockquote class="prose">${e.claim}</blockquote><span class="muted">${rich(template, {
      endorser,
      date: dateMarkup(view.language, e.on),
    })}</span></li>`;
  })}</ul>`;
}

/** The badge image; greyed with the status across it once the credential no longer stands, so a crop cannot pass as valid. */
function badgeImage(view: PageView, words: VerificationMessages, shown: Shown, imageUrl: string | undefined): Markup {
  if (!imageUrl) return html``;
  const alt = fill(words.badgeAlt, { badge: view.badgeName });
  const img = html`<img class="badge" src="${imageUrl}" alt="${alt}" width="136" height="136">`;
  if (shown === 'valid') return img;
  const word =
    shown === 'expired' ? words.stamp.expired : shown === 'replaced' ? words.stamp.replaced : words.stamp.revoked;
  const stamp = shown === 'replaced' ? 'stamp replaced' : 'stamp';
  return html`<div class="badge-frame inactive">${img}<span class="${stamp}" aria-hidden="true">${word}</span></div>`;
}

function shareLinks(view: PageView, words: VerificationMessages): Markup {
  if (view.result.status === 'revoked') return html``;
  const base = new URL(view.result.verifyPageUrl).pathname;
  const buttons = view.shareButtons.filter(({ action }) => view.result.status === 'valid' || action === 'share_link');
  return html`${buttons.map(({ action }) =>
    action === 'share_link'
      ? html`<a class="button" role="button" href="${base}/share/${action}" data-copy="${view.result.verifyPageUrl}">${words.share[action]}</a>`
      : html`<a class="button primary" href="${base}/share/${action}" target="_blank" rel="noopener">${words.share[action]}</a>`,
  )}<p id="copy-status" class="copy-status" role="status" aria-live="polite" data-copied="${words.copied}" data-copy-this="${words.copyThis}"></p>`;
}

/** The human verification page, in the language negotiated: server-rendered, every user-supplied value escaped. */
export async function renderVerificationPage(view: PageView, nonce: string): Promise<Buffer> {
  const { result, language } = view;
  const words = verificationMessages(language);
  const shown = shownStatus(view);
  const { issuer, credential } = result;
  const imageUrl = safeUrl(credential.imageUrl);
  const logoUrl = safeUrl(view.issuerLogoUrl);
  const criteriaUrl = safeUrl(view.criteriaUrl);
  const evidenceUrl = safeUrl(view.evidenceUrl);
  const issuerUrl = safeUrl(view.issuerUrl) ?? issuer.profileUrl;
  const qr = await qrCode(result.verifyPageUrl);
  const statusWord = words.status[shown];
  const names = { badge: view.badgeName, issuer: issuer.name };
  // The badge's own text is marked with its language when no translation into the page's was given
  // (WCAG 3.1.2): a screen reader then reads the English name of a French page as English.
  const textLang = view.textLanguage.toLowerCase() === language ? '' : html` lang="${view.textLanguage}"`;
  const issuedTo = result.recipientName
    ? fill(words.summaryTo, { ...names, recipient: result.recipientName })
    : fill(words.summary, names);
  // A partial name already ends in a full stop ("Grace H.").
  const summary = `${issuedTo}${issuedTo.endsWith('.') ? '' : '.'} ${fill(words.summaryStatus, { status: statusWord })}`;
  const badgeAlt = fill(words.badgeAlt, { badge: view.badgeName });
  const path = new URL(result.verifyPageUrl).pathname;

  const head = html`<meta name="description" content="${summary}">
<meta property="og:type" content="website">
<meta property="og:site_name" content="${issuer.name}">
<meta property="og:title" content="${view.badgeName} · ${issuer.name}">
<meta property="og:description" content="${summary}">
<meta property="og:url" content="${result.verifyPageUrl}">
${imageUrl && result.status === 'valid' ? html`<meta property="og:image" content="${imageUrl}"><meta property="og:image:alt" content="${badgeAlt}">` : ''}
<meta name="twitter:card" content="summary">
<link rel="canonical" href="${result.verifyPageUrl}">
<link rel="alternate" type="application/ld+json" href="${view.assertionUrl}">`;

  const endedOn = shown === 'replaced' ? words.facts.replacedOn : words.facts.revokedOn;
  const body = html`<header class="issuer-bar"><div class="inner">
${logoUrl ? html`<img src="${logoUrl}" alt="${fill(words.logoAlt, { issuer: issuer.name })}">` : ''}
<a class="issuer-name" href="${issuerUrl}">${issuer.name}</a>
${languageLinks(path, language, words.languages)}
</div></header>
<main id="main">
${statusBanner(view, words, shown)}
<div class="layout">
<div>
<article class="card credential" aria-labelledby="badge-name">
${badgeImage(view, words, shown, imageUrl)}
<div>
<h1 id="badge-name"${textLang}>${view.badgeName}</h1>
${result.recipientName ? html`<p class="lead">${rich(words.awardedTo, { recipient: html`<strong>${result.recipientName}</strong>` })}</p>` : ''}
<p class="lead">${rich(words.issuedBy, { issuer: html`<strong>${issuer.name}</strong>` })}</p>
<dl class="facts">
<dt>${words.facts.issuedOn}</dt><dd>${dateMarkup(language, result.issuedOn)}</dd>
<dt>${result.status === 'expired' ? words.facts.expiredOn : words.facts.expires}</dt><dd>${result.expiresOn ? dateMarkup(language, result.expiresOn) : words.facts.doesNotExpire}</dd>
${view.revokedAt ? html`<dt>${endedOn}</dt><dd>${dateMarkup(language, view.revokedAt)}</dd>` : ''}
${view.credits !== null ? html`<dt>${words.facts.credits}</dt><dd>${formatNumber(language, view.credits)}</dd>` : ''}
<dt>${words.facts.credentialId}</dt><dd>${view.credentialId}</dd>
</dl>
</div>
</article>
<section class="card" aria-labelledby="about">
<h2 id="about">${words.about}</h2>
<p class="prose"${textLang}>${view.description}</p>
${view.criteriaNarrative || criteriaUrl ? html`<h2>${words.criteria}</h2>` : ''}
${view.criteriaNarrative ? html`<p class="prose"${textLang}>${view.criteriaNarrative}</p>` : ''}
${criteriaUrl ? html`<p><a class="criteria" href="${criteriaUrl}">${words.fullCriteria}</a></p>` : ''}
${evidenceUrl ? html`<h2>${words.evidence}</h2><p><a class="evidence" href="${evidenceUrl}">${words.viewEvidence}</a></p>` : ''}
${alignments(view, words)}
${chips(words.skills, view.skills)}
${chips(words.tags, view.tags)}
${endorsements(view, words)}
</section>
</div>
<aside class="card share" aria-labelledby="share-heading">
<h2 id="share-heading">${words.shareHeading}</h2>
${shareLinks(view, words)}
<figure class="qr"><div role="img" aria-label="${words.qrLabel}">${qr}</div>
<figcaption>${words.scanToVerify}</figcaption></figure>
<p class="page-url">${result.verifyPageUrl}</p>
</aside>
</div>
</main>
<footer>${rich(words.footer, { assertion: html`<a href="${view.assertionUrl}">${words.assertionLink}</a>` })} <a class="download" href="${view.openBadgeCredentialUrl}?download" download="${view.credentialId}.json">${words.downloadOb3}</a> · <a href="${view.openBadgeCredentialUrl}/baked.svg" download="badge.svg">${words.bakedImage}</a>${view.bakedPngUrl ? html` (<a href="${view.bakedPngUrl}" download="badge.png">${words.png}</a>)` : ''}</footer>`;

  return pageBytes(
    earnerDocument({
      nonce,
      language,
      title: fill(words.title, { ...names, status: statusWord }),
      skip: words.skip,
      head,
      brandColor: issuer.brandPrimaryColor,
      body,
    }),
  );
}

/** The page for an id that is unknown here, malformed, or not the named issuer's. */
export function renderNotFoundPage(nonce: string, language: Language): string {
  const words = verificationMessages(language);
  return earnerDocument({
    nonce,
    language,
    title: words.notFoundTitle,
    skip: words.skip,
    body: html`<main id="main">
<section class="status status-unknown" aria-label="${words.statusRegion}">
<h1 class="label">${words.notFoundTitle}</h1>
<p>${words.notFoundBody}</p>
</section>
</main>`,
  });
}
