import { sql } from 'kysely';
import { boundText } from '../../db/bound-text.js';
import type { Executor } from '../../db/database.js';

/** Stripes an unlimited plan's counters spread over; a plan with a quota counts on stripe 0 only. */
export const USAGE_STRIPES = 8;

export function createUsageRepository(db: Executor) {
  return {
    // `boundText`: a bare parameter makes SQLite plan this join at every issuance.
    async planOfIssuer(issuerId: string) {
      return db
        .selectFrom('plans as p')
        .innerJoin('issuers as i', 'i.plan_code', 'p.code')
        .selectAll('p')
        .where('i.id', '=', boundText(issuerId))
        .executeTakeFirst();
    },
    /** Adds to one stripe's counters in one statement (unlimited counting and metering). */
    async add(
      issuerId: string,
      period: string,
      stripe: number,
      counts: { issuance?: number; premiumVerification?: number },
    ): Promise<void> {
      const issuance = counts.issuance ?? 0;
      const premium = counts.premiumVerification ?? 0;
      await db
        .insertInto('usage_counters')
        .values({ issuer_id: issuerId, period, stripe, issuance, premium_verification: premium })
        .onConflict((oc) =>
          oc.columns(['issuer_id', 'period', 'stripe']).doUpdateSet({
            issuance: sql`usage_counters.issuance + ${issuance}`,
            premium_verification: sql`usage_counters.premium_verification + ${premium}`,
          }),
        )
        .execute();
    },
    /**
     * Adds `count` issuances on stripe 0 when the period's total stays within `quota`. One
     * conditional UPDATE on a locked row: PostgreSQL's row lock and SQLite's single writer make the
     * check and the increment atomic. Returns false when the quota would be exceeded.
     */
    async tryConsumeWithinQuota(issuerId: string, period: string, count: number, quota: number): Promise<boolean> {
      await db
        .insertInto('usage_counters')
        .values({ issuer_id: issuerId, period, stripe: 0, issuance: 0, premium_verification: 0 })
        .onConflict((oc) => oc.columns(['issuer_id', 'period', 'stripe']).doNothing())
        .execute();
      const updated = await db
        .updateTable('usage_counters')
        .set({ issuance: sql`issuance + ${count}` })
        .where('issuer_id', '=', issuerId)
        .where('period', '=', period)
        .where('stripe', '=', 0)
        .where(
          sql<boolean>`issuance + ${count} + (select coalesce(sum(o.issuance), 0) from usage_counters o
            where o.issuer_id = ${issuerId} and o.period = ${period} and o.stripe <> 0) <= ${quota}`,
        )
        .returning('issuance')
        .executeTakeFirst();
      return updated !== undefined;
    },
    async totals(issuerId: string, period: string): Promise<{ issuance: number; premiumVerification: number }> {
      const row = await db
        .selectFrom('usage_counters')
        .select((eb) => [
          eb.fn.coalesce(eb.fn.sum<number>('issuance'), sql<number>`0`).as('issuance'),
          eb.fn.coalesce(eb.fn.sum<number>('premium_verification'), sql<number>`0`).as('premium'),
        ])
        .where('issuer_id', '=', issuerId)
        .where('period', '=', period)
        .executeTakeFirst();
      return { issuance: Number(row?.issuance ?? 0), premiumVerification: Number(row?.premium ?? 0) };
    },
  };
}
