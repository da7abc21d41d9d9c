import { defineCatalogue, formatLocale, type Language } from '../../../core/locale.js';
import { de } from './de.js';
import { type BackpackMessages, en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { nl } from './nl.js';

export type { BackpackMessages };

/** The backpack's pages (and its public collections) in each supported language. */
export const backpackMessages = defineCatalogue<BackpackMessages>('backpack', { en, fr, de, es, nl });

const pluralRules = new Map<Language, Intl.PluralRules>();

/** `one` or `other` by the language's plural rule for `count` (CLDR: French 0 and 1 are both "one"). */
export function plural(language: Language, count: number, one: string, other: string): string {
  let rules = pluralRules.get(language);
  if (!rules) {
    rules = new Intl.PluralRules(formatLocale(language));
    pluralRules.set(language, rules);
  }
  return rules.select(count) === 'one' ? one : other;
}
