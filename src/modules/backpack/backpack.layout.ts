import { html, type Markup } from '../../core/html.js';
import { DEFAULT_LANGUAGE, formatDate, type Language } from '../../core/locale.js';

/** Styles by nonce, forms only to this origin, images from anywhere a badge's image may be. */
export function backpackCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' https: data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}' +
  'label{display:block;font-weight:600;margin:.5rem 0 .25rem}input[type=email]{font-size:1rem;padding:.5rem;width:100%;max-width:24rem;box-sizing:border-box}' +
  'button{font-size:1rem;padding:.5rem 1rem;border-radius:6px;border:1px solid #1f4e79;background:#1f4e79;color:#fff;cursor:pointer;margin-top:.75rem}' +
  'button.secondary{background:#fff;color:#1f4e79}button.danger{background:#a4262c;border-color:#a4262c}' +
  '.badge{border:1px solid #d0d7de;border-radius:8px;padding:1rem;margin:1rem 0;display:flex;gap:1rem}.badge img{width:72px;height:72px;object-fit:contain}' +
  '.status{font-weight:600}.status-valid,.status-verified{color:#1a7f37}.status-expired,.status-suspended{color:#9a6700}.status-revoked,.status-unverified{color:#a4262c}' +
  'textarea{font:inherit;font-size:.9rem;width:100%;box-sizing:border-box;padding:.5rem}' +
  '.links a{margin-right:1rem}.error{color:#a4262c;font-weight:600}header{display:flex;justify-content:space-between;align-items:center}' +
  'form.inline{display:inline}';

/** A backpack page in `language`: the document, its nonce'd styles and `body` in its main landmark. */
export function backpackDocument(
  title: string,
  nonce: string,
  body: Markup,
  language: Language = DEFAULT_LANGUAGE,
): string {
  return html`<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${title}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${body}</main></body></html>`.value;
}

export function csrfField(csrf: string): Markup {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

/** A date as the page's language writes it ("21 November 2026", "21. November 2026"), by UTC day. */
export const shownDate = (iso: string, language: Language = DEFAULT_LANGUAGE) => formatDate(language, iso);
