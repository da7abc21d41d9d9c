import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';
import { runSoak, type SoakLeg } from '../scripts/reliability/soak.js';

// The quick tier is a smoke run: the full tier's 30 minutes gate RSS growth and event-loop lag.
describe('reliability: soak at half the measured maximum (quick tier: 20 s)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('no errors, rows = 201 answers, stable descriptors; RSS and event-loop p99 read from the server', async () => {
    const report = await runSoak({ full: false, postgresUrl: null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const leg = report.figures.sqlite as SoakLeg;
    expect(leg.eventLoopP99Ms.samples).toBeGreaterThan(0);
    expect(leg.rssMb.baseline).toBeGreaterThan(0);
    expect(leg.targetRps).toBeGreaterThan(0);
  }, 240_000);
});
