import { defineCatalogue } from '../../../core/locale.js';
import { de } from './de.js';
import { type ClrMessages, en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { nl } from './nl.js';

export type { ClrMessages };

/** The backpack's learner records section in each supported language. */
export const clrMessages = defineCatalogue<ClrMessages>('clr-section', { en, fr, de, es, nl });
