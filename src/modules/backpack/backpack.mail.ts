import type { Config } from '../../config.js';
import { escapeHtml } from '../../core/html.js';
import type { MailMessage } from '../notifications/notifications.mailer.js';

/** The sign-in email: one link, how long it works, and what to do when it was not asked for. */
export function signInMail(config: Pick<Config, 'mail'>, to: string, link: string, minutes: number): MailMessage {
  const from = config.mail?.from ?? '';
  const subject = 'Your sign-in link to your badges';
  const text = [
    'Open this link to sign in to your backpack, where every badge issued to this address is kept:',
    '',
    link,
    '',
    `The link works once, for ${minutes} minutes. If you did not ask for it, ignore this email: nothing happens.`,
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1b1b1b">
<p>Open this link to sign in to your backpack, where every badge issued to this address is kept:</p>
<p><a href="${escapeHtml(link)}">Sign in to your backpack</a></p>
<p>The link works once, for ${minutes} minutes. If you did not ask for it, ignore this email: nothing happens.</p>
</body></html>`;
  return {
    from: { name: 'Badges', address: from },
    to,
    replyTo: null,
    subject,
    html,
    text,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
