import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { contrastRatio, safeHexColor, textColorOn } from '../../core/colors.js';
import { html, type Markup } from '../../core/html.js';
import { LANGUAGE_NAMES, type Language, SUPPORTED_LANGUAGES } from '../../core/locale.js';
import { PAGE_ASSETS_VERSION } from './page.assets.js';

export const PAGE_CSS_PATH = '/verify/assets/page.css';
export const PAGE_JS_PATH = '/verify/assets/page.js';

/**
 * The policy of the earner's pages: scripts and styles only from this origin (plus the one nonce'd
 * brand-colour style), images from here or any web host (issuer logos and badge images are http(s)
 * URLs the issuer gave; an https page's browser upgrades http ones), nothing else. Its fixed text
 * either side of the nonce is joined once, not per response.
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

/** Outlines drawn in the brand colour on white need 3:1 (WCAG 1.4.11); paler brands outline in ink. */
const MIN_OUTLINE_CONTRAST = 3;

function brandStyle(nonce: string, color: string | null | undefined): Markup {
  const brand = safeHexColor(color);
  if (!brand) return html``;
  const line = contrastRatio(brand, '#ffffff') >= MIN_OUTLINE_CONTRAST ? brand : 'var(--ink)';
  return html`<style nonce="${nonce}">:root{--brand:${brand};--on-brand:${textColorOn(brand)};--brand-line:${line}}</style>`;
}

/**
 * Links to the same page in each other language (`?lang=`, which wins over Accept-Language), each
 * named in its own language and marked with it (WCAG 3.1.2), so a reader whose browser asked for
 * the wrong one can switch.
 */
export function languageLinks(path: string, current: Language, label: string): Markup {
  return html`<nav class="languages" aria-label="${label}"><ul>${SUPPORTED_LANGUAGES.map((language) =>
    language === current
      ? html`<li><span aria-current="true">${LANGUAGE_NAMES[language]}</span></li>`
      : html`<li><a href="${path}?lang=${language}" lang="${language}" hreflang="${language}">${LANGUAGE_NAMES[language]}</a></li>`,
  )}</ul></nav>`;
}

/** An earner page: `<html lang>` the language negotiated, the shared stylesheet and script, the brand colour. */
export function earnerDocument(options: {
  nonce: string;
  language: Language;
  title: string;
  skip: string;
  head?: Markup;
  brandColor?: string | null;
  body: Markup;
}): string {
  return `<!doctype html>${html`<html lang="${options.language}">
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
<a class="skip" href="#main">${options.skip}</a>
${options.body}
</body>
</html>`}`;
}

/**
 * `lang` chooses the page's language ahead of Accept-Language. Any value is taken, a repeated one
 * too: one that names no supported language is ignored, so a page link never fails for it.
 */
export const PageQuery = Type.Object({
  lang: Type.Optional(
    Type.Union([Type.String({ maxLength: 8192 }), Type.Array(Type.String({ maxLength: 8192 }))], {
      // A URL is at most 8 KiB (app.ts answers 414 beyond): the bound every page parameter states.
      maxLength: 8192,
      description:
        'A BCP 47 language tag (en, fr, de, es, nl; a regional tag falls back to its language). Any other value is ignored.',
    }),
  ),
});

/**
 * The page's language follows `?lang=` and Accept-Language: a cache must key it by both (the query is
 * in the URL; RFC 9110 §12.5.5), and the answer says which language it is in.
 */
export function languageHeaders(reply: FastifyReply, language: string): FastifyReply {
  return reply.header('vary', 'Accept-Language').header('content-language', language);
}
