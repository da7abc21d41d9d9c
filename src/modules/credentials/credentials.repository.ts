import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { forUpdate } from '../../db/dialect.js';
import type { CredentialsTable, DB } from '../../db/schema.js';
import type { CredentialStatus } from './credentials.schemas.js';

export type CredentialRow = Selectable<CredentialsTable>;
/** A credential with the slugs its public URLs are built from. */
export type CredentialWithSlugs = CredentialRow & { issuer_slug: string; definition_slug: string };

type Eb = ExpressionBuilder<DB, 'credentials'>;

/** SQLite only (migration 0010): credentials per issuer and definition, kept by triggers. */
type CountTables = { credential_counts: { issuer_id: string; definition_id: string; credentials: number } };

/** The SQL form of effective status (revoked, else expired when expiresOn has passed, else valid). */
export function statusCondition(eb: Eb, status: CredentialStatus, now: string) {
  if (status === 'revoked') return eb('credentials.revoked_at', 'is not', null);
  if (status === 'expired') {
    return eb.and([eb('credentials.revoked_at', 'is', null), eb('credentials.expires_on', '<=', now)]);
  }
  return eb.and([
    eb('credentials.revoked_at', 'is', null),
    eb.or([eb('credentials.expires_on', 'is', null), eb('credentials.expires_on', '>', now)]),
  ]);
}

type ListFilter = { status?: CredentialStatus; definitionId?: string; now: string };

/** The list's rows: the issuer's credentials, of one definition and one status when asked. */
function listed(eb: Eb, issuerId: string, filter: ListFilter) {
  const conditions: Expression<SqlBool>[] = [eb('credentials.issuer_id', '=', issuerId)];
  if (filter.definitionId !== undefined) conditions.push(eb('credentials.definition_id', '=', filter.definitionId));
  if (filter.status !== undefined) conditions.push(statusCondition(eb, filter.status, filter.now));
  return eb.and(conditions);
}

/**
 * `reader` runs the list page's count and rows: at a hundred thousand credentials and more the
 * count alone is tens of milliseconds, which on SQLite must not hold the event loop (Database.reader).
 */
export function createCredentialRepository(db: Executor, dialect: Dialect, reader: Executor = db) {
  const withSlugs = (from: Executor = db) =>
    from
      .selectFrom('credentials')
      .innerJoin('definitions', 'definitions.id', 'credentials.definition_id')
      .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
      .selectAll('credentials')
      .select(['issuers.slug as issuer_slug', 'definitions.slug as definition_slug']);

  /** Counts the matching credentials (every status filter, and PostgreSQL). */
  const countTotal = async (issuerId: string, filter: ListFilter) => {
    const count = await reader
      .selectFrom('credentials')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => listed(eb, issuerId, filter))
      .executeTakeFirstOrThrow();
    return Number(count.n);
  };

  /** SQLite: the total from the trigger-kept `credential_counts` rows (migration 0010). */
  const countedTotal = async (issuerId: string, definitionId: string | undefined) => {
    let counted = reader
      .withTables<CountTables>()
      .selectFrom('credential_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('credentials'), eb.lit(0)).as('n'))
      .where('issuer_id', '=', issuerId);
    if (definitionId !== undefined) counted = counted.where('definition_id', '=', definitionId);
    return Number((await counted.executeTakeFirstOrThrow()).n);
  };

  return {
    /** Inserts unless the completion key exists; true when this call created the row. */
    async insertIfNew(row: CredentialRow): Promise<boolean> {
      const inserted = await db
        .insertInto('credentials')
        .values(row)
        .onConflict((oc) => oc.columns(['issuer_id', 'completion_key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return inserted !== undefined;
    },
    async getByCompletionKey(issuerId: string, completionKey: string): Promise<CredentialWithSlugs | undefined> {
      return withSlugs()
        .where('credentials.issuer_id', '=', issuerId)
        .where('credentials.completion_key', '=', completionKey)
        .executeTakeFirst();
    },
    async getById(issuerId: string, id: string): Promise<CredentialWithSlugs | undefined> {
      return withSlugs()
        .where('credentials.issuer_id', '=', issuerId)
        .where('credentials.id', '=', id)
        .executeTakeFirst();
    },
    /** Locks the row (PostgreSQL) for a lifecycle change in the surrounding transaction. */
    async lockById(issuerId: string, id: string): Promise<CredentialRow | undefined> {
      return forUpdate(
        dialect,
        db.selectFrom('credentials').selectAll().where('issuer_id', '=', issuerId).where('id', '=', id),
      ).executeTakeFirst();
    },
    async revoke(issuerId: string, id: string, at: string, reason: string | null): Promise<void> {
      await db
        .updateTable('credentials')
        .set({ revoked_at: at, revoked_reason: reason })
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .execute();
    },
    async countReissues(issuerId: string, originalId: string): Promise<number> {
      const row = await db
        .selectFrom('credentials')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('issuer_id', '=', issuerId)
        .where('reissued_from', '=', originalId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async page(
      issuerId: string,
      filter: ListFilter,
      limit: number,
      offset: number,
    ): Promise<{ total: number; rows: CredentialWithSlugs[] }> {
      const [total, page] = await Promise.all([
        dialect === 'sqlite' && filter.status === undefined
          ? countedTotal(issuerId, filter.definitionId)
          : countTotal(issuerId, filter),
        withSlugs(reader)
          .where((eb) => listed(eb as unknown as Eb, issuerId, filter))
          .orderBy('credentials.created_at', 'desc')
          .orderBy('credentials.id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
      ]);
      return { total, rows: page };
    },
  };
}

export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
