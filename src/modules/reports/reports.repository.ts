import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { reportDb } from './rollup.repository.js';
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

type EventTable = 'verification_events' | 'engagement_events';

/**
 * Reads an event table through its (issuer_id, credential_id, occurred_at) index, whose credential
 * order yields distinct credentials in one pass. Without statistics SQLite prefers the
 * (issuer_id, occurred_at) range and then sorts every id, several times slower; PostgreSQL's
 * planner, which has statistics, chooses well on its own.
 */
function inCredentialOrder(dialect: Dialect, table: EventTable): RawBuilder<unknown> {
  return dialect === 'sqlite' ? sql.raw(`indexed by ${table}_issuer_credential_time`) : sql``;
}

/**
 * The reports' read side: every aggregation runs in SQL, grouped on the indexed issuer + time
 * columns, and returns a handful of rows. Timestamps are ISO text on both engines, so a UTC day is
 * substr(ts, 1, 10) and windows compare as text.
 */
export function createReportRepository(executor: Executor, dialect: Dialect) {
  const db = reportDb(executor);

  return {
    /**
     * Every definition of the issuer with its all-time counts by effective status at `now`
     * (revoked, else expired once expiresOn <= now, else valid), zeros included.
     */
    async definitionStatus(issuerId: string, now: string) {
      const rows = await db
        .selectFrom('definitions as d')
        .leftJoin(
          (eb) =>
            eb
              .selectFrom('credentials')
              .where('issuer_id', '=', issuerId)
              .groupBy('definition_id')
              .select((s) => [
                'definition_id',
                s.fn.countAll<number>().as('issued'),
                sql<number>`sum(case when revoked_at is not null then 1 else 0 end)`.as('revoked'),
                sql<number>`sum(case when revoked_at is null and expires_on <= ${now} then 1 else 0 end)`.as('expired'),
              ])
              .as('s'),
          (join) => join.onRef('s.definition_id', '=', 'd.id'),
        )
        .where('d.issuer_id', '=', issuerId)
        .select(['d.id', 'd.name', 'd.slug', 's.issued', 's.revoked', 's.expired'])
        .execute();
      return rows.map((r) => {
        const issued = toNumber(r.issued);
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
     * count per day: grouping by substr(issued_on) would sort every row of a year-long window. A
     * window has at most 367 days, under SQLite's limit of 500 terms in a compound SELECT.
     */
    async issuedByDay(issuerId: string, window: { from: string; to: string }) {
      const days = utcDays(window);
      if (days.length === 0) return [];
      const counts = days.map((day) => {
        const from = later(dayStart(day), window.from);
        const to = earlier(dayEnd(day), window.to);
        return sql`select cast(${day} as text) as day, (
            select count(*) from credentials where issuer_id = ${issuerId} and issued_on >= ${from} and issued_on < ${to}
          ) as n`;
      });
      const { rows } = await sql<{ day: string; n: unknown }>`${sql.join(counts, sql` union all `)}`.execute(db);
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

    /** Distinct credentials with at least one event of `table` in the window. */
    async distinctCredentials(issuerId: string, table: EventTable, window: TimeWindow): Promise<number> {
      const { rows } = await sql<{ n: unknown }>`select count(*) as n from (
          select distinct credential_id from ${sql.table(table)} ${inCredentialOrder(dialect, table)}
          where issuer_id = ${issuerId} and ${within('occurred_at', window)}
        ) t`.execute(db);
      return toNumber(rows[0]?.n);
    },

    /**
     * Every pathway of the issuer with its stage count, the credentials ever issued for its stage
     * definitions and the distinct recipients holding at least one of them.
     */
    async pathways(issuerId: string) {
      const rows = await db
        .selectFrom('pathways as p')
        .leftJoin(
          (eb) =>
            eb
              .selectFrom('pathway_stages as s')
              .innerJoin('credentials as c', (join) =>
                join.onRef('c.issuer_id', '=', 's.issuer_id').onRef('c.definition_id', '=', 's.definition_id'),
              )
              .where('s.issuer_id', '=', issuerId)
              .groupBy('s.pathway_id')
              .select((s) => [
                's.pathway_id',
                s.fn.countAll<number>().as('issued'),
                s.fn.count<number>('c.recipient_hash').distinct().as('recipients'),
              ])
              .as('h'),
          (join) => join.onRef('h.pathway_id', '=', 'p.id'),
        )
        .where('p.issuer_id', '=', issuerId)
        .select((eb) => [
          'p.id',
          'p.name',
          'p.slug',
          'h.issued',
          'h.recipients',
          eb
            .selectFrom('pathway_stages as st')
            .select((s) => s.fn.countAll<number>().as('n'))
            .whereRef('st.pathway_id', '=', 'p.id')
            .as('stages'),
        ])
        .execute();
      return rows.map((r) => ({
        pathwayId: r.id,
        name: r.name,
        slug: r.slug,
        stages: toNumber(r.stages),
        issued: toNumber(r.issued),
        recipients: toNumber(r.recipients),
      }));
    },
  };
}
