import { sql } from 'kysely';
import { coalescedReads } from '../../db/coalesced-reads.js';
import { CONCURRENT_READS, credentialsByIds } from '../../db/credential-reads.js';
import type { Dialect, Executor } from '../../db/database.js';
import { jsonRows, jsonValues, prepared } from '../../db/dialect.js';
import type { ReadCaches } from '../../db/read-cache.js';
import type { AlignmentRow } from '../alignments/alignments.repository.js';
import type { TranslationRow } from '../definitions/definition-translations.js';
import type { DefinitionSnapshot } from '../definitions/definition-versions.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';

/**
 * The public OB 2.0 reads, each one prepared statement.
 *
 * The hosted assertion and its image, by credential id: everything either shows, in one row. The
 * credential, its issuer, its definition and its endorsements' ids used to be four reads in a row;
 * this is one statement, and concurrent reads go together as verify's do (`coalescedReads`).
 */
export interface AssertionRow {
  id: string;
  recipient_hash: string;
  issued_on: string;
  expires_on: string | null;
  evidence_url: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
  reissued_from: string | null;
  issuer_slug: string;
  issuer_name: string;
  recipient_salt: string;
  brand_primary_color: string | null;
  definition_slug: string;
  definition_name: string;
  image_url: string | null;
  /** A JSON array of the credential's endorsement ids, oldest first. */
  endorsement_ids: string;
  /** The language the credential was issued in; null for the definition's own. */
  language: string | null;
  /** The definition version the credential was issued under (definition-versions.ts `versionAt`). */
  version_number: number;
  /**
   * The language of that version's own text and a JSON array of the languages it was translated
   * into: the stored snapshot's when the version is an earlier one, else the definition's now.
   */
  version_language: string;
  version_languages: string;
}

/**
 * A BadgeClass with its alignments (`AlignmentFields`, oldest first), endorsement ids, translations
 * (`TranslationRow`, by language) and earlier versions (`{versionNumber, version}`, oldest first) as
 * JSON arrays, and the snapshot of the stored version asked for, if there is one.
 */
export type BadgeClassRow = DefinitionRow & {
  issuer_name: string;
  brand_primary_color: string | null;
  alignments: string;
  endorsement_ids: string;
  translations: string;
  earlier_versions: string;
  version_snapshot: string | null;
};

export type AlignmentFields = Pick<
  AlignmentRow,
  'target_name' | 'target_url' | 'target_description' | 'target_framework' | 'target_code' | 'target_type'
>;

/** The parameters of the BadgeClass statement, by the placeholder each is compiled with. */
const ISSUER_SLUG = ':issuerSlug';
const DEFINITION_SLUG = ':definitionSlug';
const VERSION = ':version';

const TRANSLATION_COLUMNS = [
  'issuer_id',
  'definition_id',
  'lang',
  'name',
  'description',
  'criteria_narrative',
  'certificate_title',
  'certificate_wording',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof TranslationRow)[];

