import type { Core } from '../../core/context.js';
import { createAnalyticsService } from './analytics.service.js';
import { createIssuanceReportService } from './issuance-report.service.js';
import { createRollupService } from './rollup.service.js';

/** Reports and analytics: the issuance report, issuer analytics and the daily event rollup under both. */
export function createReportsModule(
  core: Pick<Core, 'db' | 'database' | 'dialect' | 'clock'>,
  deps: { events: { flush(): Promise<void> } },
) {
  const rollup = createRollupService(core);
  return {
    rollup,
    issuance: createIssuanceReportService(core, { rollup }),
    analytics: createAnalyticsService(core, { rollup, events: deps.events }),
  };
}
