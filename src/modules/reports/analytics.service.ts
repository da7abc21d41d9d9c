import type { Core } from '../../core/context.js';
import { byName, channelCounts, statusTotals, sum, totalsBy } from './breakdown.js';
import { attachment, toCsv } from './csv.js';
import {
  createReportRepository,
  ENGAGEMENT_BY_DAY_ACTION,
  ENGAGEMENT_BY_DEFINITION,
  VERIFICATIONS_BY_COUNTRY,
  VERIFICATIONS_BY_DAY,
  VERIFICATIONS_BY_DEFINITION_CHANNEL,
} from './reports.repository.js';
import { ENGAGEMENT_ACTIONS, type IssuerAnalytics, type WindowQueryInput } from './reports.schemas.js';
import { lastClosedDay, type RollupService } from './rollup.service.js';
import { analyticsWindow, utcDays } from './window.js';

const ANALYTICS_CSV_COLUMNS = [
  'date',
  'issued',
  'verifies',
  'engagement',
  'linkedin',
  'wallet_apple',
  'wallet_google',
  'share_link',
] as const;

type Action = (typeof ENGAGEMENT_ACTIONS)[number];
type DailyRow = Record<(typeof ANALYTICS_CSV_COLUMNS)[number], string | number>;

/**
 * Issuer analytics over a window (default: the last 30 days): totals, funnel, daily series, breakdowns.
 *
 * Verification and engagement events are buffered and written about every 100 ms
 * (src/modules/verification/events.ts). Before it reads, analytics writes this replica's buffer
 * (`events.flush()`), so a share or verify this replica has answered is counted at once; another
 * replica's events show once its own buffer is written (the OpenAPI description says so).
 */
export function createAnalyticsService(
  core: Pick<Core, 'database' | 'dialect' | 'clock'>,
  deps: { rollup: RollupService; events: { flush(): Promise<void> } },
) {
  // Only reads: on SQLite they run on the reader thread, so the event loop serves other requests meanwhile.
  const repo = createReportRepository(core.database.reader, core.dialect);

  async function compute(
    issuerId: string,
    query: WindowQueryInput,
  ): Promise<{ analytics: IssuerAnalytics; daily: DailyRow[] }> {
    await deps.events.flush();
    const now = core.clock.now();
    const window = analyticsWindow(query, now);
    const coverage = await deps.rollup.refresh(issuerId, window, now);

    // Independent reads: PostgreSQL runs them side by side on the pool; SQLite's reader thread queues them.
    const [
      definitions,
      issued,
      verifications,
      verifiesDaily,
      countries,
      sharesDaily,
      engagement,
      verified,
      shared,
      paths,
    ] = await Promise.all([
      repo.definitionStatus(issuerId, now.toISOString(), lastClosedDay(now)),
      repo.issuedByDay(issuerId, window),
      repo.countEvents(issuerId, coverage, VERIFICATIONS_BY_DEFINITION_CHANNEL),
      repo.countEvents(issuerId, coverage, VERIFICATIONS_BY_DAY),
      repo.countEvents(issuerId, coverage, VERIFICATIONS_BY_COUNTRY),
      repo.countEvents(issuerId, coverage, ENGAGEMENT_BY_DEFINITION),
      repo.countEvents(issuerId, coverage, ENGAGEMENT_BY_DAY_ACTION),
      repo.distinctVerified(issuerId, coverage),
      repo.distinctShared(issuerId, window),
      repo.pathways(issuerId),
    ]);
    const issuedByDay = new Map(issued.map((r) => [r.day, r.count]));
    const verifiesByDay = totalsBy(verifiesDaily, 'day');
    const sharesByDefinition = totalsBy(sharesDaily, 'definition_id');
    const engagementByDay = totalsBy(engagement, 'day');
    const engagementByAction = totalsBy(engagement, 'action');
    const actionsByDay = new Map<string, number>();
    for (const row of engagement) actionsByDay.set(`${row.day}/${row.action}`, row.count);

    const verifiesByDefinition = totalsBy(verifications, 'definition_id');
    const issuedByDefinition = new Map(definitions.map((d) => [d.definitionId, d.issued]));
    const byDefinition = definitions
      .map((d) => ({
        ...d,
        verifies: verifiesByDefinition.get(d.definitionId) ?? 0,
        shares: sharesByDefinition.get(d.definitionId) ?? 0,
      }))
      .sort(byName);
    const days = utcDays(window);
    const series = (counts: Map<string, number>) => days.map((date) => ({ date, count: counts.get(date) ?? 0 }));
    const issuedInWindow = sum(issuedByDay.values());
    const shares = sum(engagementByAction.values());

    const analytics: IssuerAnalytics = {
      issuerId,
      window,
      totals: {
        ...statusTotals(byDefinition),
        issuedInWindow,
        verifies: sum(verifiesByDefinition.values()),
        shares,
      },
      verifiesByChannel: channelCounts(totalsBy(verifications, 'channel')),
      engagementByAction: {
        total: shares,
        ...(Object.fromEntries(ENGAGEMENT_ACTIONS.map((a) => [a, engagementByAction.get(a) ?? 0])) as Record<
          Action,
          number
        >),
      },
      funnel: {
        issued: issuedInWindow,
        verified,
        shared,
      },
      series: { issuance: series(issuedByDay), verifies: series(verifiesByDay), engagement: series(engagementByDay) },
      byDefinition,
      byPathway: paths
        .map(({ stageDefinitions, ...path }) => ({
          ...path,
          stages: stageDefinitions.length,
          issued: sum(stageDefinitions.map((id) => issuedByDefinition.get(id) ?? 0)),
        }))
        .sort(byName),
      geo: countries
        .map((r) => ({ country: r.country, count: r.count }))
        .sort((a, b) => b.count - a.count || (a.country < b.country ? -1 : 1)),
      generatedAt: now.toISOString(),
    };
    const daily = days.map((date) => ({
      date,
      issued: issuedByDay.get(date) ?? 0,
      verifies: verifiesByDay.get(date) ?? 0,
      engagement: engagementByDay.get(date) ?? 0,
      ...(Object.fromEntries(ENGAGEMENT_ACTIONS.map((a) => [a, actionsByDay.get(`${date}/${a}`) ?? 0])) as Record<
        Action,
        number
      >),
    }));
    return { analytics, daily };
  }

  return {
    async analytics(issuerId: string, query: WindowQueryInput): Promise<IssuerAnalytics> {
      return (await compute(issuerId, query)).analytics;
    },

    /** One CSV line per UTC day of the window: issued, verifies, engagement and each action. */
    async csv(issuerId: string, query: WindowQueryInput) {
      const { analytics, daily } = await compute(issuerId, query);
      return {
        body: toCsv(ANALYTICS_CSV_COLUMNS, daily),
        disposition: attachment('analytics', new Date(analytics.generatedAt)),
      };
    },
  };
}
