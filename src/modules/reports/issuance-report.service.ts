import type { Core } from '../../core/context.js';
import { byName, channelCounts, statusTotals, sum, totalsBy } from './breakdown.js';
import { attachment, toCsv } from './csv.js';
import { createReportRepository, VERIFICATIONS_BY_DEFINITION_CHANNEL } from './reports.repository.js';
import type { IssuanceReport, WindowQueryInput } from './reports.schemas.js';
import { lastClosedDay, type RollupService } from './rollup.service.js';
import { reportWindow } from './window.js';

const ISSUANCE_CSV_COLUMNS = [
  'definitionId',
  'name',
  'slug',
  'issued',
  'valid',
  'expired',
  'revoked',
  'verifies',
] as const;

/** The issuance report: all-time status counts, the window's issuance, verifications and imports. */
export function createIssuanceReportService(
  core: Pick<Core, 'database' | 'dialect' | 'clock'>,
  deps: { rollup: RollupService },
) {
  // Only reads: on SQLite they run on the reader thread, so the event loop serves other requests meanwhile.
  const repo = createReportRepository(core.database.reader, core.dialect);

  async function report(issuerId: string, query: WindowQueryInput): Promise<IssuanceReport> {
    const window = reportWindow(query);
    const now = core.clock.now();
    const coverage = await deps.rollup.refresh(issuerId, window, now);
    // Independent reads: PostgreSQL runs them side by side on the pool; SQLite's reader thread queues them.
    const [definitions, verifications, issuedInWindow, imports] = await Promise.all([
      repo.definitionStatus(issuerId, now.toISOString(), lastClosedDay(now)),
      repo.countEvents(issuerId, coverage, VERIFICATIONS_BY_DEFINITION_CHANNEL),
      repo.issuedIn(issuerId, window),
      repo.imports(issuerId, window),
    ]);
    const verifiesByDefinition = totalsBy(verifications, 'definition_id');
    const byDefinition = definitions
      .map((d) => ({ ...d, verifies: verifiesByDefinition.get(d.definitionId) ?? 0 }))
      .sort(byName);
    return {
      issuerId,
      window,
      totals: {
        ...statusTotals(byDefinition),
        issuedInWindow,
        verifies: sum(verifiesByDefinition.values()),
        imports,
      },
      verifiesByChannel: channelCounts(totalsBy(verifications, 'channel')),
      byDefinition,
      generatedAt: now.toISOString(),
    };
  }

  return {
    report,

    /** The per-definition rows of the report as a CSV attachment. */
    async csv(issuerId: string, query: WindowQueryInput) {
      const result = await report(issuerId, query);
      return {
        body: toCsv(ISSUANCE_CSV_COLUMNS, result.byDefinition),
        disposition: attachment('issuance-report', new Date(result.generatedAt)),
      };
    },
  };
}
