import type { Selectable } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { executeAll, unnestVaryingRows, valuesStatements } from '../../db/dialect.js';
import type { AuditLogTable } from '../../db/schema.js';

export type AuditRow = Selectable<AuditLogTable>;

/** What `GET /api/v1/audit` narrows the records to; every member given must match. */
export interface AuditFilter {
  targetType?: string;
  targetId?: string;
  action?: string;
  actor?: string;
  /** occurred_at at or after this instant (ISO 8601, UTC). */
  from?: string;
  /** occurred_at before this instant. */
  to?: string;
}

const AUDIT_COLUMNS = [
  'id',
  'issuer_id',
  'stripe',
  'seq',
  'occurred_at',
  'actor',
  'action',
  'target_type',
  'target_id',
  'details',
  'prev_hash',
  'hash',
] as const satisfies readonly (keyof AuditRow)[];

const SQLITE_ROWS_PER_INSERT = 500;
const TARGETS_PER_QUERY = 500;
const auditValues = valuesStatements<AuditRow>(AUDIT_COLUMNS, SQLITE_ROWS_PER_INSERT, (executor, template) =>
  executor.insertInto('audit_log').values(template),
);

export function createAuditRepository(db: Executor, dialect: Dialect) {
  return {
    /**
     * Returns the heads of `stripes` (ascending), creating missing ones, in one statement. The no-op
     * upsert takes the row locks on PostgreSQL (held until the transaction ends) in the order the
     * values are listed, so callers that list stripes in ascending order never deadlock.
     */
    async lockHeads(issuerId: string, stripes: number[]): Promise<Map<number, { seq: number; hash: string }>> {
      const heads = await db
        .insertInto('audit_heads')
        .values(stripes.map((stripe) => ({ issuer_id: issuerId, stripe, seq: 0, hash: '' })))
        .onConflict((oc) =>
          oc.columns(['issuer_id', 'stripe']).doUpdateSet((eb) => ({ seq: eb.ref('audit_heads.seq') })),
        )
        .returning(['stripe', 'seq', 'hash'])
        .execute();
      return new Map(heads.map((head) => [head.stripe, { seq: head.seq, hash: head.hash }]));
    },
    /** Moves several locked heads in one statement. */
    async moveHeads(issuerId: string, heads: { stripe: number; seq: number; hash: string }[]): Promise<void> {
      await db
        .insertInto('audit_heads')
        .values(heads.map((head) => ({ issuer_id: issuerId, ...head })))
        .onConflict((oc) =>
          oc
            .columns(['issuer_id', 'stripe'])
            .doUpdateSet((eb) => ({ seq: eb.ref('excluded.seq'), hash: eb.ref('excluded.hash') })),
        )
        .execute();
    },
    /**
     * Inserts records as multi-row statements; on PostgreSQL as one statement over `unnest` arrays,
     * which the server parses and plans once whatever the number of rows; on SQLite in statements of
     * 500 rows or a power of two (`valuesStatements`).
     */
    async insertMany(rows: AuditRow[]): Promise<void> {
      if (rows.length === 0) return;
      if (dialect === 'postgres') {
        await db
          .insertInto('audit_log')
          .columns(AUDIT_COLUMNS)
          .expression(unnestVaryingRows(rows, AUDIT_COLUMNS, { stripe: 'int4', seq: 'int4' }))
          .execute();
        return;
      }
      await executeAll(db, auditValues(db, rows));
    },
    /**
     * Newest first; `filter` narrows by target type and/or id (index audit_log_issuer_target), action,
     * actor and a range of occurred_at.
     */
    async list(
      issuerId: string,
      limit: number,
      offset: number,
      filter: AuditFilter = {},
    ): Promise<{ total: number; rows: AuditRow[] }> {
      const base = db
        .selectFrom('audit_log')
        .where('issuer_id', '=', issuerId)
        .$if(filter.targetId !== undefined, (q) => q.where('target_id', '=', filter.targetId as string))
        .$if(filter.targetType !== undefined, (q) => q.where('target_type', '=', filter.targetType as string))
        .$if(filter.action !== undefined, (q) => q.where('action', '=', filter.action as string))
        .$if(filter.actor !== undefined, (q) => q.where('actor', '=', filter.actor as string))
        .$if(filter.from !== undefined, (q) => q.where('occurred_at', '>=', filter.from as string))
        .$if(filter.to !== undefined, (q) => q.where('occurred_at', '<', filter.to as string));
      const [count, rows] = await Promise.all([
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        base
          .selectAll()
          .orderBy('occurred_at', 'desc')
          .orderBy('stripe', 'desc')
          .orderBy('seq', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
      ]);
      return { total: Number(count.n), rows };
    },
    /** Every record about any of `targetIds`, oldest first (index audit_log_issuer_target), 500 ids a query. */
    async aboutTargets(issuerId: string, targetIds: readonly string[]): Promise<AuditRow[]> {
      const rows: AuditRow[] = [];
      for (let start = 0; start < targetIds.length; start += TARGETS_PER_QUERY) {
        const ids = targetIds.slice(start, start + TARGETS_PER_QUERY);
        rows.push(
          ...(await db
            .selectFrom('audit_log')
            .selectAll()
            .where('issuer_id', '=', issuerId)
            .where('target_id', 'in', ids)
            .execute()),
        );
      }
      return rows.sort((a, b) => a.occurred_at.localeCompare(b.occurred_at) || a.stripe - b.stripe || a.seq - b.seq);
    },
    /** The emails of an issuer's console users among `ids` (staff data, shown to the same issuer's staff). */
    async userEmails(issuerId: string, ids: string[]): Promise<{ id: string; email: string }[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('console_users')
        .select(['id', 'email'])
        .where('issuer_id', '=', issuerId)
        .where('id', 'in', ids)
        .execute();
    },
    /** The labels and prefixes of an issuer's API keys among `ids`. */
    async keyLabels(issuerId: string, ids: string[]): Promise<{ id: string; label: string | null; prefix: string }[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('api_keys')
        .select(['id', 'label', 'prefix'])
        .where('issuer_id', '=', issuerId)
        .where('id', 'in', ids)
        .execute();
    },
    /** One chain in order, a page at a time. */
    async chainPage(issuerId: string, stripe: number, afterSeq: number, size: number): Promise<AuditRow[]> {
      return db
        .selectFrom('audit_log')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('stripe', '=', stripe)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(size)
        .execute();
    },
    async chains(issuerId?: string): Promise<{ issuer_id: string; stripe: number }[]> {
      let query = db.selectFrom('audit_log').select(['issuer_id', 'stripe']).distinct();
      if (issuerId) query = query.where('issuer_id', '=', issuerId);
      return query.orderBy('issuer_id').orderBy('stripe').execute();
    },
    /** The chain heads (the newest record's seq and hash per stripe), of every issuer or of one. */
    async heads(issuerId?: string): Promise<{ issuer_id: string; stripe: number; seq: number; hash: string }[]> {
      let query = db.selectFrom('audit_heads').select(['issuer_id', 'stripe', 'seq', 'hash']).where('seq', '>', 0);
      if (issuerId) query = query.where('issuer_id', '=', issuerId);
      return query.orderBy('issuer_id').orderBy('stripe').execute();
    },
    async headOf(issuerId: string, stripe: number): Promise<{ seq: number; hash: string } | undefined> {
      return db
        .selectFrom('audit_heads')
        .select(['seq', 'hash'])
        .where('issuer_id', '=', issuerId)
        .where('stripe', '=', stripe)
        .where('seq', '>', 0)
        .executeTakeFirst();
    },
    async recordAt(issuerId: string, stripe: number, seq: number): Promise<{ id: string; hash: string } | undefined> {
      return db
        .selectFrom('audit_log')
        .select(['id', 'hash'])
        .where('issuer_id', '=', issuerId)
        .where('stripe', '=', stripe)
        .where('seq', '=', seq)
        .executeTakeFirst();
    },
  };
}
