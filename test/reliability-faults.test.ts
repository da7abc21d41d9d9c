import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { runFaults } from '../scripts/reliability/faults.js';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';

// A throwaway PostgreSQL cluster and a tmpfs need root and postgresql-common, as CI has.
const canRun = process.getuid?.() === 0 && existsSync('/usr/bin/pg_createcluster');

describe.runIf(canRun)('reliability: database faults (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('PostgreSQL restart, a stalled database and a full SQLite disk: 503s only, no exit, recovery', async () => {
    const report = await runFaults({ full: false, postgresUrl: null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const restart = report.figures.postgresRestart as { serverExited: boolean; badFailures: number };
    expect(restart).toMatchObject({ serverExited: false, badFailures: 0 });
    const disk = report.figures.diskFull as { statusCounts: Record<string, number> };
    expect(disk.statusCounts['500']).toBeUndefined();
  }, 360_000);
});
