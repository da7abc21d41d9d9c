import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { publicUrls } from '../../core/urls.js';
import type { ReadCaches } from '../../db/read-cache.js';
import { chooseText, type TranslationRow } from '../definitions/definition-translations.js';
import type { DefinitionSnapshot } from '../definitions/definition-versions.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { EndorsementService } from '../endorsements/endorsements.service.js';
import type { IssuerRow } from '../issuers/issuers.repository.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { renderBadgeSvg } from './badge-image.js';
import {
  assertionDocument,
  badgeClassDocument,
  badgeClassUrlOf,
  type Edition,
  editionLanguage,
  endorsementDocument,
  endorserProfileDocument,
  issuerDocument,
  revokedAssertionDocument,
} from './documents.builders.js';
import {
  type AlignmentFields,
  type AssertionRow,
  type BadgeClassRow,
  createDocumentRepository,
} from './documents.repository.js';
import type { ObAssertion, ObRelated, ObRevokedAssertion } from './documents.schemas.js';
import { extensionContext, extensionSchema } from './extension.js';

export type AssertionOutcome =
  | { revoked: false; document: ObAssertion; verifyPageUrl: string }
  | { revoked: true; document: ObRevokedAssertion; verifyPageUrl: string };

export type AssertionImageOutcome = { revoked: false; svg: string } | { revoked: true; document: ObRevokedAssertion };

/**
 * The public Open Badges 2.0 documents and images. Everything is looked up by the issuer slug of the
 * URL first, so a resource of another issuer under this slug is simply not found.
 */
