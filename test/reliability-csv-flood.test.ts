import { beforeAll, describe, expect, it } from 'vitest';
import { type FloodWave, RSS_LIMIT_MB, runCsvFlood } from '../scripts/reliability/csv-flood.js';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';

describe('reliability: concurrent 10 MiB CSV imports (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('32 concurrent dry runs from one key: the process lives under 400 MB, /health answers, refusals are 429 import_busy', async () => {
    const report = await runCsvFlood({
      full: false,
      postgresUrl: process.env.TEST_DATABASE_URL ?? null,
      log: () => {},
    });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const waves = report.figures.waves as FloodWave[];
    expect(waves.length).toBe(process.env.TEST_DATABASE_URL ? 2 : 1);
    for (const wave of waves) {
      expect(wave.aliveAfter).toBe(true);
      expect(wave.peakRssMb).toBeLessThan(RSS_LIMIT_MB);
      expect(wave.status['200']).toBeGreaterThanOrEqual(1);
      expect((wave.status['200'] ?? 0) + (wave.status['429'] ?? 0)).toBe(wave.requests);
    }
  }, 600_000);
});
