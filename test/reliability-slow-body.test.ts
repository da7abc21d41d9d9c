import { beforeAll, describe, expect, it } from 'vitest';
import { runSlowBody } from '../scripts/reliability/front-door.js';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';

describe('reliability: bodies trickled a byte at a time (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('every trickling connection is closed at the request timeout and its descriptor returned', async () => {
    const report = await runSlowBody({ full: false, postgresUrl: null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const figures = report.figures.sqlite as { bytesSentMax: number; answers: Record<string, number> };
    expect(figures.bytesSentMax).toBeLessThan(100_000);
    expect(figures.answers['408']).toBeGreaterThan(0);
  }, 240_000);
});
