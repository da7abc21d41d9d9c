import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { reportDb, stageKey } from './rollup.repository.js';
import type { EventCoverage } from './rollup.service.js';
import { dayEnd, dayStart, earlier, later, type TimeWindow, utcDays } from './window.js';

/** A grouping column of an event count: its expression on the rollup table and on the raw events. */
interface Dimension {
  rolled: string;
  raw: string;
}

interface EventCountSpec<K extends string> {
  rollup: 'report_verification_days' | 'report_verification_countries' | 'report_engagement_days';
  events: EventTable;
  dimensions: Record<K, Dimension>;
}

const DAY: Dimension = { rolled: 'day', raw: 'substr(e.occurred_at, 1, 10)' };
const DEFINITION: Dimension = { rolled: 'definition_id', raw: 'c.definition_id' };

export const VERIFICATIONS_BY_DEFINITION_CHANNEL = {
  rollup: 'report_verification_days',
  events: 'verification_events',
  dimensions: { definition_id: DEFINITION, channel: { rolled: 'channel', raw: 'e.channel' } },
} as const satisfies EventCountSpec<string>;
export const VERIFICATIONS_BY_DAY = {
  rollup: 'report_verification_days',
  events: 'verification_events',
  dimensions: { day: DAY },
} as const satisfies EventCountSpec<string>;
export const VERIFICATIONS_BY_COUNTRY = {
  rollup: 'report_verification_countries',
  events: 'verification_events',
  dimensions: { country: { rolled: 'country', raw: 'e.country' } },
} as const satisfies EventCountSpec<string>;
export const ENGAGEMENT_BY_DEFINITION = {
  rollup: 'report_engagement_days',
  events: 'engagement_events',
  dimensions: { definition_id: DEFINITION },
} as const satisfies EventCountSpec<string>;
export const ENGAGEMENT_BY_DAY_ACTION = {
  rollup: 'report_engagement_days',
  events: 'engagement_events',
  dimensions: { day: DAY, action: { rolled: 'action', raw: 'e.action' } },
} as const satisfies EventCountSpec<string>;

/** `column` within the window, from <= t < to; a null side is unbounded. */
function within(column: string, window: TimeWindow): RawBuilder<boolean> {
  const ref = sql.ref(column);
  const parts: RawBuilder<boolean>[] = [];
  if (window.from !== null) parts.push(sql<boolean>`${ref} >= ${window.from}`);
  if (window.to !== null) parts.push(sql<boolean>`${ref} < ${window.to}`);
  return parts.length === 0 ? sql<boolean>`1 = 1` : sql<boolean>`(${sql.join(parts, sql` and `)})`;
}

const toNumber = (value: unknown) => Number(value ?? 0);

/** Hash memory for a pathway's distinct recipients: a few hundred thousand hashes, counted in memory. */
const PATHWAY_WORK_MEM = '64MB';

/**
 * A pathway's distinct recipients are the UNION of its stage definitions' recipient hashes, each
 * read in hash order from the (issuer, definition, recipient) index. Ordered, SQLite merges those
 * lists (MERGE (UNION)) instead of putting every hash into a temporary B-tree, several times
 * faster; PostgreSQL cannot merge them and counts them in a hash table, which an ORDER BY would
 * only follow with a sort.
 */
const RECIPIENTS_MERGED: Record<Dialect, RawBuilder<unknown>> = {
  sqlite: sql.raw('order by recipient_hash'),
  postgres: sql``,
};

/**
 * The credentials a pathway's rollup does not hold yet are those created since its bound: a short
 * range of the (issuer, definition, created_at) index per stage definition. Without statistics
 * SQLite walks the issuer's recipient index instead, for the DISTINCT, a million rows.
 */
const CREDENTIALS_IN_CREATION_ORDER: Record<Dialect, RawBuilder<unknown>> = {
  sqlite: sql.raw('indexed by credentials_issuer_definition_created'),
  postgres: sql``,
};

type EventTable = 'verification_events' | 'engagement_events';

/**
 * Reads the engagement events through their (issuer_id, credential_id, occurred_at) index, whose
 * credential order yields distinct credentials in one pass. Without statistics SQLite prefers the
 * (issuer_id, occurred_at) range and then sorts every id, several times slower; PostgreSQL's
 * planner, which has statistics, chooses well on its own. (Verification events have no such index:
 * their distinct credentials of closed days come from `report_verified_credential_days`.)
 */
const ENGAGEMENT_IN_CREDENTIAL_ORDER: Record<Dialect, RawBuilder<unknown>> = {
  sqlite: sql.raw('indexed by engagement_events_issuer_credential_time'),
  postgres: sql``,
};

