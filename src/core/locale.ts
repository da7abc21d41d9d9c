import { match } from '@formatjs/intl-localematcher';
import Negotiator from 'negotiator';

/*
 * The earner's language on every earner-facing surface (issue 45 §2): the verification page and its
 * embed, the wallet offer page, the emails, the backpack and the certificate all choose it the same
 * way and read their words from catalogues registered here.
 */

/** The languages every catalogue is written in (BCP 47 primary tags). To add one, see docs/i18n.md. */
export const SUPPORTED_LANGUAGES = ['en', 'fr', 'de', 'es', 'nl'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

/** Each language's own name, for a language switcher (written in that language, as W3C i18n advises). */
export const LANGUAGE_NAMES: { readonly [L in Language]: string } = {
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
  es: 'Español',
  nl: 'Nederlands',
};

/**
 * The locale dates and numbers are written in for each language: one regional convention per
 * language, so a page reads the same for every visitor who gets that language (and caches alike).
 */
const FORMAT_LOCALES: { readonly [L in Language]: string } = {
  en: 'en-GB',
  fr: 'fr-FR',
  de: 'de-DE',
  es: 'es-ES',
  nl: 'nl-NL',
};

/** RFC 5646 §4.4.1 asks implementations to take tags of at least 35 characters; longer ones are not looked at. */
const MAX_TAG_LENGTH = 35;
/** The most Accept-Language entries looked at: a header of thousands costs no more than one of twenty. */
const MAX_PREFERENCES = 20;
/** Accept-Language past this length is cut before it is parsed (a real one is well under 200 bytes). */
const MAX_HEADER_LENGTH = 1024;

const supported: readonly string[] = SUPPORTED_LANGUAGES;

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && supported.includes(value);
}

