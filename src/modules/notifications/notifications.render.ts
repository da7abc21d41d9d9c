import { safeHexColor, textColorOn } from '../../core/colors.js';
import { escapeHtml, safeUrl } from '../../core/html.js';
import { fill, messagesFor } from './notifications.messages.js';

/** Why the earner is told: a new award, or a credential replacing an earlier one (issue 46). */
export type NotificationKind = 'award' | 'renewal' | 'reissue' | 'correction';

export interface NotificationContent {
  language: string;
  /** The award when absent. */
  kind?: NotificationKind;
  issuer: { name: string; logoUrl: string | null; brandColor: string | null };
  badgeName: string;
  issuedOn: string;
  /** Set for an expiry reminder: the message then says when the credential expires. */
  expiresOn?: string | null;
  /** The reminder's extras from the issuer's settings: their own text and a renewal link (https). */
  reminderNote?: string | null;
  renewUrl?: string | null;
  /** The definition's image, shown in the message (the verification page's; never per credential). */
  badgeImage: string;
  links: {
    verify: string;
    linkedIn: string;
    image: string;
    openBadges3: string | null;
    unsubscribe: string;
    /** The earner's own certificate link (issue 44, modules/certificates); absent or null when none. */
    certificate?: string | null;
  };
  /**
   * The earner's OpenID4VCI offer and its QR code (a PNG data URL: nothing is loaded to show it),
   * and the offer's page, which explains wallets in the earner's language (modules/wallet).
   */
  wallet?: { offer: string; qr: string; lcw: string; page: string } | null;
}

export interface RenderedMessage {
  subject: string;
  html: string;
  text: string;
}

const DEFAULT_BRAND = '#1f4e79';

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * One date format per locale, made once (64 µs to make, 1.4 µs to use). A format holds about 28 KB of ICU memory outside the V8
 * heap, freed only when a collection finds its small wrapper: one per message grew a 50,000-message
 * drain's resident memory by about 60 MB (heaptrack, 2026-11-26). Languages are the message files'.
 */
function dateFormat(locale: string): Intl.DateTimeFormat {
  let format = dateFormats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
    dateFormats.set(locale, format);
  }
  return format;
}

/**
 * The earner's email in HTML and plain text: the award, or with `expiresOn` the expiry reminder.
 * Everything in it is server data (issuer and badge names are escaped), every link is one of the
 * service's own URLs or the issuer's logo, and nothing loads from anywhere that could tell who
 * opened it: no pixels, no per-recipient image URLs (the badge image is the definition's, as on the
 * verification page). Dates are written as the verification page writes them: long form, UTC.
 */
