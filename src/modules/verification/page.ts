import { contrastRatio, safeHexColor, textColorOn } from '../../core/colors.js';
import { html, Markup, safeUrl } from '../../core/html.js';
import { qrcode } from '../../core/qrcode.js';
import { PAGE_ASSETS_VERSION } from './page.assets.js';
import type { PageView } from './page.service.js';
import { REVOKED_BY_ISSUER } from './revocation-reason.js';

export const PAGE_CSS_PATH = '/verify/assets/page.css';
export const PAGE_JS_PATH = '/verify/assets/page.js';

/**
 * The page's policy: scripts and styles only from this origin (plus the one nonce'd brand-colour
 * style), images from here or any web host (issuer logos and badge images are http(s) URLs the
 * issuer gave; an https page's browser upgrades http ones), nothing else. Its fixed text either
 * side of the nonce is joined once, not per response.
 */
const CSP_BEFORE_NONCE = ["default-src 'none'", "script-src 'self'", "style-src 'self' 'nonce-"].join('; ');
const CSP_AFTER_NONCE = [
  "'",
  "img-src 'self' https: http: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function pageCsp(nonce: string): string {
  return `${CSP_BEFORE_NONCE}${nonce}${CSP_AFTER_NONCE}`;
}

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

async function qrCode(url: string): Promise<Markup> {
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

const dateFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });
const DAY_MS = 86_400_000;
/** Shown dates by UTC day: formatting one took about 3 % of a page's CPU, and pages show few distinct days. */
const shownDays = new Map<number, string>();
const SHOWN_DAYS_MAX = 1000;

function shownDate(at: Date): string {
  const day = Math.floor(at.getTime() / DAY_MS);
  let text = shownDays.get(day);
  if (text === undefined) {
    text = dateFormat.format(at);
    const oldest = shownDays.keys().next();
    if (shownDays.size >= SHOWN_DAYS_MAX && !oldest.done) shownDays.delete(oldest.value);
    shownDays.set(day, text);
  }
  return text;
}

function date(iso: string): Markup {
  return html`<time datetime="${iso}">${shownDate(new Date(iso))}</time>`;
}

/** Outlines drawn in the brand colour on white need 3:1 (WCAG 1.4.11); paler brands outline in ink. */
const MIN_OUTLINE_CONTRAST = 3;

function brandStyle(nonce: string, color: string | null | undefined): Markup {
  const brand = safeHexColor(color);
  if (!brand) return html``;
  const line = contrastRatio(brand, '#ffffff') >= MIN_OUTLINE_CONTRAST ? brand : 'var(--ink)';
  return html`<style nonce="${nonce}">:root{--brand:${brand};--on-brand:${textColorOn(brand)};--brand-line:${line}}</style>`;
}

function htmlDocument(options: {
  nonce: string;
  title: string;
  head?: Markup;
  brandColor?: string | null;
  body: Markup;
}): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${options.title}</title>
${options.head}
<link rel="stylesheet" href="${PAGE_CSS_PATH}?v=${PAGE_ASSETS_VERSION}">
${brandStyle(options.nonce, options.brandColor)}
<script src="${PAGE_JS_PATH}?v=${PAGE_ASSETS_VERSION}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${options.body}
</body>
</html>`}`;
}

/**
 * The reason after "has revoked this credential.", in public words: none for a revocation without a
 * stated reason (an erasure reads the same), a link to the newer credential for a reissue.
 */
function revocationDetail(view: PageView): Markup {
  const reason = view.result.revokedReason;
  if (!reason || reason === REVOKED_BY_ISSUER) return html``;
  const replacement = view.replacementUrl
    ? html` <a class="replacement" href="${view.replacementUrl}">See the newer credential</a>`
    : '';
  return html` Reason: ${reason}.${replacement}`;
}

