import { defineCatalogue } from '../../../core/locale.js';
import { de } from './de.js';
import { en, type VerificationMessages } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { nl } from './nl.js';

export type { VerificationMessages };

/** The verification page's, 404 page's and embed's words in each supported language. */
export const verificationMessages = defineCatalogue<VerificationMessages>('verification', { en, fr, de, es, nl });
