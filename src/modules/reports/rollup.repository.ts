import type { Kysely } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { dayEnd, dayStart } from './window.js';

/** The reports module's own tables (migrations 0008, 0009, 0011 and 0031): closed UTC days rolled up per issuer. */
export type ReportTables = {
  report_rolled_days: { issuer_id: string; day: string; rolled_at: string };
  report_credential_days: { issuer_id: string; day: string; definition_id: string; credentials: number };
  report_verified_credentials: { issuer_id: string; credential_id: string; last_day: string };
  report_verified_credential_days: { issuer_id: string; credential_id: string; day: string };
  report_verification_days: { issuer_id: string; day: string; definition_id: string; channel: string; events: number };
  report_verification_countries: { issuer_id: string; day: string; country: string; events: number };
  report_engagement_days: { issuer_id: string; day: string; definition_id: string; action: string; events: number };
  report_pathway_rollups: {
    issuer_id: string;
    pathway_id: string;
    definitions: string;
    rolled_before: string;
    recipients: number;
  };
  report_pathway_recipients: { issuer_id: string; pathway_id: string; recipient_hash: string };
};

/** What a pathway's rolled-up recipients stand for: its distinct stage definitions, sorted and joined. */
export function stageKey(definitionIds: readonly string[]): string {
  return [...new Set(definitionIds)].sort().join(',');
}

export type ReportDb = Kysely<DB & ReportTables>;

export function reportDb(db: Executor): ReportDb {
  return db.withTables<ReportTables>();
}

const ROLLUP_TABLES = [
  'report_credential_days',
  'report_verified_credentials',
  'report_verified_credential_days',
  'report_verification_days',
  'report_verification_countries',
  'report_engagement_days',
  'report_pathway_recipients',
  'report_pathway_rollups',
  'report_rolled_days',
] as const;

