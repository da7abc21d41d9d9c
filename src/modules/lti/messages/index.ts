import { defineCatalogue } from '../../../core/locale.js';
import { de } from './de.js';
import { en, type LtiMessages } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { nl } from './nl.js';

export type { LtiMessages };

/** The LTI tool's pages in each supported language. */
export const ltiMessages = defineCatalogue<LtiMessages>('lti-pages', { en, fr, de, es, nl });
