import { sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { jsonValues, prepared } from '../../db/dialect.js';

/**
 * The hosted assertion and its image, by issuer slug and credential id: everything either shows, in
 * one row. The credential, its issuer, its definition and its endorsements' ids used to be four
 * reads in a row; this is one statement, compiled once and prepared on each PostgreSQL connection.
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

export function createDocumentRepository(db: Executor, dialect: Dialect) {
  const endorsementIds = jsonValues(
    dialect,
    sql`select endorsements.id from endorsements
      where endorsements.issuer_id = credentials.issuer_id
        and endorsements.target_type = 'credential'
        and endorsements.target_id = credentials.id
      order by endorsements.created_at, endorsements.id`,
    'id',
  );
  const assertion = prepared(
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
      .where('issuers.slug', '=', '')
      .where('credentials.id', '=', '')
      .compile(),
  );

  return {
    async findAssertion(issuerSlug: string, id: string): Promise<AssertionRow | undefined> {
      const { rows } = await db.executeQuery<AssertionRow>({ ...assertion, parameters: [issuerSlug, id] });
      return rows[0];
    },
  };
}
