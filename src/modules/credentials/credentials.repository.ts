import { type Expression, type ExpressionBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import { boundText } from '../../db/bound-text.js';
import { compiledOnce } from '../../db/compiled-once.js';
import type { Dialect, Executor } from '../../db/database.js';
import { foldedContains, forUpdate } from '../../db/dialect.js';
import type { CredentialsTable, DB } from '../../db/schema.js';
import type { CredentialStatus } from './credentials.schemas.js';

export type CredentialRow = Selectable<CredentialsTable>;
/** A credential with the slugs its public URLs are built from. */
export type CredentialWithSlugs = CredentialRow & { issuer_slug: string; definition_slug: string };

type Eb = ExpressionBuilder<DB, 'credentials'>;

/** A credential with its slugs, by one unique column within the issuer (the issuance path's reads). */
const withSlugsBy = (column: 'credentials.completion_key' | 'credentials.id') =>
  compiledOnce((db) =>
    db
      .selectFrom('credentials')
      .innerJoin('definitions', 'definitions.id', 'credentials.definition_id')
      .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
      .selectAll('credentials')
      .select(['issuers.slug as issuer_slug', 'definitions.slug as definition_slug'])
      // Each bound as `boundText`: a bare parameter makes SQLite plan this join at every call.
      .where('credentials.issuer_id', '=', boundText(''))
      .where(column, '=', boundText('')),
  );
const byCompletionKey = withSlugsBy('credentials.completion_key');
const byId = withSlugsBy('credentials.id');

/**
 * The insert of a new credential unless its completion key exists, compiled once per set of columns
 * (the row's keys with a value, in their order, as Kysely lists them): its parameters are then those
 * values in that order.
 */
const insertsByColumns = new Map<string, ReturnType<typeof compiledOnce<{ id: string }>>>();
function insertIfNewFor(row: CredentialRow, columns: string) {
  let insert = insertsByColumns.get(columns);
  if (!insert) {
    insert = compiledOnce((db) =>
      db
        .insertInto('credentials')
        .values(row)
        .onConflict((oc) => oc.columns(['issuer_id', 'completion_key']).doNothing())
        .returning('id'),
    );
    insertsByColumns.set(columns, insert);
  }
  return insert;
}

/**
 * Credentials per issuer and definition, kept by triggers: in place on SQLite (migration 0010); on
 * PostgreSQL as appended deltas, folded into the counts now and then (migration 0012).
 */
type CountTables = {
  credential_counts: { issuer_id: string; definition_id: string; credentials: number };
  credential_count_deltas: { issuer_id: string; definition_id: string; delta: number };
};

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

export type ListFilter = {
  status?: CredentialStatus;
  definitionId?: string;
  now: string;
  /** Search only (each has an index with the issuer id): the salted recipient hash, the completion key. */
  recipientHash?: string;
  completionKey?: string;
  /** Issued at or after / before these ISO times. */
  issuedFrom?: string;
  issuedTo?: string;
  /** Part of the stored name, ignoring case and accents (staff data within the issuer; db/search-fold.ts). */
  recipientName?: string;
};

/** The list's rows: the issuer's credentials, narrowed by every filter given. */
function listed(eb: Eb, dialect: Dialect, issuerId: string, filter: ListFilter) {
  const conditions: Expression<SqlBool>[] = [eb('credentials.issuer_id', '=', issuerId)];
  if (filter.definitionId !== undefined) conditions.push(eb('credentials.definition_id', '=', filter.definitionId));
  if (filter.status !== undefined) conditions.push(statusCondition(eb, filter.status, filter.now));
  if (filter.recipientHash !== undefined) conditions.push(eb('credentials.recipient_hash', '=', filter.recipientHash));
  if (filter.completionKey !== undefined) conditions.push(eb('credentials.completion_key', '=', filter.completionKey));
  if (filter.issuedFrom !== undefined) conditions.push(eb('credentials.issued_on', '>=', filter.issuedFrom));
  if (filter.issuedTo !== undefined) conditions.push(eb('credentials.issued_on', '<', filter.issuedTo));
  if (filter.recipientName !== undefined) {
    conditions.push(foldedContains(dialect, eb.ref('credentials.display_name'), filter.recipientName));
  }
  return eb.and(conditions);
}

/** Unrevoked credentials whose expiry falls after `from` and at or before `to` (ISO times). */
export type ExpiringWindow = { from: string; to: string };

function expiring(eb: Eb, issuerId: string, window: ExpiringWindow) {
  return eb.and([
    eb('credentials.issuer_id', '=', issuerId),
    eb('credentials.revoked_at', 'is', null),
    eb('credentials.expires_on', '>', window.from),
    eb('credentials.expires_on', '<=', window.to),
  ]);
}

/** Only the status-free list by definition can take its total from the kept counts. */
const countable = (filter: ListFilter) =>
  filter.status === undefined &&
  filter.recipientHash === undefined &&
  filter.completionKey === undefined &&
  filter.issuedFrom === undefined &&
  filter.issuedTo === undefined &&
  filter.recipientName === undefined;

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

  /**
   * The rows of a CSV export: the columns every export writes, with the definition's name and the
   * issuer's slug; newest first (created) or soonest first (expiry), at most `limit`.
   */
  const csvRows = (where: (eb: Eb) => Expression<SqlBool>, order: 'newest' | 'soonest', limit: number) => {
    const query = reader
      .selectFrom('credentials')
      .innerJoin('definitions', 'definitions.id', 'credentials.definition_id')
      .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
      .select([
        'credentials.id',
        'credentials.display_name',
        'credentials.completion_key',
        'credentials.issued_on',
        'credentials.expires_on',
        'credentials.revoked_at',
        'definitions.name as definition_name',
        'issuers.slug as issuer_slug',
      ])
      .where((eb) => where(eb as unknown as Eb));
    const ordered =
      order === 'newest'
        ? query.orderBy('credentials.created_at', 'desc').orderBy('credentials.id', 'desc')
        : query.orderBy('credentials.expires_on').orderBy('credentials.id');
    return ordered.limit(limit).execute();
  };

  /** Counts the matching credentials (every status filter: they depend on the time). */
  const countTotal = async (issuerId: string, filter: ListFilter) => {
    const count = await reader
      .selectFrom('credentials')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => listed(eb, dialect, issuerId, filter))
      .executeTakeFirstOrThrow();
    return Number(count.n);
  };

  /**
   * The total from the trigger-kept counts and, on PostgreSQL, the deltas not folded into them yet.
   * One statement, one snapshot: a fold committing meanwhile is seen wholly or not at all, so it is
   * never counted twice or missed. `deltaRows` is how many delta rows were summed (0 on SQLite).
   */
  const countedTotal = async (issuerId: string, definitionId: string | undefined) => {
    const counts = reader.withTables<CountTables>();
    let stored = counts
      .selectFrom('credential_counts')
      .select((eb) => [eb.ref('credentials').as('n'), eb.lit<number>(0).as('delta_row')])
      .where('issuer_id', '=', issuerId);
    let unfolded = counts
      .selectFrom('credential_count_deltas')
      .select((eb) => [eb.ref('delta').as('n'), eb.lit<number>(1).as('delta_row')])
      .where('issuer_id', '=', issuerId);
    if (definitionId !== undefined) {
      stored = stored.where('definition_id', '=', definitionId);
      unfolded = unfolded.where('definition_id', '=', definitionId);
    }
    const row = await counts
      .selectFrom((dialect === 'postgres' ? stored.unionAll(unfolded) : stored).as('parts'))
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('total'),
        eb.fn.coalesce(eb.fn.sum<number>('delta_row'), eb.lit(0)).as('delta_rows'),
      ])
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), deltaRows: Number(row.delta_rows) };
  };

  return {
    /** Inserts unless the completion key exists; true when this call created the row. */
    async insertIfNew(row: CredentialRow): Promise<boolean> {
      const given = Object.entries(row).filter(([, value]) => value !== undefined);
      const columns = given.map(([column]) => column).join(',');
      const inserted = await insertIfNewFor(row, columns)(
        db,
        dialect,
        given.map(([, value]) => value),
      );
      return inserted.length > 0;
    },
    async getByCompletionKey(issuerId: string, completionKey: string): Promise<CredentialWithSlugs | undefined> {
      return (await byCompletionKey(db, dialect, [issuerId, completionKey]))[0] as CredentialWithSlugs | undefined;
    },
    async getById(issuerId: string, id: string): Promise<CredentialWithSlugs | undefined> {
      return (await byId(db, dialect, [issuerId, id]))[0] as CredentialWithSlugs | undefined;
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
    /** The newest credential issued to replace `originalId`, if it was ever reissued. */
    async latestReplacement(issuerId: string, originalId: string): Promise<CredentialWithSlugs | undefined> {
      return withSlugs()
        .where('credentials.issuer_id', '=', issuerId)
        .where('credentials.reissued_from', '=', originalId)
        .orderBy('credentials.created_at', 'desc')
        .orderBy('credentials.id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },
    /** `deltaRows`: how many unfolded count deltas the total summed (see `foldCountDeltas`). */
    async page(
      issuerId: string,
      filter: ListFilter,
      limit: number,
      offset: number,
    ): Promise<{ total: number; deltaRows: number; rows: CredentialWithSlugs[] }> {
      const [counted, page] = await Promise.all([
        countable(filter)
          ? countedTotal(issuerId, filter.definitionId)
          : countTotal(issuerId, filter).then((total) => ({ total, deltaRows: 0 })),
        withSlugs(reader)
          .where((eb) => listed(eb as unknown as Eb, dialect, issuerId, filter))
          .orderBy('credentials.created_at', 'desc')
          .orderBy('credentials.id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
      ]);
      return { ...counted, rows: page };
    },
    /** The export's rows, newest first: at most `limit`, with the definition's name and the URLs' slugs. */
    exportRows: (issuerId: string, filter: ListFilter, limit: number) =>
      csvRows((eb) => listed(eb, dialect, issuerId, filter), 'newest', limit),
    /** The "Expiring soon" page: soonest expiry first, with the total in the window. */
    async expiringPage(issuerId: string, window: ExpiringWindow, limit: number, offset: number) {
      const [count, rows] = await Promise.all([
        reader
          .selectFrom('credentials')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where((eb) => expiring(eb, issuerId, window))
          .executeTakeFirstOrThrow(),
        withSlugs(reader)
          .where((eb) => expiring(eb as unknown as Eb, issuerId, window))
          .orderBy('credentials.expires_on')
          .orderBy('credentials.id')
          .limit(limit)
          .offset(offset)
          .execute(),
      ]);
      return { total: Number(count.n), rows };
    },
    /** The "Expiring soon" export's rows, soonest first, at most `limit`, with the definition's name. */
    expiringRows: (issuerId: string, window: ExpiringWindow, limit: number) =>
      csvRows((eb) => expiring(eb, issuerId, window), 'soonest', limit),
    /**
     * PostgreSQL: takes the issuer's count-folding lock for the surrounding transaction, or answers
     * false at once when another transaction (in any process) holds it. SQLite folds nothing.
     */
    async tryLockCountFolding(issuerId: string): Promise<boolean> {
      if (dialect !== 'postgres') return false;
      const { rows } = await sql<{ locked: boolean }>`
        select pg_try_advisory_xact_lock(hashtext('credential_count_deltas'), hashtext(${issuerId})) as locked
      `.execute(db);
      return rows[0]?.locked === true;
    },
    /**
     * PostgreSQL: moves the issuer's count deltas into its counts in one statement, so a reader sees
     * them in one place or the other; answers how many delta rows it folded. A delta committed after
     * the statement began stays for the next fold.
     */
    async foldCountDeltas(issuerId: string): Promise<number> {
      if (dialect !== 'postgres') return 0;
      const { rows } = await sql<{ folded: number }>`
        with moved as (
          delete from credential_count_deltas where issuer_id = ${issuerId}
          returning issuer_id, definition_id, delta
        ), folded as (
          insert into credential_counts (issuer_id, definition_id, credentials)
          select issuer_id, definition_id, sum(delta) from moved group by issuer_id, definition_id
          on conflict (issuer_id, definition_id)
          do update set credentials = credential_counts.credentials + excluded.credentials
        )
        select count(*)::integer as folded from moved
      `.execute(db);
      return rows[0]?.folded ?? 0;
    },
  };
}

export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