/**
 * The valid banner's check mark, the page's one character outside Latin-1. Held in the page's text
 * as its character reference, the text stays a one-byte string in V8 and is encoded to UTF-8 in a
 * fast copy; with the character itself in it, the whole page was a two-byte string, whose length
 * and UTF-8 encoding (`unibrow::Utf8::Encode`) took about 10 % of a page's CPU in a perf profile.
 * `pageBytes` puts the character's own bytes back, so the wire carries exactly what it did. No
 * interpolated text can hold this reference: escaping turns every `&` it holds into `&amp;`.
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

function statusBanner(view: PageView): Markup {
  const { result } = view;
  const issuer = result.issuer.name;
  switch (result.status) {
    case 'valid':
      return html`<section class="status status-valid" aria-label="Verification status">
<p class="label">${CHECK_MARK} Verified</p><p>This credential is authentic and valid. It was issued by ${issuer}.</p></section>`;
    case 'expired':
      return html`<section class="status status-expired" aria-label="Verification status">
<p class="label">Expired</p><p>This credential was issued by ${issuer} and expired on ${
        result.expiresOn ? date(result.expiresOn) : 'an earlier date'
      }.</p></section>`;
    default:
      return html`<section class="status status-revoked" aria-label="Verification status">
<p class="label">Revoked</p><p>${issuer} has revoked this credential.${revocationDetail(view)}</p></section>`;
  }
}

function chips(title: string, items: readonly string[]): Markup {
  if (items.length === 0) return html``;
  return html`<h2>${title}</h2><ul class="chips">${items.map((item) => html`<li>${item}</li>`)}</ul>`;
}

function alignments(view: PageView): Markup {
  if (view.alignments.length === 0) return html``;
  return html`<h2>Aligned to</h2><ul class="list">${view.alignments.map((a) => {
    const url = safeUrl(a.url);
    const where = [a.framework, a.code].filter((part) => part).join(' · ');
    return html`<li>${url ? html`<a href="${url}">${a.name}</a>` : a.name}${where ? html` <span class="muted">(${where})</span>` : ''}${
      a.description ? html`<br><span class="muted">${a.description}</span>` : ''
    }</li>`;
  })}</ul>`;
}

function endorsements(view: PageView): Markup {
  if (view.endorsements.length === 0) return html``;
  return html`<h2>Endorsements</h2><ul class="list">${view.endorsements.map((e) => {
    const url = safeUrl(e.endorserUrl);
    return html`<li><blockquote class="prose">${e.claim}</blockquote><span class="muted">${
      url ? html`<a href="${url}">${e.endorser}</a>` : e.endorser
    }, endorsing this ${e.of}, ${date(e.on)}</span></li>`;
  })}</ul>`;
}

/** The badge image; greyed with the status across it once the credential no longer stands, so a crop cannot pass as valid. */
function badgeImage(view: PageView, imageUrl: string | undefined): Markup {
  if (!imageUrl) return html``;
  const { status, credential } = view.result;
  const img = html`<img class="badge" src="${imageUrl}" alt="${credential.name} badge" width="136" height="136">`;
  if (status === 'valid') return img;
  const word = status === 'expired' ? 'Expired' : 'Revoked';
  return html`<div class="badge-frame inactive">${img}<span class="stamp" aria-hidden="true">${word}</span></div>`;
}

function shareLinks(view: PageView): Markup {
  if (view.result.status === 'revoked') return html``;
  const base = new URL(view.result.verifyPageUrl).pathname;
  const buttons = view.shareButtons.filter(({ action }) => view.result.status === 'valid' || action === 'share_link');
  return html`${buttons.map(({ action, label }) =>
    action === 'share_link'
      ? html`<a class="button" role="button" href="${base}/share/${action}" data-copy="${view.result.verifyPageUrl}">${label}</a>`
      : html`<a class="button primary" href="${base}/share/${action}" target="_blank" rel="noopener">${label}</a>`,
  )}<p id="copy-status" class="copy-status" role="status" aria-live="polite"></p>`;
}

