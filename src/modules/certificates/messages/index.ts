import { defineCatalogue } from '../../../core/locale.js';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { nl } from './nl.js';
import type { CertificateMessages } from './types.js';

export type { CertificateMessages };

/** The certificate's fixed words, registered with the locale core (test/locale-catalogues.test.ts checks them). */
export const certificateMessages = defineCatalogue<CertificateMessages>('certificates', { en, fr, de, es, nl });