export function createRollupRepository(executor: Executor, dialect: Dialect) {
  const db = reportDb(executor);

  /** An issuer's verifications on one UTC day, with the definition of the credential each concerns. */
  const verificationsOn = (issuerId: string, day: string) =>
    db
      .selectFrom('verification_events as e')
      .innerJoin('credentials as c', (join) =>
        join.onRef('c.id', '=', 'e.credential_id').onRef('c.issuer_id', '=', 'e.issuer_id'),
      )
      .where('e.issuer_id', '=', issuerId)
      .where('e.occurred_at', '>=', dayStart(day))
      .where('e.occurred_at', '<', dayEnd(day));

  /** An issuer's engagements on one UTC day, with the definition of the credential each concerns. */
  const engagementsOn = (issuerId: string, day: string) =>
    db
      .selectFrom('engagement_events as e')
      .innerJoin('credentials as c', (join) =>
        join.onRef('c.id', '=', 'e.credential_id').onRef('c.issuer_id', '=', 'e.issuer_id'),
      )
      .where('e.issuer_id', '=', issuerId)
      .where('e.occurred_at', '>=', dayStart(day))
      .where('e.occurred_at', '<', dayEnd(day));

  return {
    /** The days in [fromDay, toDay] already rolled up for the issuer. */
    async rolledDays(issuerId: string, fromDay: string, toDay: string): Promise<Set<string>> {
      const rows = await db
        .selectFrom('report_rolled_days')
        .select('day')
        .where('issuer_id', '=', issuerId)
        .where('day', '>=', fromDay)
        .where('day', '<=', toDay)
        .execute();
      return new Set(rows.map((r) => r.day));
    },

    /** The UTC day of the issuer's first credential or event; null without any. */
    async earliestDay(issuerId: string): Promise<string | null> {
      const firsts: string[] = [];
      const credential = await db
        .selectFrom('credentials')
        .select((eb) => eb.fn.min('created_at').as('first'))
        .where('issuer_id', '=', issuerId)
        .executeTakeFirst();
      if (typeof credential?.first === 'string') firsts.push(credential.first);
      for (const table of ['verification_events', 'engagement_events'] as const) {
        const row = await db
          .selectFrom(table)
          .select((eb) => eb.fn.min('occurred_at').as('first'))
          .where('issuer_id', '=', issuerId)
          .executeTakeFirst();
        if (typeof row?.first === 'string') firsts.push(row.first);
      }
      return firsts.sort()[0]?.slice(0, 10) ?? null;
    },

    /**
     * Inside a transaction: claims the day (a concurrent request that claimed it first makes this a
     * no-op) and stores its per-definition credential, channel and action counts, its per-country
     * counts, each credential verified on it, and the day as the last verified day of each.
     */
    async rollUpDay(issuerId: string, day: string, rolledAt: string): Promise<void> {
      const claimed = await db
        .insertInto('report_rolled_days')
        .values({ issuer_id: issuerId, day, rolled_at: rolledAt })
        .onConflict((oc) => oc.columns(['issuer_id', 'day']).doNothing())
        .returning('day')
        .executeTakeFirst();
      if (!claimed) return;
      await db
        .insertInto('report_credential_days')
        .columns(['issuer_id', 'day', 'definition_id', 'credentials'])
        .expression(
          db
            .selectFrom('credentials')
            .where('issuer_id', '=', issuerId)
            .where('created_at', '>=', dayStart(day))
            .where('created_at', '<', dayEnd(day))
            .select((eb) => [
              eb.val(issuerId).as('issuer_id'),
              eb.val(day).as('day'),
              'definition_id',
              eb.fn.countAll<number>().as('credentials'),
            ])
            .groupBy('definition_id'),
        )
        .execute();
      const verifiedOnDay = db
        .selectFrom('verification_events')
        .where('issuer_id', '=', issuerId)
        .where('occurred_at', '>=', dayStart(day))
        .where('occurred_at', '<', dayEnd(day))
        .select('credential_id')
        .distinct();
      await db
        .insertInto('report_verified_credential_days')
        .columns(['issuer_id', 'credential_id', 'day'])
        .expression(
          db
            .selectFrom(verifiedOnDay.as('v'))
            .select((eb) => [eb.val(issuerId).as('issuer_id'), 'v.credential_id', eb.val(day).as('day')])
            .orderBy('v.credential_id'),
        )
        .execute();
      await db
        .insertInto('report_verified_credentials')
        .columns(['issuer_id', 'credential_id', 'last_day'])
        .expression(
          db
            .selectFrom('verification_events')
            .where('issuer_id', '=', issuerId)
            .where('occurred_at', '>=', dayStart(day))
            .where('occurred_at', '<', dayEnd(day))
            .select((eb) => [eb.val(issuerId).as('issuer_id'), 'credential_id', eb.val(day).as('last_day')])
            .groupBy('credential_id'),
        )
        .onConflict((oc) =>
          oc
            .columns(['issuer_id', 'credential_id'])
            .doUpdateSet({ last_day: (eb) => eb.ref('excluded.last_day') })
            .where('report_verified_credentials.last_day', '<', day),
        )
        .execute();
      await db
        .insertInto('report_verification_days')
        .columns(['issuer_id', 'day', 'definition_id', 'channel', 'events'])
        .expression(
          verificationsOn(issuerId, day)
            .select((eb) => [
              eb.val(issuerId).as('issuer_id'),
              eb.val(day).as('day'),
              'c.definition_id',
              'e.channel',
              eb.fn.countAll<number>().as('events'),
            ])
            .groupBy(['c.definition_id', 'e.channel']),
        )
        .execute();
      await db
        .insertInto('report_verification_countries')
        .columns(['issuer_id', 'day', 'country', 'events'])
        .expression(
          db
            .selectFrom('verification_events as e')
            .where('e.issuer_id', '=', issuerId)
            .where('e.occurred_at', '>=', dayStart(day))
            .where('e.occurred_at', '<', dayEnd(day))
            .select((eb) => [
              eb.val(issuerId).as('issuer_id'),
              eb.val(day).as('day'),
              'e.country',
              eb.fn.countAll<number>().as('events'),
            ])
            .groupBy('e.country'),
        )
        .execute();
      await db
        .insertInto('report_engagement_days')
        .columns(['issuer_id', 'day', 'definition_id', 'action', 'events'])
        .expression(
          engagementsOn(issuerId, day)
            .select((eb) => [
              eb.val(issuerId).as('issuer_id'),
              eb.val(day).as('day'),
              'c.definition_id',
              'e.action',
              eb.fn.countAll<number>().as('events'),
            ])
            .groupBy(['c.definition_id', 'e.action']),
        )
        .execute();
    },

    /** The distinct stage definitions of each of the issuer's pathways that has stages. */
    async pathwayStages(issuerId: string): Promise<Map<string, string[]>> {
      const rows = await db
        .selectFrom('pathway_stages')
        .select(['pathway_id', 'definition_id'])
        .where('issuer_id', '=', issuerId)
        .execute();
      const stages = new Map<string, string[]>();
      for (const row of rows) stages.set(row.pathway_id, [...(stages.get(row.pathway_id) ?? []), row.definition_id]);
      return stages;
    },

    /** The issuer's pathway rollups: the stage key each was built for and its bound. */
    async pathwayRollups(issuerId: string) {
      return db
        .selectFrom('report_pathway_rollups')
        .select(['pathway_id', 'definitions', 'rolled_before'])
        .where('issuer_id', '=', issuerId)
        .execute();
    },

    /**
     * Inside a transaction: brings the pathway's recipients up to the credentials created before
     * `rolledBefore`, rebuilding them when its stage definitions are not the ones they were built for.
     * The rollup row is claimed first and, on PostgreSQL, locked, so concurrent requests do the work
     * once; each then finds it done.
     */
    async rollUpPathway(issuerId: string, pathwayId: string, definitionIds: string[], rolledBefore: string) {
      const key = stageKey(definitionIds);
      await db
        .insertInto('report_pathway_rollups')
        .values({ issuer_id: issuerId, pathway_id: pathwayId, definitions: '', rolled_before: '', recipients: 0 })
        .onConflict((oc) => oc.columns(['issuer_id', 'pathway_id']).doNothing())
        .execute();
      const claimed = db
        .selectFrom('report_pathway_rollups')
        .select(['definitions', 'rolled_before'])
        .where('issuer_id', '=', issuerId)
        .where('pathway_id', '=', pathwayId);
      const current = await (dialect === 'postgres' ? claimed.forUpdate() : claimed).executeTakeFirstOrThrow();
      const rebuild = current.definitions !== key;
      if (!rebuild && current.rolled_before >= rolledBefore) return;
      if (rebuild) {
        await db
          .deleteFrom('report_pathway_recipients')
          .where('issuer_id', '=', issuerId)
          .where('pathway_id', '=', pathwayId)
          .execute();
      }
      await db
        .insertInto('report_pathway_recipients')
        .columns(['issuer_id', 'pathway_id', 'recipient_hash'])
        .expression(
          db
            .selectFrom('credentials')
            .where('issuer_id', '=', issuerId)
            .where('definition_id', 'in', [...new Set(definitionIds)])
            .$if(!rebuild, (qb) => qb.where('created_at', '>=', current.rolled_before))
            .where('created_at', '<', rolledBefore)
            .select((eb) => [eb.val(issuerId).as('issuer_id'), eb.val(pathwayId).as('pathway_id'), 'recipient_hash'])
            .distinct(),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
      await db
        .updateTable('report_pathway_rollups')
        .set((eb) => ({
          definitions: key,
          rolled_before: rolledBefore,
          recipients: eb
            .selectFrom('report_pathway_recipients')
            .select((inner) => inner.fn.countAll<number>().as('n'))
            .where('issuer_id', '=', issuerId)
            .where('pathway_id', '=', pathwayId),
        }))
        .where('issuer_id', '=', issuerId)
        .where('pathway_id', '=', pathwayId)
        .execute();
    },

    /** Forgets the issuer's rolled-up days, for a writer that added events to days already over. */
    async reset(issuerId: string): Promise<void> {
      for (const table of ROLLUP_TABLES) {
        await db.deleteFrom(table).where('issuer_id', '=', issuerId).execute();
      }
    },
  };
}
