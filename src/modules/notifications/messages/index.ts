import { defineCatalogue } from '../../../core/locale.js';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { nl } from './nl.js';
import type { NotificationMessages } from './types.js';

export type { NotificationMessages };

/** The earner emails' and the unsubscribe page's words, in the settings' order of languages. */
export const NOTIFICATION_CATALOGUE = { en, de, fr, es, nl } as const;

/** The same words registered with the locale core, so test/locale-catalogues.test.ts checks them too. */
export const notificationMessages = defineCatalogue<NotificationMessages>('notifications', NOTIFICATION_CATALOGUE);
