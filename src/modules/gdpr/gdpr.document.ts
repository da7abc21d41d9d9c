import { html, type Markup, safeUrl } from '../../core/html.js';
import type { RecipientExport } from './gdpr.schemas.js';

/*
 * The subject access export as a document a person can read and print: one self-contained HTML
 * file (no script, no external resource) with the same content as the JSON export. Every value is
 * escaped by `html`; links are http(s) only.
 */

type Credential = RecipientExport['credentials'][number];

const STATUS_WORDS: Record<string, string> = { valid: 'Valid', expired: 'Expired', revoked: 'Revoked' };
const MESSAGE_KINDS: Record<string, string> = { award: 'Award email', reminder: 'Expiry reminder' };
const MESSAGE_STATUS: Record<string, string> = {
  queued: 'Waiting to be sent',
  sent: 'Sent',
  failed: 'Not delivered',
  suppressed: 'Not sent',
};
const SUPPRESSION_WORDS: Record<string, string> = {
  unsubscribed: 'You asked for no more emails from this issuer',
  gdpr_erasure: 'Your data was erased at your request; no more emails are sent',
};

/** A UTC instant as "21 November 2026, 10:00 UTC": the reader may be anywhere. */
function when(iso: string | null): string {
  if (iso === null) return '—';
  const at = new Date(iso);
  const day = at.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  const time = at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
  return `${day}, ${time} UTC`;
}

function link(url: string | null): Markup | string {
  const safe = safeUrl(url);
  return safe ? html`<a href="${safe}">${safe}</a>` : '—';
}

function row(label: string, value: Markup | string | null): Markup {
  return html`<tr><th scope="row">${label}</th><td>${value ?? '—'}</td></tr>`;
}

function credentialSection(credential: Credential, index: number): Markup {
  const messages = credential.notifications;
  return html`<section class="credential">
<h3>${index + 1}. ${credential.badge.name}</h3>
<table>
${row('Status', STATUS_WORDS[credential.status] ?? credential.status)}
${row('Name on the credential', credential.recipientName)}
${row('Issued', when(credential.issuedOn))}
${row('Expires', credential.expiresOn ? when(credential.expiresOn) : 'Does not expire')}
${credential.revokedAt ? row('Revoked', `${when(credential.revokedAt)}${credential.revokedReason ? ` (${credential.revokedReason})` : ''}`) : ''}
${credential.reissuedFrom ? row('Replaces credential', credential.reissuedFrom) : ''}
${credential.replacedBy ? row('Replaced by credential', credential.replacedBy) : ''}
${row('Badge description', credential.badge.description)}
${row('Verification page', link(credential.verifyUrl))}
${row('Open Badges 2.0 assertion', link(credential.assertionUrl))}
${row('Open Badges 3.0 credential', link(credential.openBadgeCredentialUrl))}
${credential.evidenceUrl ? row('Evidence', link(credential.evidenceUrl)) : ''}
${row('Reference at the issuer', credential.completionKey)}
${row('How it was issued', credential.source)}
${row('Credential id', credential.id)}
</table>
<h4>Emails about this credential</h4>
${
  messages.length === 0
    ? html`<p>None were sent.</p>`
    : html`<table class="list"><thead><tr><th scope="col">Email</th><th scope="col">What happened</th><th scope="col">First recorded</th><th scope="col">Last change</th></tr></thead><tbody>
${messages.map(
  (m) =>
    html`<tr><td>${MESSAGE_KINDS[m.kind] ?? m.kind}</td><td>${MESSAGE_STATUS[m.status] ?? m.status}${m.reason ? html`<br><span class="note">${m.reason}</span>` : ''}</td><td>${when(m.createdAt)}</td><td>${when(m.updatedAt)}</td></tr>`,
)}
</tbody></table>`
}
</section>`;
}

function auditSection(entries: RecipientExport['audit'], badgeOf: Map<string, string>): Markup {
  if (entries.length === 0) return html`<p>No records.</p>`;
  return html`<table class="list"><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">About</th><th scope="col">By</th><th scope="col">Details</th></tr></thead><tbody>
${entries.map(
  (e) =>
    html`<tr><td>${when(e.occurredAt)}</td><td>${e.action}</td><td>${badgeOf.get(e.targetId) ?? e.targetId}</td><td>${e.actor}</td><td><code>${JSON.stringify(e.details)}</code></td></tr>`,
)}
</tbody></table>`;
}

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; color: #1a1a1a; max-width: 54rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .25rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ccc; }
h3 { margin: 1.5rem 0 .5rem; } h4 { margin: 1rem 0 .25rem; font-size: 1rem; }
table { border-collapse: collapse; width: 100%; margin: .25rem 0; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid #e2e2e2; overflow-wrap: anywhere; }
th[scope=row] { width: 14rem; font-weight: 600; }
.list th { background: #f3f3f3; } .note { color: #555; font-size: .9em; } code { font-size: .85em; }
.credential { break-inside: avoid; } a { color: #0b57d0; }
@media print { body { margin: 0; max-width: none; } a { color: inherit; } }
`;

/** The export as a complete HTML document, in English. */
export function renderSubjectAccessDocument(data: RecipientExport): string {
  const badgeOf = new Map(data.credentials.map((c) => [c.id, c.badge.name]));
  const issuerLink = safeUrl(data.issuer.url);
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your data held by ${data.issuer.name}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Your data held by ${data.issuer.name}</h1>
<p>This is everything ${data.issuer.name} holds about you in its digital credentials service, prepared on ${when(data.exportedAt)} in answer to your request.
Your email address is not stored: it is kept only as a one-way code (below), used to find your records.</p>
<h2>Who holds it</h2>
<table>
${row('Organisation', data.issuer.name)}
${row('Website', issuerLink ? html`<a href="${issuerLink}">${issuerLink}</a>` : data.issuer.url)}
${row('Contact', data.issuer.email)}
</table>
<h2>About you</h2>
<table>
${row('Name as stored', data.displayName ?? 'No name is stored')}
${row('Credentials', String(data.credentials.length))}
${row('Public profile pages', String(data.profiles))}
${row('Emails', data.notificationsSuppressed ? `${SUPPRESSION_WORDS[data.notificationsSuppressed.reason] ?? data.notificationsSuppressed.reason} (since ${when(data.notificationsSuppressed.since)})` : 'You receive emails about your credentials')}
${row('Your email as stored (salted SHA-256)', html`<code>${data.recipientHash}</code>`)}
</table>
<h2>Your credentials</h2>
${data.credentials.length === 0 ? html`<p>No credentials are held for you.</p>` : data.credentials.map(credentialSection)}
<h2>The record of what was done with them</h2>
<p>Every change to your credentials is kept in an audit log that cannot be altered. Staff are shown by role, not by name.</p>
${auditSection(data.audit, badgeOf)}
</body>
</html>
`;
  return doc.value;
}
