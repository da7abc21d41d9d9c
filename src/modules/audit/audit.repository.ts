import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { AuditLogTable } from '../../db/schema.js';

export type AuditRow = Selectable<AuditLogTable>;

export function createAuditRepository(db: Executor) {
  return {
    /**
     * Returns one chain head, creating it when missing. The no-op upsert takes the row lock on
     * PostgreSQL (held until the transaction ends) in the same round trip that reads the head.
     */
    async lockHead(issuerId: string, stripe: number): Promise<{ seq: number; hash: string }> {
      return db
        .insertInto('audit_heads')
        .values({ issuer_id: issuerId, stripe, seq: 0, hash: '' })
        .onConflict((oc) =>
          oc.columns(['issuer_id', 'stripe']).doUpdateSet((eb) => ({ seq: eb.ref('audit_heads.seq') })),
        )
        .returning(['seq', 'hash'])
        .executeTakeFirstOrThrow();
    },
    async moveHead(issuerId: string, stripe: number, seq: number, hash: string): Promise<void> {
      await db
        .updateTable('audit_heads')
        .set({ seq, hash })
        .where('issuer_id', '=', issuerId)
        .where('stripe', '=', stripe)
        .execute();
    },
    async insertMany(rows: AuditRow[]): Promise<void> {
      for (let i = 0; i < rows.length; i += 500) {
        await db
          .insertInto('audit_log')
          .values(rows.slice(i, i + 500))
          .execute();
      }
    },
    async list(issuerId: string, limit: number, offset: number): Promise<{ total: number; rows: AuditRow[] }> {
      const [count, rows] = await Promise.all([
        db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('issuer_id', '=', issuerId)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('audit_log')
          .selectAll()
          .where('issuer_id', '=', issuerId)
          .orderBy('occurred_at', 'desc')
          .orderBy('stripe', 'desc')
          .orderBy('seq', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
      ]);
      return { total: Number(count.n), rows };
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
  };
}