export function createDocumentRepository(db: Executor, dialect: Dialect, readCaches: ReadCaches) {
  // The issuer's version string a stored version had (DefinitionSnapshot `version`).
  const snapshotVersion =
    dialect === 'postgres' ? sql`(snapshot::json ->> 'version')` : sql`json_extract(snapshot, '$.version')`;
  const endorsementIds = jsonValues(
    dialect,
    sql`select endorsements.id from endorsements
      where endorsements.issuer_id = credentials.issuer_id
        and endorsements.target_type = 'credential'
        and endorsements.target_id = credentials.id
      order by endorsements.created_at, endorsements.id`,
    'id',
  );
  // The first version superseded after the credential was created is the one it was issued under
  // (definition-versions.ts `versionAt`); none when the definition is unchanged since.
  const issuedVersion = (column: 'version_number' | 'snapshot') =>
    sql.raw(`(select definition_versions.${column} from definition_versions
      where definition_versions.issuer_id = credentials.issuer_id
        and definition_versions.definition_id = credentials.definition_id
        and definition_versions.superseded_at > credentials.created_at
      order by definition_versions.version_number limit 1)`);
  const currentLanguages = jsonValues(
    dialect,
    sql`select lang from definition_translations
      where definition_translations.issuer_id = credentials.issuer_id
        and definition_translations.definition_id = credentials.definition_id
      order by lang`,
    'lang',
  );
  const assertionsByIds = credentialsByIds<AssertionRow & { version_snapshot: string | null }>(db, dialect, () =>
    db
      .selectFrom('credentials')
      .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
      .innerJoin('definitions', 'definitions.id', 'credentials.definition_id')
      .select([
        'credentials.id',
        'credentials.recipient_hash',
        'credentials.issued_on',
        'credentials.expires_on',
        'credentials.evidence_url',
        'credentials.revoked_at',
        'credentials.revoked_reason',
        'credentials.reissued_from',
        'issuers.slug as issuer_slug',
        'issuers.name as issuer_name',
        'issuers.recipient_salt',
        'issuers.brand_primary_color',
        'definitions.slug as definition_slug',
        'definitions.name as definition_name',
        'definitions.image_url',
      ])
      .select(endorsementIds.as('endorsement_ids'))
      .select([
        'credentials.language',
        sql<number>`coalesce(${issuedVersion('version_number')}, definitions.version_number)`.as('version_number'),
        sql<string | null>`${issuedVersion('snapshot')}`.as('version_snapshot'),
        'definitions.language as version_language',
        currentLanguages.as('version_languages'),
      ]),
  );
  /**
   * The snapshot of an earlier version decides its languages and the name its image draws; the row
   * then carries no snapshot text.
   */
  const editionsOf = async (ids: readonly string[]): Promise<Map<string, AssertionRow>> => {
    const found = new Map<string, AssertionRow>();
    for (const [id, { version_snapshot: snapshot, ...row }] of await assertionsByIds(ids)) {
      const shown = snapshot === null ? null : (JSON.parse(snapshot) as DefinitionSnapshot);
      found.set(
        id,
        shown
          ? {
              ...row,
              definition_name: shown.name,
              version_language: shown.language,
              version_languages: JSON.stringify(shown.translations.map((t) => t.lang)),
            }
          : row,
      );
    }
    return found;
  };
  const badgeClass = prepared(
    db
      .selectFrom('definitions')
      .innerJoin('issuers', 'issuers.id', 'definitions.issuer_id')
      .selectAll('definitions')
      .select(['issuers.name as issuer_name', 'issuers.brand_primary_color'])
      .select([
        jsonRows(
          dialect,
          sql`select target_name, target_url, target_description, target_framework, target_code, target_type
            from alignments
            where alignments.issuer_id = definitions.issuer_id and alignments.definition_id = definitions.id
            order by alignments.created_at, alignments.id`,
          {
            target_name: 'target_name',
            target_url: 'target_url',
            target_description: 'target_description',
            target_framework: 'target_framework',
            target_code: 'target_code',
            target_type: 'target_type',
          },
        ).as('alignments'),
        jsonValues(
          dialect,
          sql`select endorsements.id from endorsements
            where endorsements.issuer_id = definitions.issuer_id
              and endorsements.target_type = 'definition'
              and endorsements.target_id = definitions.id
            order by endorsements.created_at, endorsements.id`,
          'id',
        ).as('endorsement_ids'),
        jsonRows(
          dialect,
          sql`select * from definition_translations
            where definition_translations.issuer_id = definitions.issuer_id
              and definition_translations.definition_id = definitions.id
            order by lang`,
          Object.fromEntries(TRANSLATION_COLUMNS.map((column) => [column, column])),
        ).as('translations'),
        jsonRows(
          dialect,
          sql`select version_number, ${snapshotVersion} as version from definition_versions
            where definition_versions.issuer_id = definitions.issuer_id
              and definition_versions.definition_id = definitions.id
            order by version_number`,
          { versionNumber: 'version_number', version: 'version' },
        ).as('earlier_versions'),
        sql<string | null>`(select snapshot from definition_versions
          where definition_versions.issuer_id = definitions.issuer_id
            and definition_versions.definition_id = definitions.id
            and definition_versions.version_number = ${sql.val(VERSION)})`.as('version_snapshot'),
      ])
      .where('issuers.slug', '=', ISSUER_SLUG)
      .where('definitions.slug', '=', DEFINITION_SLUG)
      .compile(),
  );

  return {
    /** The definition `definitionSlug` of the issuer at `issuerSlug`, with its alignments and endorsement ids. */
    async findBadgeClass(
      issuerSlug: string,
      definitionSlug: string,
      versionNumber: number | null,
    ): Promise<BadgeClassRow | undefined> {
      const values: Record<string, unknown> = {
        [ISSUER_SLUG]: issuerSlug,
        [DEFINITION_SLUG]: definitionSlug,
        [VERSION]: versionNumber ?? 0,
      };
      const { rows } = await db.executeQuery<BadgeClassRow>({
        ...badgeClass,
        parameters: badgeClass.parameters.map((p) => values[String(p)]),
      });
      return rows[0];
    },

    /**
     * Assertions by credential id, whatever their issuer (the caller checks the slug); read together
     * under load, and cached on PostgreSQL. The row names no issuer or definition id, so any issuer
     * or definition edit drops every cached assertion.
     */
    findAssertion: readCaches.cached('assertion', coalescedReads(editionsOf, CONCURRENT_READS), () => null),
  };
}