export function renderNotification(content: NotificationContent): RenderedMessage {
  const messages = messagesFor(content.language);
  const reminder = content.expiresOn ? messages.reminder : null;
  const renewUrl = reminder ? safeUrl(content.renewUrl ?? null) : null;
  const replacement = content.kind && content.kind !== 'award' ? messages.replacement[content.kind] : null;
  const words = reminder
    ? { ...messages, ...reminder, body: renewUrl ? reminder.bodyWithLink : reminder.body, issuedOn: reminder.expiresOn }
    : { ...messages, ...replacement };
  const note = reminder ? (content.reminderNote?.trim() ?? '') : '';
  const format = dateFormat(messages.locale);
  const date = format.format(new Date(content.expiresOn ?? content.issuedOn));
  const values = { issuer: content.issuer.name, badge: content.badgeName, date };
  const plain = (template: string) => fill(template, values);
  const rich = (template: string) => fill(escapeHtml(template), values, escapeHtml);

  const brand = safeHexColor(content.issuer.brandColor) ?? DEFAULT_BRAND;
  const onBrand = textColorOn(brand);
  const logo = safeUrl(content.issuer.logoUrl);
  const { links } = content;
  const actions: [string, string][] = [
    [words.addToLinkedIn, links.linkedIn],
    [words.downloadImage, links.image],
    ...(links.openBadges3 ? [[words.downloadOb3, links.openBadges3] as [string, string]] : []),
    ...(links.certificate ? [[words.yourCertificate, links.certificate] as [string, string]] : []),
  ];

  const button = `<a href="${escapeHtml(links.verify)}" style="display:inline-block;padding:12px 20px;border-radius:6px;background:${brand};color:${onBrand};font-weight:bold;text-decoration:none">${rich(words.viewBadge)}</a>`;
  const secondary = actions
    .map(
      ([label, href]) =>
        `<p style="margin:8px 0"><a href="${escapeHtml(href)}" style="color:#1a4f8b">${escapeHtml(label)}</a></p>`,
    )
    .join('');
  const renewButton = renewUrl
    ? `<a href="${escapeHtml(renewUrl)}" style="display:inline-block;padding:12px 20px;border-radius:6px;background:${brand};color:${onBrand};font-weight:bold;text-decoration:none">${rich(reminder?.renew ?? '')}</a>`
    : '';
  // The issuer's own words, as written: escaped, its line breaks kept.
  const noteBlock = note
    ? `<p style="font-size:14px;color:#555;margin:0 0 4px">${rich(reminder?.issuerNote ?? '')}</p>
<blockquote style="margin:0 0 20px;padding:8px 12px;border-left:4px solid ${brand};font-size:15px;line-height:1.5">${escapeHtml(note).replace(/\r?\n/g, '<br>')}</blockquote>
`
    : '';
  const wallet = content.wallet;
  const walletBlock = wallet
    ? `<p style="margin:20px 0 8px"><a href="${escapeHtml(wallet.page)}" style="display:inline-block;padding:10px 18px;border-radius:6px;border:2px solid ${brand};color:#1b1b1b;font-weight:bold;text-decoration:none">${escapeHtml(words.addToWallet)}</a></p>
<p style="margin:0"><img src="${escapeHtml(wallet.qr)}" alt="${escapeHtml(words.addToWallet)}" width="160" height="160"></p>
<p style="font-size:13px;color:#555;margin:4px 0 0">${escapeHtml(words.walletHint)}</p>
<p style="margin:8px 0"><a href="${escapeHtml(wallet.lcw)}" style="color:#1a4f8b">${escapeHtml(words.addToLcw)}</a></p>
`
    : '';
  const html = `<!doctype html>
<html lang="${escapeHtml(content.language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${rich(words.subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1b1b1b">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:${brand};color:${onBrand};padding:16px 24px;font-size:18px;font-weight:bold">${logo ? `<img src="${escapeHtml(logo)}" alt="" height="32" style="vertical-align:middle;margin-right:12px;max-height:32px">` : ''}${escapeHtml(content.issuer.name)}</td></tr>
<tr><td style="padding:24px">
<p style="margin:0 0 16px"><img src="${escapeHtml(content.badgeImage)}" alt="${escapeHtml(content.badgeName)}" width="120" height="120" style="display:block;width:120px;height:120px"></p>
<h1 style="font-size:22px;margin:0 0 12px">${rich(words.heading)}</h1>
<p style="font-size:16px;line-height:1.5;margin:0 0 8px">${rich(words.body)}</p>
<p style="font-size:14px;color:#555;margin:0 0 20px">${rich(words.issuedOn)}</p>
${noteBlock}<p style="margin:0 0 20px">${renewUrl ? renewButton : button}</p>
${renewUrl ? `<p style="margin:8px 0"><a href="${escapeHtml(links.verify)}" style="color:#1a4f8b">${rich(words.viewBadge)}</a></p>` : ''}
${secondary}
${walletBlock}</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid #e3e5e8;font-size:12px;color:#555;line-height:1.5">${rich(words.footer)}<br><a href="${escapeHtml(links.unsubscribe)}" style="color:#555">${rich(words.unsubscribe)}</a></td></tr>
</table></td></tr></table></body></html>`;

  const text = [
    plain(words.heading),
    '',
    plain(words.body),
    plain(words.issuedOn),
    '',
    ...(note ? [plain(reminder?.issuerNote ?? ''), note, ''] : []),
    ...(renewUrl ? [`${plain(reminder?.renew ?? '')}: ${renewUrl}`] : []),
    `${plain(words.viewBadge)}: ${links.verify}`,
    ...actions.map(([label, href]) => `${label}: ${href}`),
    ...(content.wallet
      ? [`${words.addToWallet}: ${content.wallet.page}`, `${words.addToLcw}: ${content.wallet.lcw}`]
      : []),
    '',
    '--',
    plain(words.footer),
    `${plain(words.unsubscribe)}: ${links.unsubscribe}`,
    '',
  ].join('\n');

  return { subject: plain(words.subject), html, text };
}
