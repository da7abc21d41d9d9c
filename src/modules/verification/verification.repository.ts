import { sql } from 'kysely';
import { credentialsByIds } from '../../db/credential-reads.js';
import type { Dialect, Executor } from '../../db/database.js';
import { jsonRows } from '../../db/dialect.js';

export { CONCURRENT_READS } from '../../db/credential-reads.js';

/*
 * The public verification read model. Verification is open: whoever holds an assertion id may check
 * it, so these reads are by credential id alone, joined with the issuer and definition they show.
 * Nothing here is reachable through an API key, and nothing personal beyond the display name (which
 * the views shorten) is selected.
 */

const VERIFY_COLUMNS = [
  'credentials.id',
  'credentials.issuer_id',
  'credentials.definition_id',
  'credentials.display_name',
  'credentials.issued_on',
  'credentials.expires_on',
  'credentials.revoked_at',
  'credentials.revoked_reason',
  'credentials.source',
  'credentials.reissued_from',
  'issuers.slug as issuer_slug',
  'issuers.name as issuer_name',
  'issuers.brand_primary_color',
  'issuers.brand_logo_url',
  'definitions.slug as definition_slug',
  'definitions.name as definition_name',
  'definitions.image_url',
] as const;

export interface VerifiableRow {
  id: string;
  issuer_id: string;
  definition_id: string;
  display_name: string | null;
  issued_on: string;
  expires_on: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
  source: string;
  reissued_from: string | null;
  issuer_slug: string;
  issuer_name: string;
  brand_primary_color: string | null;
  brand_logo_url: string | null;
  definition_slug: string;
  definition_name: string;
  image_url: string | null;
}

/** What the human page shows beyond the API result. */
export interface PageRow extends VerifiableRow {
  issuer_url: string;
  /** The issuer's Open Badges image, the page's logo when no brand logo is set. */
  issuer_image_url: string | null;
  description: string;
  criteria_narrative: string | null;
  criteria_url: string | null;
  evidence_url: string | null;
  tags: string;
  skills: string;
  /** JSON array of the definition's alignments (`PageAlignment`), oldest first. */
  alignments: string;
  /** JSON array of the badge's endorsements, then the credential's (`PageEndorsement`), each oldest first. */
  endorsements: string;
  /** The newest credential reissued from this one, if any. */
  replacement_id: string | null;
  /** The language the credential was issued in; null: the definition's own (migration 0100). */
  credential_language: string | null;
  issuer_language: string;
  /** The issuer's LinkedIn organization id (its profile setting), for the add-to-profile link. */
  issuer_linkedin_organization_id: string | null;
  definition_language: string;
  /** The credits the badge is worth (issue 45 §3), shown with the page language's number format. */
  credits_available: number | null;
  /**
   * JSON array of the definition's translations as they are now (lang, name, description,
   * criteria_narrative): the page picks its language's text from the cached row, with no read per
   * language (a translation's change touches the definition, which drops the row).
   */
  translations: string;
  /**
   * The stored version this credential was issued under (definition-versions.ts), when the
   * definition was edited since: its snapshot JSON, shown and translated instead of today's text.
   */
  version_snapshot: string | null;
}

const PAGE_COLUMNS = [
  'issuers.url as issuer_url',
  'issuers.image_url as issuer_image_url',
  'definitions.description',
  'definitions.criteria_narrative',
  'definitions.criteria_url',
  'credentials.evidence_url',
  'definitions.tags',
  'definitions.skills',
  'credentials.language as credential_language',
  'issuers.language as issuer_language',
  'issuers.linkedin_organization_id as issuer_linkedin_organization_id',
  'definitions.language as definition_language',
  'definitions.credits_available',
] as const;

/**
 * The page's children, read in the page's own statement (one round trip per page instead of four):
 * the definition's alignments, the endorsements of badge and credential, and the replacement of a
 * reissued credential (by the partial index on `reissued_from`).
 */
