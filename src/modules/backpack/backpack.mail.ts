import type { Config } from '../../config.js';
import { escapeHtml } from '../../core/html.js';
import type { MailMessage } from '../notifications/notifications.mailer.js';
import { fill, messagesFor, type NotificationLanguage } from '../notifications/notifications.messages.js';

/**
 * The sign-in email: one link, how long it works, and what to do when it was not asked for; in the
 * language of the sign-in page's request (issue 45 §2), from the earner messages' catalogue.
 */
export function signInMail(
  config: Pick<Config, 'mail'>,
  to: string,
  link: string,
  minutes: number,
  language: NotificationLanguage = 'en',
): MailMessage {
  const words = messagesFor(language).signIn;
  const values = { minutes: String(minutes) };
  const plain = (template: string) => fill(template, values);
  const rich = (template: string) => fill(escapeHtml(template), values, escapeHtml);
  const text = [plain(words.intro), '', link, '', plain(words.expiry)].join('\n');
  const html = `<!doctype html><html lang="${language}"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1b1b1b">
<p>${rich(words.intro)}</p>
<p><a href="${escapeHtml(link)}">${rich(words.button)}</a></p>
<p>${rich(words.expiry)}</p>
</body></html>`;
  return {
    from: { name: words.from, address: config.mail?.from ?? '' },
    to,
    replyTo: null,
    subject: plain(words.subject),
    html,
    text,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
