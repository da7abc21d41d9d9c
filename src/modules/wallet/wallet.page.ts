import { html, type Markup, safeUrl } from '../../core/html.js';
import { fill, type Language } from '../../core/locale.js';
import { earnerDocument, languageLinks } from '../verification/page.document.js';
import { dateMarkup, qrCode, rich } from '../verification/page.js';
import { type WalletPageMessages, walletPageMessages } from './messages/index.js';

/** What the earner's offer page shows; the links only while the offer can still be redeemed. */
export interface OfferPage {
  state: 'open' | 'used' | 'expired' | 'revoked';
  /** The language the page is written in (core/locale.ts negotiation, the credential's language included). */
  language: Language;
  issuer: { name: string; brandColor: string | null; logoUrl: string | null };
  /** The badge's name in that language (its translation, else its own), as issued. */
  badgeName: string;
  expiresAt: string;
  /** The offer needs the transaction code an LMS showed beside it (never so for the email's). */
  txCode: boolean;
  verifyPageUrl: string;
  /** The Open Badges 3.0 credential as a file to save (`?download`). */
  downloadUrl: string;
  /** The earner's own certificate link (modules/certificates); null when there is none. */
  certificateUrl: string | null;
  /** `openid-credential-offer://…` and the Learner Credential Wallet's link, while the offer is open. */
  links: { offer: string; lcw: string } | null;
}

/** Without a wallet nothing is lost: the badge's page, its file and the certificate. */
function withoutWallet(page: OfferPage, words: WalletPageMessages, explained: boolean): Markup {
  const certificate = safeUrl(page.certificateUrl);
  const links = html`<p><a class="button" href="${page.verifyPageUrl}">${words.viewBadge}</a></p>
<p><a class="button download" href="${page.downloadUrl}" download>${words.downloadOb3}</a></p>
${certificate ? html`<p><a class="button certificate" href="${certificate}">${words.downloadCertificate}</a></p>` : ''}`;
  if (!explained) return html`<div class="card">${links}</div>`;
  return html`<section class="card" aria-labelledby="without">
<h2 id="without">${words.withoutHeading}</h2><p>${words.withoutBody}</p>
${links}
</section>`;
}

async function openOffer(
  page: OfferPage,
  links: { offer: string; lcw: string },
  words: WalletPageMessages,
  language: Language,
): Promise<Markup> {
  const issuer = page.issuer.name;
  return html`<section class="card" aria-labelledby="add">
<h2 id="add">${words.howHeading}</h2>
<p>${words.howQr}</p>
<figure class="qr"><div role="img" aria-label="${words.qrLabel}">${await qrCode(links.offer)}</div></figure>
<p><a class="button primary wallet-offer" href="${links.offer}">${words.openWallet}</a></p>
<p><a class="button lcw" href="${links.lcw}" rel="noreferrer">${words.openLcw}</a></p>
<p class="muted">${rich(words.once, { issuer, date: dateMarkup(language, page.expiresAt) })}</p>
${page.txCode ? html`<p class="muted">${words.txCode}</p>` : ''}
</section>
<section class="card" aria-labelledby="what">
<h2 id="what">${words.whatHeading}</h2>
<p>${rich(words.whatBody, { issuer })}</p>
<h2>${words.whichHeading}</h2>
<ul class="list"><li>${words.whichLcw}</li><li>${words.whichOid4vci}</li></ul>
</section>
${withoutWallet(page, words, true)}`;
}

function closedOffer(page: OfferPage, words: WalletPageMessages): Markup {
  const issuer = page.issuer.name;
  const [heading, body, tone] =
    page.state === 'used'
      ? [words.usedHeading, words.usedBody, 'status-expired']
      : page.state === 'expired'
        ? [words.expiredHeading, words.expiredBody, 'status-expired']
        : [words.revokedHeading, words.revokedBody, 'status-revoked'];
  return html`<section class="status ${tone}" aria-labelledby="state"><h2 id="state" class="label">${heading}</h2><p>${rich(body, { issuer })}</p></section>
${page.state === 'revoked' ? '' : withoutWallet(page, words, false)}`;
}

/**
 * The earner's wallet offer page (issue 46: what a wallet is, which ones work, what happens without
 * one), in the language negotiated: the offer's QR code and links while it can be redeemed, what
 * became of it otherwise. Every value from the issuer is escaped; the offer links are the service's own.
 */
export async function renderOfferPage(page: OfferPage, path: string, nonce: string): Promise<string> {
  const { language } = page;
  const words = walletPageMessages(language);
  const names = { badge: page.badgeName, issuer: page.issuer.name };
  const logo = safeUrl(page.issuer.logoUrl);
  const content = page.links ? await openOffer(page, page.links, words, language) : closedOffer(page, words);
  return earnerDocument({
    nonce,
    language,
    title: fill(words.title, names),
    skip: words.skip,
    brandColor: page.issuer.brandColor,
    body: html`<header class="issuer-bar"><div class="inner">
${logo ? html`<img src="${logo}" alt="">` : ''}
<span class="issuer-name">${page.issuer.name}</span>
${languageLinks(path, language, words.languages)}
</div></header>
<main id="main" class="narrow">
<h1>${rich(words.title, names)}</h1>
<p class="lead">${rich(words.lead, names)}</p>
${content}
</main>`,
  });
}

/** The page for a link that names no offer (or the two secrets of different offers). */
export function renderOfferNotFound(language: Language, nonce: string): string {
  const words = walletPageMessages(language);
  return earnerDocument({
    nonce,
    language,
    title: words.notFoundTitle,
    skip: words.skip,
    body: html`<main id="main" class="narrow">
<section class="status status-unknown" aria-labelledby="state">
<h1 id="state" class="label">${words.notFoundTitle}</h1>
<p>${words.notFoundBody}</p>
</section>
</main>`,
  });
}
