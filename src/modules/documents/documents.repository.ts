import { sql } from 'kysely';
import { coalescedReads } from '../../db/coalesced-reads.js';
import { CONCURRENT_READS, credentialsByIds } from '../../db/credential-reads.js';
import type { Dialect, Executor } from '../../db/database.js';
import { jsonRows, jsonValues, prepared } from '../../db/dialect.js';
import type { ReadCaches } from '../../db/read-cache.js';
import type { AlignmentRow } from '../alignments/alignments.repository.js';
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
}

/** A BadgeClass with its alignments (`AlignmentFields`, oldest first) and endorsement ids, as JSON arrays. */
export type BadgeClassRow = DefinitionRow & {
  issuer_name: string;
  brand_primary_color: string | null;
  alignments: string;
  endorsement_ids: string;
};

export type AlignmentFields = Pick<
  AlignmentRow,
  'target_name' | 'target_url' | 'target_description' | 'target_framework' | 'target_code'
>;

export function createDocumentRepository(db: Executor, dialect: Dialect, readCaches: ReadCaches) {
  const endorsementIds = jsonValues(
    dialect,
    sql`select endorsements.id from endorsements
      where endorsements.issuer_id = credentials.issuer_id
        and endorsements.target_type = 'credential'
        and endorsements.target_id = credentials.id
      order by endorsements.created_at, endorsements.id`,
    'id',
  );
  const assertionsByIds = credentialsByIds<AssertionRow>(db, dialect, () =>
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
      .select(endorsementIds.as('endorsement_ids')),
  );
  const badgeClass = prepared(
    db
      .selectFrom('definitions')
      .innerJoin('issuers', 'issuers.id', 'definitions.issuer_id')
      .selectAll('definitions')
      .select(['issuers.name as issuer_name', 'issuers.brand_primary_color'])
      .select([
        jsonRows(
          dialect,
          sql`select target_name, target_url, target_description, target_framework, target_code from alignments
            where alignments.issuer_id = definitions.issuer_id and alignments.definition_id = definitions.id
            order by alignments.created_at, alignments.id`,
          {
            target_name: 'target_name',
            target_url: 'target_url',
            target_description: 'target_description',
            target_framework: 'target_framework',
            target_code: 'target_code',
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
      ])
      .where('issuers.slug', '=', '')
      .where('definitions.slug', '=', '')
      .compile(),
  );

  return {
    /** The definition `definitionSlug` of the issuer at `issuerSlug`, with its alignments and endorsement ids. */
    async findBadgeClass(issuerSlug: string, definitionSlug: string): Promise<BadgeClassRow | undefined> {
      const { rows } = await db.executeQuery<BadgeClassRow>({
        ...badgeClass,
        parameters: [issuerSlug, definitionSlug],
      });
      return rows[0];
    },

    /**
     * Assertions by credential id, whatever their issuer (the caller checks the slug); read together
     * under load, and cached on PostgreSQL. The row names no issuer or definition id, so any issuer
     * or definition edit drops every cached assertion.
     */
    findAssertion: readCaches.cached('assertion', coalescedReads(assertionsByIds, CONCURRENT_READS), () => null),
  };
}
