import { type SelectQueryBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { prepared } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';

/** Ids per `where id in (...)` on SQLite: well under its bound-parameter limit. */
const CHUNK = 500;

/**
 * How the single-id reads run together (`coalescedReads`): at most 4 at once, leaving the rest of
 * the PostgreSQL pool (10) to writes; each takes up to CHUNK waiting ids.
 */
export const CONCURRENT_READS = { maxInFlight: 4, maxKeys: CHUNK };

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
  evidence_url: string | null;
  tags: string;
  skills: string;
}

const PAGE_COLUMNS = [
  'issuers.url as issuer_url',
  'definitions.description',
  'definitions.criteria_narrative',
  'definitions.criteria_url',
  'credentials.evidence_url',
  'definitions.tags',
  'definitions.skills',
] as const;

type Joined<R> = SelectQueryBuilder<DB, 'credentials' | 'issuers' | 'definitions', R>;

export function createVerificationRepository(db: Executor, dialect: Dialect) {
  const joined = () =>
    db
      .selectFrom('credentials')
      .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
      .innerJoin('definitions', 'definitions.id', 'credentials.definition_id');

  /**
   * Rows of `query` by credential id, set-based whatever the ids' number or issuers: one statement
   * on PostgreSQL (the ids as one array parameter), one per CHUNK ids on SQLite. The single-id reads
   * (the API's and the page's) are the hottest queries of the service, and on PostgreSQL so is the
   * many-id one (concurrent verifies are read together): their statements are compiled once, then
   * only given parameters (half the cost of building the query per request), and prepared once per
   * PostgreSQL connection.
   */
  function byIds<R extends { id: string }>(query: () => Joined<R>) {
    const one = prepared(query().where('credentials.id', '=', '').compile());
    // One parameter, an array, for any number of ids: a single prepared text.
    const many =
      dialect === 'postgres'
        ? prepared(
            query()
              .where(sql<boolean>`${sql.ref('credentials.id')} = any(${sql.val([])}::text[])`)
              .compile(),
          )
        : null;
    return async (ids: readonly string[]): Promise<Map<string, R>> => {
      const unique = [...new Set(ids)];
      const found = new Map<string, R>();
      const add = (rows: readonly R[]) => {
        for (const row of rows) found.set(row.id, row);
      };
      if (unique.length === 1) add((await db.executeQuery<R>({ ...one, parameters: unique })).rows);
      else if (many) add((await db.executeQuery<R>({ ...many, parameters: [unique] })).rows);
      else {
        for (let i = 0; i < unique.length; i += CHUNK) {
          add(
            await query()
              .where('credentials.id', 'in', unique.slice(i, i + CHUNK))
              .execute(),
          );
        }
      }
      return found;
    };
  }

  return {
    findByIds: byIds<VerifiableRow>(() => joined().select(VERIFY_COLUMNS)),
    findForPageByIds: byIds<PageRow>(() => joined().select(VERIFY_COLUMNS).select(PAGE_COLUMNS)),
  };
}
