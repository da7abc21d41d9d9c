import { beforeAll, describe, expect, it } from 'vitest';
import { runKeyInQuery } from '../scripts/reliability/front-door.js';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';

describe('reliability: keys and emails in URLs against the log (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('the server log holds no key, no key fragment and no email', async () => {
    const report = await runKeyInQuery({ full: false, postgresUrl: null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const figures = report.figures.sqlite as { keyFound: boolean; emailFound: boolean; redactedLines: number };
    expect(figures.keyFound).toBe(false);
    expect(figures.emailFound).toBe(false);
    expect(figures.redactedLines).toBeGreaterThan(0);
  }, 240_000);
});
