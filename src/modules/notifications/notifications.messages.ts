import { de } from './messages/de.js';
import { en } from './messages/en.js';
import { fr } from './messages/fr.js';
import type { NotificationMessages } from './messages/types.js';

/** The languages a notification can be written in, by BCP 47 primary tag. */
export const MESSAGES = { en, de, fr } as const satisfies Record<string, NotificationMessages>;
export type NotificationLanguage = keyof typeof MESSAGES;
export const LANGUAGES = Object.keys(MESSAGES) as NotificationLanguage[];

export function messagesFor(language: string): NotificationMessages {
  return MESSAGES[language as NotificationLanguage] ?? MESSAGES.en;
}

/** Replaces `{name}` placeholders; `encode` is applied to each value (HTML) or not (plain text). */
export function fill(template: string, values: Record<string, string>, encode: (text: string) => string = (t) => t) {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : encode(value);
  });
}