function pageChildren(dialect: Dialect) {
  const alignments = jsonRows(
    dialect,
    sql`select target_name, target_url, target_framework, target_code, target_description from alignments
      where alignments.issuer_id = credentials.issuer_id and alignments.definition_id = credentials.definition_id
      order by alignments.created_at, alignments.id`,
    {
      name: 'target_name',
      url: 'target_url',
      framework: 'target_framework',
      code: 'target_code',
      description: 'target_description',
    },
  );
  const endorsements = jsonRows(
    dialect,
    sql`select * from (
        select 0 as part, 'badge' as of_target, endorser_name, endorser_url, claim, created_at, id from endorsements
          where endorsements.issuer_id = credentials.issuer_id and endorsements.target_type = 'definition'
            and endorsements.target_id = credentials.definition_id
        union all
        select 1, 'credential', endorser_name, endorser_url, claim, created_at, id from endorsements
          where endorsements.issuer_id = credentials.issuer_id and endorsements.target_type = 'credential'
            and endorsements.target_id = credentials.id
      ) e order by part, created_at, id`,
    { endorser: 'endorser_name', endorserUrl: 'endorser_url', claim: 'claim', on: 'created_at', of: 'of_target' },
  );
  const replacement = sql<string | null>`(select replacement.id from credentials replacement
    where replacement.issuer_id = credentials.issuer_id and replacement.reissued_from = credentials.id
    order by replacement.created_at desc, replacement.id desc limit 1)`;
  const translations = jsonRows(
    dialect,
    sql`select lang, name, description, criteria_narrative from definition_translations
      where definition_translations.issuer_id = credentials.issuer_id
        and definition_translations.definition_id = credentials.definition_id
      order by lang`,
    { lang: 'lang', name: 'name', description: 'description', criteria_narrative: 'criteria_narrative' },
  );
  // The first version superseded after the credential was created is the one it was issued under
  // (definition-versions.ts `definitionAsOf`); none when the definition is unchanged since.
  const version = sql<string | null>`(select snapshot from definition_versions
    where definition_versions.issuer_id = credentials.issuer_id
      and definition_versions.definition_id = credentials.definition_id
      and definition_versions.superseded_at > credentials.created_at
    order by definition_versions.version_number limit 1)`;
  return [
    alignments.as('alignments'),
    endorsements.as('endorsements'),
    replacement.as('replacement_id'),
    translations.as('translations'),
    version.as('version_snapshot'),
  ] as const;
}

/** A definition's name in each language it has, for a verify answer asked in a language (the embed). */
export interface BadgeNamesRow {
  /** The definition id. */
  id: string;
  issuer_id: string;
  language: string;
  name: string;
  /** JSON array of its translations' `lang` and `name` (TranslationRow fields), by tag. */
  translations: string;
}

export function createVerificationRepository(db: Executor, dialect: Dialect) {
  const joined = () =>
    db
      .selectFrom('credentials')
      .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
      .innerJoin('definitions', 'definitions.id', 'credentials.definition_id');

  return {
    findByIds: credentialsByIds<VerifiableRow>(db, dialect, () => joined().select(VERIFY_COLUMNS)),
    findForPageByIds: credentialsByIds<PageRow>(db, dialect, () =>
      joined().select(VERIFY_COLUMNS).select(PAGE_COLUMNS).select(pageChildren(dialect)),
    ),
    /** The names of the definitions given (ids from verified rows), one statement. */
    async badgeNamesByIds(ids: readonly string[]): Promise<ReadonlyMap<string, BadgeNamesRow>> {
      if (ids.length === 0) return new Map();
      const translations = jsonRows(
        dialect,
        sql`select lang, name from definition_translations
          where definition_translations.definition_id = definitions.id
            and definition_translations.issuer_id = definitions.issuer_id
          order by lang`,
        { lang: 'lang', name: 'name' },
      );
      const rows = await db
        .selectFrom('definitions')
        .select(['definitions.id', 'definitions.issuer_id', 'definitions.language', 'definitions.name'])
        .select(translations.as('translations'))
        .where('definitions.id', 'in', [...ids])
        .execute();
      return new Map(rows.map((row) => [row.id, row]));
    },
  };
}
