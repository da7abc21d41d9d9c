import type { Config } from '../../config.js';
import { escapeHtml } from '../../core/html.js';
import type { MailMessage } from '../notifications/notifications.mailer.js';

/**
 * The team invitation (issue 46): who invites, to which role, the one-time link and until when. In
 * English, as the console is (issue 45 §2: the console stays English for now).
 */
export function inviteMail(
  config: Pick<Config, 'mail'>,
  invite: { to: string; issuerName: string; role: string; url: string; expiresAt: string },
): MailMessage {
  const until = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(
    new Date(invite.expiresAt),
  );
  const intro = `${invite.issuerName} invited you to their badge console as ${/^[aeiou]/.test(invite.role) ? 'an' : 'a'} ${invite.role}.`;
  const how = 'Open this link to set your password and sign in:';
  const expiry = `The link works once, until ${until} (UTC). If you did not expect this invitation, ignore this email: nothing happens.`;
  const text = [intro, '', how, invite.url, '', expiry].join('\n');
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1b1b1b">
<p>${escapeHtml(intro)}</p>
<p>${escapeHtml(how)}<br><a href="${escapeHtml(invite.url)}">Accept the invitation</a></p>
<p>${escapeHtml(expiry)}</p>
</body></html>`;
  return {
    from: { name: invite.issuerName, address: config.mail?.from ?? '' },
    to: invite.to,
    replyTo: null,
    subject: `${invite.issuerName} invited you to their badge console`,
    html,
    text,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
