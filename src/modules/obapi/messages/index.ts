import { defineCatalogue } from '../../../core/locale.js';
import { de } from './de.js';
import { type ConsentMessages, en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { nl } from './nl.js';

export type { ConsentMessages };

/** The consent page of the Open Badges API's authorization, in each supported language. */
export const consentMessages = defineCatalogue<ConsentMessages>('obapi-consent', { en, fr, de, es, nl });
