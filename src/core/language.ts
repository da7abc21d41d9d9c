import { Type } from '@sinclair/typebox';
import { errors } from './errors.js';

/** The longest language tag taken: BCP 47 §4.4.1 asks implementations to take at least 35 characters. */
export const LANGUAGE_TAG_MAX = 64;

/**
 * The shape of a language tag the API takes, in any letter case: a language, an optional script, an
 * optional region (RFC 5646 §2.1). canonicalLanguage decides the rest.
 */
export const LANGUAGE_TAG_PATTERN = '^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?$';

/** A BCP 47 language tag as the API takes it; the service stores its canonical form. */
export const LanguageTag = (description = 'A BCP 47 language tag (RFC 5646), such as fr, de-CH or pt-BR') =>
  Type.String({ minLength: 2, maxLength: LANGUAGE_TAG_MAX, pattern: LANGUAGE_TAG_PATTERN, description });

/**
 * The tags an Open Badges 3.0 `inLanguage` (its LanguageCode type) may hold, as the 1EdTech JSON
 * Schema writes it: language, optional script, optional region (`fr`, `zh-Hant-TW`, `es-419`).
 */
const OB3_LANGUAGE_CODE = /^[a-z]{2,4}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$/;

/**
 * The canonical form of a BCP 47 tag (RFC 5646 §4.5: `EN-us` is `en-US`), or undefined when it is not
 * a well-formed tag, or one with variants or extensions, which an OB 3.0 `inLanguage` cannot carry.
 * ECMA-402's `Intl.getCanonicalLocales` is the parser and canonicaliser, so the service takes exactly
 * the tags the pages' `Intl` formatting can use.
 */
export function canonicalLanguage(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > LANGUAGE_TAG_MAX) return undefined;
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
  return canonical !== undefined && OB3_LANGUAGE_CODE.test(canonical) ? canonical : undefined;
}

/** `canonicalLanguage`, or a 400 naming `path` when the tag is malformed. */
export function requireLanguage(tag: string, path: string): string {
  const canonical = canonicalLanguage(tag);
  if (canonical === undefined) {
    const message =
      'Not a BCP 47 language tag of a language, an optional script and an optional region, such as fr, de-CH or zh-Hant-TW.';
    throw errors.validation(message, [{ path, message, code: 'language' }]);
  }
  return canonical;
}
