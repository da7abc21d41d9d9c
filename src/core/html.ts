/*
 * A minimal HTML builder whose default is safe: every interpolated value is escaped for both text
 * and (double-quoted) attribute contexts, unless it is markup this module built itself (`Markup`).
 * Issuer, badge and recipient names are user text and are never trusted.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/;

export function escapeHtml(text: string): string {
  // Most values (names, URLs, ids) hold none of the five: they are returned as they are, without
  // the replace's callback and new string.
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c) : text;
}

/** Markup built by this module (or a trusted generator such as the QR encoder). */
export class Markup {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Value = Markup | string | number | null | undefined | false | readonly Value[];

function render(value: Value): string {
  if (value instanceof Markup) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Markup(out);
}

/** A URL a page may link or load: http(s) only, so `javascript:` and `data:` never reach an attribute. */
export function safeUrl(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