/** `tag` canonicalised when it is a well-formed BCP 47 tag; null for anything else (`*`, markup, junk). */
function wellFormed(tag: string): string | null {
  if (tag.length === 0 || tag.length > MAX_TAG_LENGTH) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The first of `tags` (in preference order) that a supported language answers, by BCP 47 lookup
 * (RFC 4647 §3.4, as ECMA-402's LookupMatcher: `fr-CH` falls back to `fr`, `nl-BE` to `nl`); null
 * when none does. Tags that are not well-formed are skipped, never an error.
 */
export function lookupLanguage(tags: readonly string[]): Language | null {
  const requested = tags.map(wellFormed).filter((tag): tag is string => tag !== null);
  if (requested.length === 0) return null;
  const found = match(requested, supported, '', { algorithm: 'lookup' });
  return isLanguage(found) ? found : null;
}

/** One tag (a stored column, a query value) as a supported language, or null. */
export function supportedLanguage(tag: unknown): Language | null {
  return typeof tag === 'string' ? lookupLanguage([tag]) : null;
}

/**
 * The languages of an Accept-Language header in the client's order of preference: q-values
 * honoured, `q=0` meaning "not this one" (RFC 9110 §12.5.4, §12.4.2), as `negotiator` reads them.
 */
export function acceptedLanguages(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return [];
  const negotiator = new Negotiator({ headers: { 'accept-language': value.slice(0, MAX_HEADER_LENGTH) } });
  return negotiator.languages().slice(0, MAX_PREFERENCES);
}

/** Where a surface's language can come from, in the order issue 45 §2 gives them. */
export interface LanguageSources {
  /** `?lang=`: the earner's own choice (a link with it, the page's language switcher). */
  query?: unknown;
  /** The browser's Accept-Language header. */
  acceptLanguage?: string | string[] | undefined;
  /** The language the credential was issued in. */
  credential?: string | null | undefined;
  /** The issuer's default language. */
  issuer?: string | null | undefined;
}

/**
 * The language to answer in: `?lang=`, else the best Accept-Language match, else the credential's
 * language, else the issuer's default, else English. A source that names no supported language (a
 * malformed tag, one we have no words for, a repeated `lang`) is passed over, never refused.
 */
export function negotiateLanguage(sources: LanguageSources): Language {
  const query = Array.isArray(sources.query) ? sources.query[0] : sources.query;
  return (
    supportedLanguage(query) ??
    lookupLanguage(acceptedLanguages(sources.acceptLanguage)) ??
    supportedLanguage(sources.credential) ??
    supportedLanguage(sources.issuer) ??
    DEFAULT_LANGUAGE
  );
}

/**
 * The tags to choose a badge's translated text by, for a surface written in `language` (issue 45
 * §2: the page's words and the badge's text in one language): each tag the sources give, in their
 * order, that falls to `language` (so `fr-CA` asked or issued in picks an `fr-CA` translation over
 * `fr`), then `language` itself. definition-translations.ts `chooseText` looks them up in turn.
 */
export function textLanguages(sources: LanguageSources, language: Language): string[] {
  const query = Array.isArray(sources.query) ? sources.query[0] : sources.query;
  const tags = [
    ...(typeof query === 'string' ? [query] : []),
    ...acceptedLanguages(sources.acceptLanguage),
    ...(sources.credential ? [sources.credential] : []),
    ...(sources.issuer ? [sources.issuer] : []),
  ];
  // Every supported language is a bare primary tag, so a tag falls to it when it starts with it.
  const chosen = tags
    .map(wellFormed)
    .filter((tag): tag is string => tag !== null && tag.split('-')[0]?.toLowerCase() === language);
  return [...new Set([...chosen, language])];
}

/** The request-side sources of a Fastify request (its `lang` query and Accept-Language header). */
export function requestLanguageSources(request: {
  query: unknown;
  headers: { 'accept-language'?: string | string[] | undefined };
}): Pick<LanguageSources, 'query' | 'acceptLanguage'> {
  const query = request.query as { lang?: unknown } | null | undefined;
  return { query: query?.lang, acceptLanguage: request.headers['accept-language'] };
}

export function formatLocale(language: Language): string {
  return FORMAT_LOCALES[language];
}

/*
 * Formats are made once per language and kept: one costs about 64 µs to make and holds ICU memory
 * outside the V8 heap until a collection finds it (notifications.render.ts measured the growth).
 */
const dateFormats = new Map<Language, Intl.DateTimeFormat>();
const numberFormats = new Map<Language, Intl.NumberFormat>();

/** A date as the long form of the language's locale ("21 November 2026", "21. November 2026"), by UTC day. */
export function formatDate(language: Language, at: Date | string): string {
  let format = dateFormats.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(FORMAT_LOCALES[language], { dateStyle: 'long', timeZone: 'UTC' });
    dateFormats.set(language, format);
  }
  return format.format(typeof at === 'string' ? new Date(at) : at);
}

/** A number with the language's grouping and decimal marks ("1,250", "1 250", "1.250"). */
export function formatNumber(language: Language, value: number): string {
  let format = numberFormats.get(language);
  if (!format) {
    format = new Intl.NumberFormat(FORMAT_LOCALES[language]);
    numberFormats.set(language, format);
  }
  return format.format(value);
}

/** Replaces `{name}` placeholders; `encode` is applied to each value (HTML escaping) or not (plain text). */
export function fill(template: string, values: Record<string, string>, encode: (text: string) => string = (t) => t) {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : encode(value);
  });
}

/** A surface's messages in every supported language; typed per surface, so a missing key fails typecheck. */
export type Catalogue<T> = { readonly [L in Language]: T };

const catalogues = new Map<string, Catalogue<object>>();

/**
 * Registers a surface's catalogue (its `messages/index.ts` calls this) and answers its lookup.
 * test/locale-catalogues.test.ts imports every `src/**\/messages/index.ts` and checks every
 * registered catalogue has every key, with the same placeholders, in every language.
 */
export function defineCatalogue<T extends object>(surface: string, catalogue: Catalogue<T>): (language: Language) => T {
  catalogues.set(surface, catalogue);
  return (language) => catalogue[language];
}

/** Every catalogue registered so far, by surface. */
export function registeredCatalogues(): ReadonlyMap<string, Catalogue<object>> {
  return catalogues;
}
