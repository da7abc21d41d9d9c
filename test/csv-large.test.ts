import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, dialects, type TestApp } from './helpers.js';
import { countRows, createDefinition, importCsv } from './ingest.support.js';

const ROWS = 50_000;

describe.each(dialects)('CSV import of 50,000 rows on %s', (dialect) => {
  let t: TestApp;
  afterAll(async () => t.close());

  it('completes, issues every row once, and a re-import skips them all', { timeout: 300_000 }, async () => {
    t = await createTestApp(dialect);
    const issuer = await t.issuer();
    await createDefinition(t, issuer.key, { name: 'Bulk Course', slug: 'bulk' });
    const lines = Array.from({ length: ROWS }, (_, i) => `learner${i}@bulk.example,Learner ${i},bulk,2026-01-01`);
    const csv = `email,name,course,date\n${lines.join('\n')}\n`;

    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    const report = await importCsv(t, issuer.key, csv, { filename: 'bulk.csv' });
    const seconds = (performance.now() - started) / 1000;
    delay.disable();
    console.log(
      `[${dialect}] 50,000-row CSV import: ${seconds.toFixed(2)} s (${Math.round(ROWS / seconds)} rows/s), ` +
        `event loop delay max ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms`,
    );
    expect([report.total, report.issued, report.skipped, report.errored]).toEqual([ROWS, ROWS, 0, 0]);
    expect(report.rows[ROWS - 1]).toMatchObject({ rowNum: ROWS + 1, outcome: 'issued' });
    expect(await countRows(t, 'credentials')).toBe(ROWS);

    const againStarted = performance.now();
    const again = await importCsv(t, issuer.key, csv, { dryRun: true });
    console.log(
      `[${dialect}] 50,000-row dry run of the same file: ${((performance.now() - againStarted) / 1000).toFixed(2)} s`,
    );
    expect([again.issued, again.skipped, again.errored]).toEqual([0, ROWS, 0]);
    expect(new Set(again.rows.map((r) => r.preview))).toEqual(new Set(['already_issued']));
    expect(new Set(again.rows.map((r) => r.outcome))).toEqual(new Set(['skipped']));
  });
});
