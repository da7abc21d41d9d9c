import type { Core } from '../../core/context.js';
import { createRollupRepository, stageKey } from './rollup.repository.js';
import { dayEnd, dayOf, dayStart, earlier, type TimeWindow } from './window.js';

/**
 * A day is rolled up only this long after it ended, so events buffered by their writers at
 * midnight land in the raw tables before their day is summarised.
 */
const ROLLUP_GRACE_MS = 3_600_000;
/** Days rolled up per transaction: few commits for a year of history, short write locks. */
const DAYS_PER_TRANSACTION = 10;

/**
 * How a window's events are counted: whole closed days `firstDay..lastDay` from the rollup tables
 * (firstDay null: every rolled day up to lastDay), the remaining `raw` intervals from the event tables.
 */
export interface EventCoverage {
  rolled: { firstDay: string | null; lastDay: string } | null;
  raw: TimeWindow[];
}

/** The first UTC day that starts at or after `from`. */
function firstWholeDay(from: string): string {
  return from === dayStart(dayOf(from)) ? dayOf(from) : dayOf(from, 1);
}

/**
 * Splits a window into the whole UTC days inside it that ended at least the grace period before
 * `now` (counted from the rollup) and the rest (counted from the events).
 */
/** The newest UTC day that ended at least the grace period before `now`: the last day to roll up. */
export function lastClosedDay(now: Date): string {
  return dayOf(new Date(now.getTime() - ROLLUP_GRACE_MS).toISOString(), -1);
}

export function coverage(window: TimeWindow, now: Date): EventCoverage {
  const lastClosed = lastClosedDay(now);
  const firstFull = window.from === null ? null : firstWholeDay(window.from);
  const lastFull = window.to === null ? lastClosed : dayOf(window.to, -1);
  const lastDay = earlier(lastFull, lastClosed);
  if (firstFull !== null && firstFull > lastDay) return { rolled: null, raw: [window] };
  const raw: TimeWindow[] = [];
  if (firstFull !== null && window.from !== null && window.from < dayStart(firstFull)) {
    raw.push({ from: window.from, to: dayStart(firstFull) });
  }
  if (window.to === null || dayEnd(lastDay) < window.to) raw.push({ from: dayEnd(lastDay), to: window.to });
  return { rolled: { firstDay: firstFull, lastDay }, raw };
}

function* daysBetween(first: string, last: string): Generator<string> {
  for (let day = first; day <= last; day = dayOf(dayStart(day), 1)) yield day;
}

/** Keeps the daily rollup of verification and engagement events current, one closed day at a time. */
export function createRollupService(core: Pick<Core, 'db' | 'database' | 'dialect'>) {
  return {
    /**
     * Rolls up every closed day not rolled yet, from the issuer's first credential or event on (the
     * all-time credential counts need them all, whatever the window), and each pathway's recipients
     * up to the last closed day; a no-op once they are. Returns how the window's events are then to
     * be counted.
     */
    async refresh(issuerId: string, window: TimeWindow, now: Date): Promise<EventCoverage> {
      const plan = coverage(window, now);
      // Which days are missing is a read (the reader thread on SQLite); rolling them up writes on `db`.
      const repo = createRollupRepository(core.database.reader, core.dialect);
      const earliest = await repo.earliestDay(issuerId);
      if (earliest === null) return plan;
      const lastClosed = lastClosedDay(now);
      const done = await repo.rolledDays(issuerId, earliest, lastClosed);
      const pending = [...daysBetween(earliest, lastClosed)].filter((day) => !done.has(day));
      const rolledAt = now.toISOString();
      for (let i = 0; i < pending.length; i += DAYS_PER_TRANSACTION) {
        const days = pending.slice(i, i + DAYS_PER_TRANSACTION);
        await core.db.transaction().execute(async (trx) => {
          const txRepo = createRollupRepository(trx, core.dialect);
          for (const day of days) await txRepo.rollUpDay(issuerId, day, rolledAt);
        });
      }
      const rolledBefore = dayEnd(lastClosed);
      const rollups = new Map((await repo.pathwayRollups(issuerId)).map((r) => [r.pathway_id, r]));
      for (const [pathwayId, definitions] of await repo.pathwayStages(issuerId)) {
        const rolled = rollups.get(pathwayId);
        if (rolled?.definitions === stageKey(definitions) && rolled.rolled_before >= rolledBefore) continue;
        await core.db.transaction().execute(async (trx) => {
          await createRollupRepository(trx, core.dialect).rollUpPathway(issuerId, pathwayId, definitions, rolledBefore);
        });
      }
      return plan;
    },

    /** Drops the issuer's rollup so it is rebuilt from the events (after a backfill of past days). */
    async reset(issuerId: string): Promise<void> {
      await createRollupRepository(core.db, core.dialect).reset(issuerId);
    },
  };
}

export type RollupService = ReturnType<typeof createRollupService>;
