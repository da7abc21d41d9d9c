import type { Executor } from '../../db/database.js';

/** Ids per `where id in (...)`: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

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
  description: string;
  criteria_narrative: string | null;
  criteria_url: string | null;
  tags: string;
  skills: string;
}

export function createVerificationRepository(db: Executor) {
  const joined = () =>
    db
      .selectFrom('credentials')
      .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
      .innerJoin('definitions', 'definitions.id', 'credentials.definition_id');
  // The single-id reads (the API's and the page's) are the hottest queries of the service: built
  // and compiled once, then only their parameter changes (half the cost of building the query per
  // request).
  const byId = joined().select(VERIFY_COLUMNS).where('credentials.id', '=', '').compile();
  const forPage = joined()
    .select(VERIFY_COLUMNS)
    .select([
      'issuers.url as issuer_url',
      'definitions.description',
      'definitions.criteria_narrative',
      'definitions.criteria_url',
      'definitions.tags',
      'definitions.skills',
    ])
    .where('credentials.id', '=', '')
    .compile();

  return {
    /** Set-based: one query per chunk of ids, whatever their number or issuers. */
    async findByIds(ids: readonly string[]): Promise<Map<string, VerifiableRow>> {
      const unique = [...new Set(ids)];
      const found = new Map<string, VerifiableRow>();
      if (unique.length === 1) {
        const { rows } = await db.executeQuery<VerifiableRow>({ ...byId, parameters: unique });
        for (const row of rows) found.set(row.id, row);
        return found;
      }
      for (let i = 0; i < unique.length; i += CHUNK) {
        const rows = await joined()
          .select(VERIFY_COLUMNS)
          .where('credentials.id', 'in', unique.slice(i, i + CHUNK))
          .execute();
        for (const row of rows) found.set(row.id, row);
      }
      return found;
    },

    async findForPage(id: string): Promise<PageRow | undefined> {
      const { rows } = await db.executeQuery<PageRow>({ ...forPage, parameters: [id] });
      return rows[0];
    },
  };
}
