import { escapeHtml } from '../../core/html.js';
import { fill, messagesFor, type NotificationLanguage } from './notifications.messages.js';

/** The unsubscribe page: styles by nonce, and the one form posting back to the same URL. */
export function unsubscribeCsp(nonce: string): string {
  return ["default-src 'none'", `style-src 'nonce-${nonce}'`, "form-action 'self'", "frame-ancestors 'none'"].join(
    '; ',
  );
}

type PageState = { kind: 'confirm'; issuerName: string } | { kind: 'done'; issuerName: string } | { kind: 'unknown' };

/** One screen of the unsubscribe flow, in the language chosen for the earner (notifications.routes.ts). */
export function renderUnsubscribePage(state: PageState, language: NotificationLanguage, nonce: string): string {
  const words = messagesFor(language).unsubscribePage;
  const issuer = state.kind === 'unknown' ? '' : state.issuerName;
  const text = (template: string) => fill(escapeHtml(template), { issuer }, escapeHtml);
  const body =
    state.kind === 'confirm'
      ? `<p>${text(words.question)}</p><form method="post"><button type="submit">${text(words.button)}</button></form>`
      : state.kind === 'done'
        ? `<p>${text(words.done)}</p><p>${text(words.undo)}</p>`
        : `<p>${text(words.unknown)}</p>`;
  return `<!doctype html>
<html lang="${escapeHtml(language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${text(words.title)}</title>
<style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #1f4e79;background:#1f4e79;color:#fff;cursor:pointer}</style>
</head><body><main><h1>${text(words.title)}</h1>${body}</main></body></html>`;
}