/**
 * The reports' read side: every aggregation runs in SQL, grouped on the indexed issuer + time
 * columns, and returns a handful of rows. Timestamps are ISO text on both engines, so a UTC day is
 * substr(ts, 1, 10) and windows compare as text. `executor` is normally `Database.reader`: it only
 * reads, and the one transaction it opens (pathways) is PostgreSQL's, where the reader is the pool.
 */
export function createReportRepository(executor: Executor, dialect: Dialect) {
  const db = reportDb(executor);

  /** Distinct credentials with at least one engagement (a share or wallet action) in the window. */
  async function distinctShared(issuerId: string, window: TimeWindow): Promise<number> {
    const { rows } = await sql<{ n: unknown }>`select count(*) as n from (
        select distinct credential_id from engagement_events ${ENGAGEMENT_IN_CREDENTIAL_ORDER[dialect]}
        where issuer_id = ${issuerId} and ${within('occurred_at', window)}
      ) t`.execute(db);
    return toNumber(rows[0]?.n);
  }

  return {
    /**
     * Every definition of the issuer with its all-time counts by effective status at `now`
     * (revoked, else expired once expiresOn <= now, else valid), zeros included. Credentials created
     * on days up to `closedThrough` (all rolled up) are counted from the rollup, later ones from the
     * table (a range of the (issuer, definition, created_at) index per definition: grouped over the
     * issuer, SQLite read that whole index in definition order, a million entries, to find a
     * day's); revoked and expired credentials are counted per definition from the status index.
     */
    async definitionStatus(issuerId: string, now: string, closedThrough: string) {
      const { rows } = await sql<{
        id: string;
        name: string;
        slug: string;
        rolled: unknown;
        recent: unknown;
        revoked: unknown;
        expired: unknown;
      }>`select d.id, d.name, d.slug,
          r.rolled,
          (select count(*) from credentials c
            where c.issuer_id = d.issuer_id and c.definition_id = d.id and c.created_at >= ${dayEnd(closedThrough)}) as recent,
          (select count(*) from credentials c
            where c.issuer_id = d.issuer_id and c.definition_id = d.id and c.revoked_at is not null) as revoked,
          (select count(*) from credentials c
            where c.issuer_id = d.issuer_id and c.definition_id = d.id and c.revoked_at is null
              and c.expires_on <= ${now}) as expired
        from definitions d
        left join (
          select definition_id, sum(credentials) as rolled from report_credential_days
          where issuer_id = ${issuerId} and day <= ${closedThrough}
          group by definition_id
        ) r on r.definition_id = d.id
        where d.issuer_id = ${issuerId}`.execute(db);
      return rows.map((r) => {
        const issued = toNumber(r.rolled) + toNumber(r.recent);
        const revoked = toNumber(r.revoked);
        const expired = toNumber(r.expired);
        return {
          definitionId: r.id,
          name: r.name,
          slug: r.slug,
          issued,
          valid: issued - revoked - expired,
          expired,
          revoked,
        };
      });
    },

    /** Credentials issued in the window (issuedOn). */
    async issuedIn(issuerId: string, window: TimeWindow): Promise<number> {
      const row = await db
        .selectFrom('credentials')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('issuer_id', '=', issuerId)
        .where(within('issued_on', window))
        .executeTakeFirst();
      return toNumber(row?.n);
    },

    /**
     * Credentials issued on each UTC day of the window (its edge days clipped to it). One index range
     * count per day: grouping by substr(issued_on) would sort every row of a year-long window. The
     * days are one VALUES list, so PostgreSQL plans a single subquery instead of one per day (367
     * compound terms cost it more to plan than to run).
     */
    async issuedByDay(issuerId: string, window: { from: string; to: string }) {
      const days = utcDays(window);
      if (days.length === 0) return [];
      const bounds = days.map((day) => {
        const from = later(dayStart(day), window.from);
        const to = earlier(dayEnd(day), window.to);
        return sql`(cast(${day} as text), cast(${from} as text), cast(${to} as text))`;
      });
      const { rows } = await sql<{ day: string; n: unknown }>`with days (day, lo, hi) as (values ${sql.join(bounds)})
        select day, (
          select count(*) from credentials where issuer_id = ${issuerId} and issued_on >= days.lo and issued_on < days.hi
        ) as n
        from days order by day`.execute(db);
      return rows.map((r) => ({ day: r.day, count: toNumber(r.n) }));
    },

    /** Import batches created in the window and their row outcomes. */
    async imports(issuerId: string, window: TimeWindow) {
      const row = await db
        .selectFrom('import_batches')
        .select((eb) => [
          eb.fn.countAll<number>().as('batches'),
          eb.fn.sum<number>('issued').as('issued'),
          eb.fn.sum<number>('skipped').as('skipped'),
          eb.fn.sum<number>('errored').as('errored'),
        ])
        .where('issuer_id', '=', issuerId)
        .where(within('created_at', window))
        .executeTakeFirst();
      return {
        batches: toNumber(row?.batches),
        issued: toNumber(row?.issued),
        skipped: toNumber(row?.skipped),
        errored: toNumber(row?.errored),
      };
    },

    /**
     * Events of the window counted by `spec`'s dimensions: closed days from the daily rollup, the
     * rest (the window's partial edge days and the days not yet closed) from the events themselves.
     * Events are recorded only for credentials of their issuer, so only a breakdown by definition
     * needs to look the credential up.
     */
    async countEvents<K extends string>(issuerId: string, coverage: EventCoverage, spec: EventCountSpec<K>) {
      const names = Object.keys(spec.dimensions) as K[];
      const column = (name: K, side: keyof Dimension) => sql.raw(spec.dimensions[name][side]);
      const parts: RawBuilder<unknown>[] = [];
      if (coverage.rolled !== null) {
        const { firstDay, lastDay } = coverage.rolled;
        parts.push(sql`select ${sql.join(names.map((n) => sql`${column(n, 'rolled')} as ${sql.ref(n)}`))}, sum(events) as n
          from ${sql.table(spec.rollup)}
          where issuer_id = ${issuerId} and ${within('day', { from: firstDay, to: null })} and day <= ${lastDay}
          group by ${sql.join(names.map((n) => column(n, 'rolled')))}`);
      }
      const byDefinition = names.some((n) => spec.dimensions[n] === DEFINITION);
      // One part per raw interval: an OR of ranges would defeat the (issuer_id, occurred_at) index.
      for (const interval of coverage.raw) {
        parts.push(sql`select ${sql.join(names.map((n) => sql`${column(n, 'raw')} as ${sql.ref(n)}`))}, count(*) as n
          from ${sql.table(spec.events)} e
          ${byDefinition ? sql`join credentials c on c.id = e.credential_id and c.issuer_id = e.issuer_id` : sql``}
          where e.issuer_id = ${issuerId} and ${within('e.occurred_at', interval)}
          group by ${sql.join(names.map((n) => column(n, 'raw')))}`);
      }
      if (parts.length === 0) return [];
      const refs = sql.join(names.map((n) => sql.ref(n)));
      const { rows } = await sql<Record<K | 'n', unknown>>`select ${refs}, sum(n) as n
        from (${sql.join(parts, sql` union all `)}) t
        group by ${refs}`.execute(db);
      return rows.map((row) => ({
        ...(Object.fromEntries(names.map((n) => [n, String(row[n])])) as Record<K, string>),
        count: toNumber(row.n),
      }));
    },

    distinctShared,

    /**
     * Distinct credentials verified in the window: those of its rolled-up days from the summaries,
     * plus those verified only in its raw parts (a key lookup each, so the planner never hashes a
     * whole summary). When the rolled-up days reach the newest rolled day, a credential's last
     * rolled verification day tells whether it was verified in them (an index range count);
     * otherwise, or when a concurrent rollup moved the newest day on, its verified days do (one pass
     * over the summary in credential order).
     */
    async distinctVerified(issuerId: string, coverage: EventCoverage): Promise<number> {
      // DISTINCT in each part: a single interval is never joined by a UNION, which would deduplicate.
      const raw = coverage.raw.map(
        (interval) =>
          sql`select distinct credential_id from verification_events where issuer_id = ${issuerId} and ${within('occurred_at', interval)}`,
      );
      const rawOnly = (inRolled: (credential: RawBuilder<unknown>) => RawBuilder<unknown>) =>
        raw.length === 0
          ? sql`0`
          : sql`(select count(*) from (${sql.join(raw, sql` union `)}) r where not exists (${inRolled(sql.ref('r.credential_id'))}))`;
      if (coverage.rolled === null) {
        const { rows } = await sql<{
          n: unknown;
        }>`select count(*) as n from (${sql.join(raw, sql` union `)}) r`.execute(db);
        return toNumber(rows[0]?.n);
      }
      const since = coverage.rolled.firstDay ?? '';
      const lastDay = coverage.rolled.lastDay;
      const newest = await sql<{ n: unknown }>`select case
          when (select max(day) from report_rolled_days where issuer_id = ${issuerId}) = ${lastDay}
          then (select count(*) from report_verified_credentials where issuer_id = ${issuerId} and last_day >= ${since})
            + ${rawOnly(
              (credential) => sql`select 1 from report_verified_credentials v
                where v.issuer_id = ${issuerId} and v.credential_id = ${credential} and v.last_day >= ${since}`,
            )}
        end as n`.execute(db);
      const n = newest.rows[0]?.n;
      if (n !== null && n !== undefined) return toNumber(n);
      const { rows } = await sql<{ n: unknown }>`select (
          select count(*) from (
            select distinct credential_id from report_verified_credential_days
            where issuer_id = ${issuerId} and day >= ${since} and day <= ${lastDay}
          ) d
        ) + ${rawOnly(
          (credential) => sql`select 1 from report_verified_credential_days v
            where v.issuer_id = ${issuerId} and v.credential_id = ${credential} and v.day >= ${since} and v.day <= ${lastDay}`,
        )} as n`.execute(db);
      return toNumber(rows[0]?.n);
    },

    /**
     * Every pathway of the issuer with the definitions of its stages (one per stage) and the
     * distinct recipients holding a credential of at least one of them: from the pathway's rollup
     * (migration 0031, kept by the rollup service) or, when it has none for these stages yet, from
     * the credentials (RECIPIENTS_MERGED), one statement per pathway. PostgreSQL gets the memory to
     * count them without spilling (a transaction for SET LOCAL: on PostgreSQL `Database.reader` is
     * the pool and can open one).
     */
    async pathways(issuerId: string) {
      const paths = await db
        .selectFrom('pathways')
        .select(['id', 'name', 'slug'])
        .where('issuer_id', '=', issuerId)
        .execute();
      const stages = await db
        .selectFrom('pathway_stages')
        .select(['pathway_id', 'definition_id'])
        .where('issuer_id', '=', issuerId)
        .execute();
      const definitionsOf = (pathwayId: string) => [
        ...new Set(stages.filter((s) => s.pathway_id === pathwayId).map((s) => s.definition_id)),
      ];
      const rollups = new Map(
        (
          await db
            .selectFrom('report_pathway_rollups')
            .select(['pathway_id', 'definitions', 'rolled_before'])
            .where('issuer_id', '=', issuerId)
            .execute()
        ).map((r) => [r.pathway_id, r]),
      );
      /**
       * From the pathway's rollup when it was built for these stage definitions: its size plus the
       * recipients of credentials created since its bound that are not in it; null without such a
       * rollup. The size and the rows are read in one statement, so they agree; a rollup that moved
       * on since its bound was read only holds more of the same recipients, so the sum stays exact.
       */
      const rolledUp = async (on: Executor, pathwayId: string, definitions: string[]) => {
        const rollup = rollups.get(pathwayId);
        const key = stageKey(definitions);
        if (rollup?.definitions !== key) return null;
        const { rows } = await sql<{ n: unknown }>`select r.recipients + (
            select count(distinct c.recipient_hash) from credentials c ${CREDENTIALS_IN_CREATION_ORDER[dialect]}
            where c.issuer_id = ${issuerId} and c.definition_id in (${sql.join(definitions)})
              and c.created_at >= ${rollup.rolled_before}
              and not exists (
                select 1 from report_pathway_recipients p
                where p.issuer_id = ${issuerId} and p.pathway_id = ${pathwayId} and p.recipient_hash = c.recipient_hash
              )
          ) as n
          from report_pathway_rollups r
          where r.issuer_id = ${issuerId} and r.pathway_id = ${pathwayId} and r.definitions = ${key}`.execute(on);
        return rows[0] === undefined ? null : rows[0].n;
      };
      /** From the credentials themselves: every recipient hash of the stage definitions. */
      const counted = async (on: Executor, definitions: string[]) => {
        const perStage = definitions.map(
          (definitionId) =>
            sql`select recipient_hash from credentials where issuer_id = ${issuerId} and definition_id = ${definitionId}`,
        );
        const { rows } = await sql<{ n: unknown }>`select count(*) as n from (
            ${sql.join(perStage, sql` union `)} ${RECIPIENTS_MERGED[dialect]}
          ) r`.execute(on);
        return rows[0]?.n;
      };
      const recipients = async (on: Executor) => {
        const results: { pathway_id: string; recipients: unknown }[] = [];
        for (const { id } of paths) {
          const definitions = definitionsOf(id);
          if (definitions.length === 0) continue;
          const n = (await rolledUp(on, id, definitions)) ?? (await counted(on, definitions));
          results.push({ pathway_id: id, recipients: n });
        }
        return results;
      };
      const counts =
        stages.length === 0
          ? []
          : dialect === 'postgres'
            ? await executor.transaction().execute(async (trx) => {
                await sql`set local work_mem = ${sql.lit(PATHWAY_WORK_MEM)}`.execute(trx);
                return recipients(trx);
              })
            : await recipients(executor);
      const byPathway = new Map(counts.map((r) => [r.pathway_id, toNumber(r.recipients)]));
      return paths.map((p) => ({
        pathwayId: p.id,
        name: p.name,
        slug: p.slug,
        stageDefinitions: stages.filter((s) => s.pathway_id === p.id).map((s) => s.definition_id),
        recipients: byPathway.get(p.id) ?? 0,
      }));
    },
  };
}
