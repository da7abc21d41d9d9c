import { de } from './messages/de.js';
import { en } from './messages/en.js';
import { es } from './messages/es.js';
import { fr } from './messages/fr.js';
import { nl } from './messages/nl.js';
import type { NotificationMessages } from './messages/types.js';

/** The languages an earner's email can be written in, by BCP 47 primary tag (issue 45 §2). */
export const MESSAGES = { en, de, fr, es, nl } as const satisfies Record<string, NotificationMessages>;
export type NotificationLanguage = keyof typeof MESSAGES;
export const LANGUAGES = Object.keys(MESSAGES) as NotificationLanguage[];

/** The message language of a BCP 47 tag (`fr-BE` → `fr`), or null when none is written. */
export function supportedLanguage(tag: string | null | undefined): NotificationLanguage | null {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return Object.hasOwn(MESSAGES, primary) ? (primary as NotificationLanguage) : null;
}

/** The first candidate a message can be written in (most wanted first), else English. */
export function firstLanguage(...candidates: (string | null | undefined)[]): NotificationLanguage {
  for (const candidate of candidates) {
    const language = supportedLanguage(candidate);
    if (language) return language;
  }
  return 'en';
}

/**
 * The languages of an `Accept-Language` header (RFC 9110 §12.5.4), most wanted first: q-values
 * honoured, `q=0` and `*` dropped, at most 20 ranges read (the header is the client's to make long).
 */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',', 20)
    .map((range, order) => {
      const [tag = '', ...params] = range.trim().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), order };
    })
    .filter((range) => range.q > 0 && range.tag !== '' && range.tag !== '*')
    .sort((a, b) => b.q - a.q || a.order - b.order)
    .map((range) => range.tag);
}

export function messagesFor(language: string): NotificationMessages {
  return MESSAGES[firstLanguage(language)];
}

/** Replaces `{name}` placeholders; `encode` is applied to each value (HTML) or not (plain text). */
export function fill(template: string, values: Record<string, string>, encode: (text: string) => string = (t) => t) {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : encode(value);
  });
}
