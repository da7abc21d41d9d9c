import { acceptedLanguages, fill, type Language, supportedLanguage } from '../../core/locale.js';
import { NOTIFICATION_CATALOGUE, type NotificationMessages, notificationMessages } from './messages/index.js';

/*
 * The email side of issue 45 §2 reads Accept-Language, matches tags and fills placeholders with the
 * locale core's functions, so an email, its unsubscribe page and the verification page agree on the
 * language a reader asked for.
 */
export { acceptedLanguages, fill };

/** The languages an earner's email can be written in, by BCP 47 primary tag. */
export type NotificationLanguage = Language;
export const LANGUAGES = Object.keys(NOTIFICATION_CATALOGUE) as NotificationLanguage[];

/** The first candidate a message can be written in (most wanted first; `fr-BE` finds `fr`), else English. */
export function firstLanguage(...candidates: (string | null | undefined)[]): NotificationLanguage {
  for (const candidate of candidates) {
    const language = supportedLanguage(candidate);
    if (language) return language;
  }
  return 'en';
}

export function messagesFor(language: string): NotificationMessages {
  return notificationMessages(firstLanguage(language));
}
