import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, importCsv } from './ingest.support.js';

describe.each(dialects)('CSV import report: columns and preview on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  async function credential(id: string | null) {
    return t.database.db
      .selectFrom('credentials')
      .selectAll()
      .where('id', '=', id as string)
      .executeTakeFirstOrThrow();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer();
    await createDefinition(t, a.key, { name: 'Welding', slug: 'welding' });
  });
  afterAll(async () => t.close());

  it('reads a "Completed" date and first + last names, and lists recognised and ignored columns', async () => {
    const csv = [
      'Email,First name,Last name,Course,Completed,Score,Notes',
      'cols1@cols.example,Ada,Lovelace,welding,2026-03-04,97,good',
      'cols2@cols.example,,Babbage,welding,2026-03-05,88,',
    ].join('\n');
    for (const dryRun of [true, false]) {
      const report = await importCsv(t, a.key, csv, { dryRun });
      expect(report.dryRun).toBe(dryRun);
      expect(report.columns).toEqual({
        recognised: [
          { header: 'Email', field: 'recipientEmail' },
          { header: 'First name', field: 'recipientName' },
          { header: 'Last name', field: 'recipientName' },
          { header: 'Course', field: 'definitionRef' },
          { header: 'Completed', field: 'issuedOn' },
        ],
        ignored: ['Score', 'Notes'],
      });
    }
    const real = await importCsv(t, a.key, csv);
    expect(real.rows.map((r) => r.outcome)).toEqual(['skipped', 'skipped']);
    const first = await credential(real.rows[0]?.credentialId ?? null);
    const second = await credential(real.rows[1]?.credentialId ?? null);
    expect([first.issued_on, first.display_name]).toEqual(['2026-03-04T00:00:00.000Z', 'Ada Lovelace']);
    expect([second.issued_on, second.display_name]).toEqual(['2026-03-05T00:00:00.000Z', 'Babbage']);
  });

  it('recognises the common date headers; a full-name column wins over first and last names', async () => {
    for (const [header, n] of [
      ['Completion date', 1],
      ['Date completed', 2],
      ['Awarded', 3],
    ] as const) {
      const csv = `email,name,first_name,surname,course,${header}\nd${n}@dates.example,Full Name,Ada,Byron,welding,2026-0${n}-10\n`;
      const report = await importCsv(t, a.key, csv);
      expect(report.columns.recognised).toContainEqual({ header, field: 'issuedOn' });
      expect(report.columns.ignored).toEqual(['first_name', 'surname']);
      const row = await credential(report.rows[0]?.credentialId ?? null);
      expect([row.issued_on, row.display_name]).toEqual([`2026-0${n}-10T00:00:00.000Z`, 'Full Name']);
    }
  });

  it('never echoes a header shaped like an email address (a file without a header row)', async () => {
    const csv = 'email,course,first@row.example\nh1@hdr.example,welding,x\n';
    const report = await importCsv(t, a.key, csv, { dryRun: true });
    expect(report.columns.ignored).toEqual(['[redacted]']);
    expect(JSON.stringify(report)).not.toContain('first@row.example');
  });

  it('keeps outcome within issued/skipped/error and puts the dry-run class in preview', async () => {
    const csv = 'email,course\npv1@pv.example,welding\npv1@pv.example,welding\npv2@pv.example,nope\n';
    const dry = await importCsv(t, a.key, csv, { dryRun: true });
    expect(dry.rows.map((r) => [r.outcome, r.preview])).toEqual([
      ['issued', 'new'],
      ['skipped', 'duplicate'],
      ['error', 'error'],
    ]);
    const real = await importCsv(t, a.key, csv);
    expect(real.rows.map((r) => [r.outcome, r.preview])).toEqual([
      ['issued', undefined],
      ['skipped', undefined],
      ['error', undefined],
    ]);
    const again = await importCsv(t, a.key, csv, { dryRun: true });
    expect(again.rows.map((r) => [r.outcome, r.preview])).toEqual([
      ['skipped', 'already_issued'],
      ['skipped', 'duplicate'],
      ['error', 'error'],
    ]);
  });

  it('documents outcome as issued | skipped | error and preview, dryRun and columns in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const row = doc.components.schemas.ImportRowReport;
    expect(row.properties.outcome.enum).toEqual(['issued', 'skipped', 'error']);
    expect(row.properties.preview.enum).toEqual(['new', 'duplicate', 'already_issued', 'error']);
    expect(row.required).toEqual(['rowNum', 'outcome']);
    const report = doc.components.schemas.ImportReport;
    expect(report.properties.dryRun.type).toBe('boolean');
    expect(Object.keys(report.properties.columns.properties)).toEqual(['recognised', 'ignored']);
  });
});