/** The human verification page: server-rendered, every user-supplied value escaped. */
export async function renderVerificationPage(view: PageView, nonce: string): Promise<Buffer> {
  const { result } = view;
  const { issuer, credential } = result;
  const imageUrl = safeUrl(credential.imageUrl);
  const logoUrl = safeUrl(issuer.brandLogoUrl);
  const criteriaUrl = safeUrl(view.criteriaUrl);
  const evidenceUrl = safeUrl(view.evidenceUrl);
  const issuerUrl = safeUrl(view.issuerUrl) ?? issuer.profileUrl;
  const qr = await qrCode(result.verifyPageUrl);
  const statusWord = { valid: 'Verified', expired: 'Expired', revoked: 'Revoked', unknown: 'Unknown' }[result.status];
  const issuedTo = `${credential.name}, issued by ${issuer.name}${result.recipientName ? ` to ${result.recipientName}` : ''}`;
  // A partial name already ends in a full stop ("Grace H.").
  const summary = `${issuedTo}${issuedTo.endsWith('.') ? '' : '.'} Status: ${statusWord}.`;

  const head = html`<meta name="description" content="${summary}">
<meta property="og:type" content="website">
<meta property="og:site_name" content="${issuer.name}">
<meta property="og:title" content="${credential.name} · ${issuer.name}">
<meta property="og:description" content="${summary}">
<meta property="og:url" content="${result.verifyPageUrl}">
${imageUrl && result.status === 'valid' ? html`<meta property="og:image" content="${imageUrl}"><meta property="og:image:alt" content="${credential.name} badge">` : ''}
<meta name="twitter:card" content="summary">
<link rel="canonical" href="${result.verifyPageUrl}">
<link rel="alternate" type="application/ld+json" href="${view.assertionUrl}">`;

  const body = html`<header class="issuer-bar"><div class="inner">
${logoUrl ? html`<img src="${logoUrl}" alt="${issuer.name} logo">` : ''}
<a class="issuer-name" href="${issuerUrl}">${issuer.name}</a>
</div></header>
<main id="main">
${statusBanner(view)}
<div class="layout">
<div>
<article class="card credential" aria-labelledby="badge-name">
${badgeImage(view, imageUrl)}
<div>
<h1 id="badge-name">${credential.name}</h1>
${result.recipientName ? html`<p class="lead">Awarded to <strong>${result.recipientName}</strong></p>` : ''}
<p class="lead">Issued by <strong>${issuer.name}</strong></p>
<dl class="facts">
<dt>Issued on</dt><dd>${date(view.result.issuedOn)}</dd>
<dt>${result.status === 'expired' ? 'Expired on' : 'Expires'}</dt><dd>${result.expiresOn ? date(result.expiresOn) : 'Does not expire'}</dd>
${view.revokedAt ? html`<dt>Revoked on</dt><dd>${date(view.revokedAt)}</dd>` : ''}
<dt>Credential ID</dt><dd>${view.credentialId}</dd>
</dl>
</div>
</article>
<section class="card" aria-labelledby="about">
<h2 id="about">About this credential</h2>
<p class="prose">${view.description}</p>
${view.criteriaNarrative || criteriaUrl ? html`<h2>Criteria</h2>` : ''}
${view.criteriaNarrative ? html`<p class="prose">${view.criteriaNarrative}</p>` : ''}
${criteriaUrl ? html`<p><a class="criteria" href="${criteriaUrl}">Full criteria</a></p>` : ''}
${evidenceUrl ? html`<h2>Evidence</h2><p><a class="evidence" href="${evidenceUrl}">View the evidence</a></p>` : ''}
${alignments(view)}
${chips('Skills', view.skills)}
${chips('Tags', view.tags)}
${endorsements(view)}
</section>
</div>
<aside class="card share" aria-labelledby="share-heading">
<h2 id="share-heading">Share and verify</h2>
${shareLinks(view)}
<figure class="qr"><div role="img" aria-label="QR code linking to this verification page">${qr}</div>
<figcaption>Scan to verify this credential</figcaption></figure>
<p class="page-url">${result.verifyPageUrl}</p>
</aside>
</div>
</main>
<footer>Hosted verification of an <a href="${view.assertionUrl}">Open Badges 2.0 assertion</a>. Checked live: revocation and expiry show at once. <a href="${view.openBadgeCredentialUrl}" download="credential.json">Download (Open Badges 3.0)</a> · <a href="${view.openBadgeCredentialUrl}/baked.svg" download="badge.svg">badge image with the credential baked in</a>${view.bakedPngUrl ? html` (<a href="${view.bakedPngUrl}" download="badge.png">PNG</a>)` : ''}</footer>`;

  return pageBytes(
    htmlDocument({
      nonce,
      title: `${credential.name} · ${issuer.name} · ${statusWord} credential`,
      head,
      brandColor: issuer.brandPrimaryColor,
      body,
    }),
  );
}

/** The page for an id that is unknown here, malformed, or not the named issuer's. */
export function renderNotFoundPage(nonce: string): string {
  return htmlDocument({
    nonce,
    title: 'Credential not found',
    body: html`<main id="main">
<section class="status status-unknown" aria-label="Verification status">
<h1 class="label">Credential not found</h1>
<p>No credential matches this address. Check that the link is complete, or ask the person who shared it for a new one.</p>
</section>
</main>`,
  });
}
