/**
 * A definition's text in the languages it was translated into (issue 45 §1), and the one function
 * every page, email and certificate calls to choose what to show:
 *
 *   definitionText(db, definition, requested, options?) → Promise<DefinitionText>
 *
 * - `definition`: the DefinitionRow, or `{ issuerId, definitionId }` (another issuer's definition is
 *   not found: it throws 404 Definition).
 * - `requested`: a BCP 47 tag or a list of them, most wanted first (an `Accept-Language` already
 *   sorted by q-value, then the credential's language, ...); null or empty for the default. Each is
 *   matched by RFC 4647 §3.4 "Lookup": `fr-CH` takes an `fr-CH` translation, else `fr`; the first
 *   tag that finds one wins. The definition's own language counts as a translation of itself.
 * - `options.asOf`: a credential's `created_at`. The text is then the definition's as it was when
 *   that credential was issued (its version, definition-versions.ts), translations included, so what
 *   an earner was awarded reads the same after later edits.
 * - The answer is field by field: a translation without a criteria narrative shows the default
 *   one, so no field is ever empty because a translation lacks it. `certificateTitle` and
 *   `certificateWording` are present only when the chosen translation has them: the certificates
 *   module falls back to its own wording. `language` is the language of `name` and `description`.
 *
 * The name and shape are stable: the pages, email and certificate helpers import them.
 */
import type { Selectable } from 'kysely';
import { errors, type ValidationIssue } from '../../core/errors.js';
import { canonicalLanguage } from '../../core/language.js';
import type { Executor } from '../../db/database.js';
import type { DefinitionTranslationsTable } from '../../db/schema.js';
import { definitionAsOf } from './definition-versions.js';
import type { DefinitionRow } from './definitions.repository.js';

export type TranslationRow = Selectable<DefinitionTranslationsTable>;

/**
 * A certificate's title and wording, as a design or a translation gives them (issue 44, issue 45
 * §1): one set of limits for both, so whatever a translation holds fits the certificate's fixed
 * layout. The wording's placeholders are replaced by the credential's values when it is printed.
 */
export const CERTIFICATE_PLACEHOLDERS = [
  'earnerName',
  'badgeName',
  'issuerName',
  'issuedOn',
  'expiresOn',
  'credentialId',
] as const;
export const MAX_CERTIFICATE_TITLE = 120;
export const MAX_CERTIFICATE_WORDING = 600;
/** Printed text: no control characters except a line break (the wording may have several lines). */
export const CERTIFICATE_WORDING_PATTERN = '^[^\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f]*$';

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** A wording's placeholders must be known ones: an unknown one would print as it is. */
export function certificateWordingIssues(wording: string, path: string): ValidationIssue[] {
  const known = new Set<string>(CERTIFICATE_PLACEHOLDERS);
  return [...wording.matchAll(PLACEHOLDER)]
    .map((m) => m[1] ?? '')
    .filter((name) => !known.has(name))
    .map((name) => ({
      path,
      message: `unknown placeholder {${name}}; use ${CERTIFICATE_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
      code: 'placeholder',
    }));
}

/** The text of a definition to show in one language. */
export interface DefinitionText {
  /** The language of this text (canonical BCP 47): the translation's, or the definition's own. */
  language: string;
  name: string;
  description: string;
  /** The chosen translation's narrative, else the definition's own; null when neither has one. */
  criteriaNarrative: string | null;
  certificateTitle?: string;
  certificateWording?: string;
}

export type DefinitionRef = DefinitionRow | { issuerId: string; definitionId: string };

export function createTranslationRepository(db: Executor) {
  return {
    async list(issuerId: string, definitionId: string): Promise<TranslationRow[]> {
      return db
        .selectFrom('definition_translations')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('definition_id', '=', definitionId)
        .orderBy('lang')
        .execute();
    },
    async get(issuerId: string, definitionId: string, lang: string): Promise<TranslationRow | undefined> {
      return db
        .selectFrom('definition_translations')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('definition_id', '=', definitionId)
        .where('lang', '=', lang)
        .executeTakeFirst();
    },
    async upsert(row: TranslationRow): Promise<void> {
      await db
        .insertInto('definition_translations')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['definition_id', 'lang']).doUpdateSet({
            name: row.name,
            description: row.description,
            criteria_narrative: row.criteria_narrative,
            certificate_title: row.certificate_title,
            certificate_wording: row.certificate_wording,
            updated_at: row.updated_at,
          }),
        )
        .execute();
    },
    async delete(issuerId: string, definitionId: string, lang: string): Promise<boolean> {
      const result = await db
        .deleteFrom('definition_translations')
        .where('issuer_id', '=', issuerId)
        .where('definition_id', '=', definitionId)
        .where('lang', '=', lang)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** The tags to try for one requested tag, longest first (RFC 4647 §3.4): `zh-Hant-TW`, `zh-Hant`, `zh`. */
function lookupChain(tag: string): string[] {
  const canonical = canonicalLanguage(tag);
  if (!canonical) return [];
  const parts = canonical.split('-');
  return parts.map((_, i) => parts.slice(0, parts.length - i).join('-'));
}

/**
 * The text to show of `definition` (its default text) with `translations`, for `requested`: the pure
 * half of `definitionText`, for callers that already hold the rows.
 */
export function chooseText(
  definition: Pick<DefinitionRow, 'language' | 'name' | 'description' | 'criteria_narrative'>,
  translations: readonly TranslationRow[],
  requested: string | readonly string[] | null | undefined,
): DefinitionText {
  const fallback: DefinitionText = {
    language: definition.language,
    name: definition.name,
    description: definition.description,
    criteriaNarrative: definition.criteria_narrative,
  };
  const wanted = requested == null ? [] : typeof requested === 'string' ? [requested] : requested;
  const byLang = new Map(translations.map((t) => [t.lang.toLowerCase(), t]));
  for (const tag of wanted) {
    for (const candidate of lookupChain(tag)) {
      if (candidate.toLowerCase() === definition.language.toLowerCase()) return fallback;
      const translation = byLang.get(candidate.toLowerCase());
      if (!translation) continue;
      return {
        language: translation.lang,
        name: translation.name || fallback.name,
        description: translation.description || fallback.description,
        criteriaNarrative: translation.criteria_narrative || fallback.criteriaNarrative,
        ...(translation.certificate_title ? { certificateTitle: translation.certificate_title } : {}),
        ...(translation.certificate_wording ? { certificateWording: translation.certificate_wording } : {}),
      };
    }
  }
  return fallback;
}

/** The definition's text to show in the language asked for (see the top of this file). */
export async function definitionText(
  db: Executor,
  definition: DefinitionRef,
  requested: string | readonly string[] | null | undefined,
  options: { asOf?: string | null } = {},
): Promise<DefinitionText> {
  let row: DefinitionRow | undefined;
  if ('issuerId' in definition) {
    row = await db
      .selectFrom('definitions')
      .selectAll()
      .where('issuer_id', '=', definition.issuerId)
      .where('id', '=', definition.definitionId)
      .executeTakeFirst();
    if (!row) throw errors.notFound('Definition');
  } else {
    row = definition;
  }
  const shown = await definitionAsOf(db, row, options.asOf ?? null);
  return chooseText(shown.definition, shown.translations, requested);
}