export function createDocumentService(
  core: Pick<Core, 'config' | 'db' | 'dialect'>,
  deps: {
    issuers: Pick<IssuerService, 'findIssuerBySlug'>;
    definitions: Pick<DefinitionService, 'findRow'>;
    endorsements: Pick<EndorsementService, 'findRow'>;
    readCaches: ReadCaches;
  },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const repo = createDocumentRepository(core.db, core.dialect, deps.readCaches);

  async function requireIssuer(slug: string, what: string): Promise<IssuerRow> {
    const issuer = await deps.issuers.findIssuerBySlug(slug);
    if (!issuer) throw errors.notFound(what);
    return issuer;
  }

  /**
   * The issuer's definition with its alignments, endorsement ids, translations and earlier versions
   * (and the snapshot of `version` when that is a stored one), in one statement; 404 BadgeClass
   * when there is none.
   */
  async function requireBadgeClass(slug: string, defSlug: string, version: number | null): Promise<BadgeClassRow> {
    const row = await repo.findBadgeClass(slug, defSlug, version);
    if (!row) throw errors.notFound('BadgeClass');
    return row;
  }

  /** The credential of the issuer at `slug` with everything its assertion shows; 404 when there is none. */
  async function requireAssertion(slug: string, id: string): Promise<AssertionRow> {
    const row = await repo.findAssertion(id);
    if (row?.issuer_slug !== slug) throw errors.notFound('Assertion');
    return row;
  }

  /** The edition a credential's assertion names: its version, and the edition of its language in that version. */
  const editionOfCredential = (row: AssertionRow): Edition => ({
    version: row.version_number,
    language: editionLanguage(row.version_language, JSON.parse(row.version_languages) as string[], row.language),
  });

  const liveAssertion = (row: AssertionRow) =>
    assertionDocument(urls, row, editionOfCredential(row), JSON.parse(row.endorsement_ids) as string[]);

  /**
   * The definition as version `version` showed it (definition-versions.ts): its fields and
   * translations now for the current version (or null), else the stored snapshot's; undefined for a
   * version that never was.
   */
  function shownVersion(row: BadgeClassRow, version: number | null) {
    if (version === null || version === row.version_number) {
      return { definition: row as DefinitionRow, translations: JSON.parse(row.translations) as TranslationRow[] };
    }
    if (row.version_snapshot === null) return undefined;
    const { translations, ...fields } = JSON.parse(row.version_snapshot) as DefinitionSnapshot;
    return { definition: { ...row, ...fields, version_number: version } as DefinitionRow, translations };
  }

  /**
   * The definition as `edition` shows it: the version's fields and translations, and the text of
   * the edition's language. Not found: a version that never was, or a language the version has no
   * translation in (the own language is the edition without `/in/`; a tag not in canonical form
   * names no edition, so every edition has exactly one URL).
   */
  function editionOf(row: BadgeClassRow, edition: Edition) {
    const shown = shownVersion(row, edition.version);
    if (!shown) throw errors.notFound('BadgeClass');
    const languages = shown.translations.map((t) => t.lang);
    if (edition.language !== null && !languages.includes(edition.language)) throw errors.notFound('BadgeClass');
    const text = chooseText(shown.definition, edition.language === null ? [] : shown.translations, edition.language);
    const definition: DefinitionRow = {
      ...shown.definition,
      name: text.name,
      description: text.description,
      criteria_narrative: text.criteriaNarrative,
    };
    return { definition, text, languages };
  }

  return {
    async issuerProfile(slug: string) {
      return issuerDocument(urls, await requireIssuer(slug, 'Issuer'));
    },

    /**
     * A BadgeClass edition (OB 2.0 "related": language editions and previous versions). `related`
     * lists the version's other language editions with their `@language`, both ways; the current
     * BadgeClass in the definition's own language also lists the earlier versions with their
     * `version`. A stored version's editions list no later version: what they answer never changes
     * once the version is superseded.
     */
    async badgeClass(slug: string, defSlug: string, edition: Edition = { version: null, language: null }) {
      const row = await requireBadgeClass(slug, defSlug, edition.version);
      const { definition, text, languages } = editionOf(row, edition);
      const at = (language: string | null) => badgeClassUrlOf(urls, slug, row.slug, { ...edition, language });
      const related: ObRelated[] = [
        { id: at(null), '@language': definition.language },
        ...languages.map((lang) => ({ id: at(lang), '@language': lang })),
      ].filter((entry) => entry.id !== at(edition.language));
      if (edition.version === null && edition.language === null) {
        for (const earlier of JSON.parse(row.earlier_versions) as { versionNumber: number; version: string | null }[]) {
          related.push({
            id: badgeClassUrlOf(urls, slug, row.slug, { version: earlier.versionNumber, language: null }),
            version: earlier.version ?? String(earlier.versionNumber),
          });
        }
      }
      const alignments = JSON.parse(row.alignments) as AlignmentFields[];
      return badgeClassDocument(urls, slug, definition, alignments, JSON.parse(row.endorsement_ids) as string[], {
        id: at(edition.language),
        language: text.language,
        related,
        baseUrl: core.config.publicBaseUrl,
      });
    },

    /** The generated image of an edition: its own name, in its language. */
    async badgeImage(
      slug: string,
      defSlug: string,
      edition: Edition = { version: null, language: null },
    ): Promise<string> {
      const row = await requireBadgeClass(slug, defSlug, edition.version);
      const { definition } = editionOf(row, edition);
      return renderBadgeSvg({
        name: definition.name,
        issuerName: row.issuer_name,
        brandColor: row.brand_primary_color,
      });
    },

    /** Revoked assertions answer the OB 2.0 revocation stub; expired ones are served whole (validators judge expiry). */
    async assertion(slug: string, id: string): Promise<AssertionOutcome> {
      const row = await requireAssertion(slug, id);
      const verifyPageUrl = urls.verifyPage(row.issuer_slug, row.id);
      if (row.revoked_at !== null) {
        return { revoked: true, document: revokedAssertionDocument(urls, row), verifyPageUrl };
      }
      return { revoked: false, document: liveAssertion(row), verifyPageUrl };
    },

    /** The generated badge baked with the assertion (OB 2.0 SVG baking). */
    async assertionImage(slug: string, id: string): Promise<AssertionImageOutcome> {
      const row = await requireAssertion(slug, id);
      if (row.revoked_at !== null) {
        return { revoked: true, document: revokedAssertionDocument(urls, row) };
      }
      const document = liveAssertion(row);
      const svg = renderBadgeSvg(
        { name: row.definition_name, issuerName: row.issuer_name, brandColor: row.brand_primary_color },
        { verifyUrl: document.id, assertionJson: JSON.stringify(document) },
      );
      return { revoked: false, svg };
    },

    /** The badge-data extension's JSON-LD context and JSON Schema (extension.ts). */
    extensionContext() {
      return extensionContext(core.config.publicBaseUrl);
    },
    extensionSchema() {
      return extensionSchema;
    },

    async endorsement(slug: string, id: string) {
      const issuer = await requireIssuer(slug, 'Endorsement');
      const endorsement = await deps.endorsements.findRow(issuer.id, id);
      if (!endorsement) throw errors.notFound('Endorsement');
      let endorsedUrl: string;
      if (endorsement.target_type === 'definition') {
        const definition = await deps.definitions.findRow(issuer.id, endorsement.target_id);
        if (!definition) throw errors.notFound('Endorsement');
        endorsedUrl = urls.badgeClass(issuer.slug, definition.slug);
      } else {
        endorsedUrl = urls.assertion(issuer.slug, endorsement.target_id);
      }
      return endorsementDocument(urls, issuer.slug, endorsement, endorsedUrl);
    },

    async endorserProfile(slug: string, id: string) {
      const issuer = await requireIssuer(slug, 'Profile');
      const endorsement = await deps.endorsements.findRow(issuer.id, id);
      if (!endorsement) throw errors.notFound('Profile');
      return endorserProfileDocument(urls, issuer, endorsement);
    },
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
