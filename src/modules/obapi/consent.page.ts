import { escapeHtml, html, Markup } from '../../core/html.js';
import { DEFAULT_LANGUAGE, fill, type Language } from '../../core/locale.js';
import { backpackCsp } from '../backpack/backpack.pages.js';
import { type ConsentMessages, consentMessages } from './messages/index.js';

/**
 * The backpack's policy, with the client's redirect origin also a form target: the answer to
 * "Allow" redirects (through the authorization endpoint) to the client, and a browser holds every
 * redirect of a form's navigation to form-action (CSP 3).
 */
export function consentCsp(nonce: string, redirectOrigin: string | null): string {
  const policy = backpackCsp(nonce);
  if (!redirectOrigin || !/^https?:\/\/[^\s;,']+$/.test(redirectOrigin)) return policy;
  return policy.replace("form-action 'self'", `form-action 'self' ${redirectOrigin}`);
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}' +
  'button{font-size:1rem;padding:.5rem 1rem;border-radius:6px;border:1px solid #1f4e79;background:#1f4e79;color:#fff;cursor:pointer;margin:.75rem .5rem 0 0}' +
  'button.secondary{background:#fff;color:#1f4e79}li{margin:.5rem 0}code{font-size:.8rem;color:#57606a}';

/** A scope's description in the page's language (OB 3.0 §6.1's words in English); the scope itself if unknown. */
function scopeText(words: ConsentMessages, scope: string): string {
  const name = scope.split('/').at(-1) ?? scope;
  return Object.hasOwn(words.scopes, name) ? words.scopes[name as keyof ConsentMessages['scopes']] : scope;
}

/** The page's markup: `{name}` placeholders of an escaped template filled with markup made here. */
const withMarkup = (template: string, values: Record<string, Markup>) =>
  new Markup(fill(escapeHtml(template), Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.value]))));

/**
 * The consent page of the Open Badges API's authorization, in `language`: the client by the name it
 * registered (and its address), each scope it asks for as the specification describes it, "Allow"
 * and "Deny".
 */
export function consentPage(
  nonce: string,
  input: {
    action: string;
    csrf: string;
    clientName: string;
    clientUri: string | null;
    redirectHost: string;
    scopes: string[];
  },
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = consentMessages(language);
  const client = { client: input.clientName };
  const asks = withMarkup(words.asks, {
    client: html`<strong>${input.clientName}</strong>${input.clientUri ? html` (${input.clientUri})` : ''}`,
    host: html`<strong>${input.redirectHost}</strong>`,
  });
  return html`<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${fill(words.title, client)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>
<h1>${fill(words.heading, client)}</h1>
<p>${asks}</p>
<ul>${input.scopes.map((scope) => html`<li>${scopeText(words, scope)}<br><code>${scope}</code></li>`)}</ul>
<p>${words.ends}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrf}">
<button type="submit" name="decision" value="allow">${words.allow}</button>
<button type="submit" name="decision" value="deny" class="secondary">${words.deny}</button>
</form>
</main></body></html>`.value;
}

/** The answer to an authorization interaction that is unknown or over. */
export function expiredPage(nonce: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = consentMessages(language).expired;
  return html`<!doctype html><html lang="${language}"><head><meta charset="utf-8"><title>${words.title}</title><style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto}</style></head>
<body><main><h1>${words.heading}</h1><p>${words.body}</p></main></body></html>`.value;
}
