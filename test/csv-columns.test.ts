import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, importCsv, postJson, type RowReport } from './ingest.support.js';

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

/** A registrar's MIS export (issue 46 §2): the header as an English college's MIS writes it. */
function misRoster(learners: number): { csv: string; names: string[] } {
  const surnames = ['Nguyễn', "O'Brien", 'Ó Súilleabháin', 'Smith-Jones', 'Łukasz', 'Zoë'];
  const names: string[] = [];
  const lines = ['Learner Ref,Surname,Forename,Email Address,Course Code,Date Achieved'];
  for (let i = 1; i <= learners; i++) {
    const surname = `${surnames[i % surnames.length]}${i}`;
    const forename = i % 7 === 0 ? 'Anne-Marie' : `Learner${i}`;
    names.push(`${forename} ${surname}`);
    const day = String((i % 28) + 1).padStart(2, '0');
    lines.push(`L${String(i).padStart(6, '0')},${surname},${forename},mis${i}@college.example,WELD1,${day}/03/2026`);
  }
  return { csv: `${lines.join('\r\n')}\r\n`, names };
}

describe.each(dialects)('CSV columns as MIS and Excel export them on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  const nameOf = async (id: string | null | undefined) =>
    await t.database.db
      .selectFrom('credentials')
      .select(['display_name', 'issued_on', 'completion_key'])
      .where('id', '=', id as string)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer();
    await createDefinition(t, a.key, { name: 'Welding level 1', slug: 'weld1' });
  });
  afterAll(async () => t.close());

  it('imports 150 learners of an MIS export with names, course codes, DD/MM/YYYY dates and learner keys right', async () => {
    const { csv, names } = misRoster(150);
    const dry = await importCsv(t, a.key, csv, { dryRun: true });
    expect(dry.columns).toEqual({
      recognised: [
        { header: 'Learner Ref', field: 'learnerRef' },
        { header: 'Surname', field: 'recipientName' },
        { header: 'Forename', field: 'recipientName' },
        { header: 'Email Address', field: 'recipientEmail' },
        { header: 'Course Code', field: 'definitionRef' },
        { header: 'Date Achieved', field: 'issuedOn' },
      ],
      ignored: [],
    });
    expect(dry.rows.filter((row) => row.preview !== 'new')).toEqual([]);
    const report = await importCsv(t, a.key, csv);
    expect([report.issued, report.errored]).toEqual([150, 0]);
    const first = await nameOf(report.rows[0]?.credentialId);
    expect(first).toEqual({
      display_name: names[0],
      issued_on: '2026-03-02T00:00:00.000Z',
      completion_key: 'learner:L000001:weld1',
    });
    const stored = await t.database.db
      .selectFrom('credentials')
      .select('display_name')
      .where('issuer_id', '=', a.id)
      .where('completion_key', 'like', 'learner:%')
      .execute();
    expect(stored.map((row) => row.display_name).sort()).toEqual([...names].sort());
    const again = await importCsv(t, a.key, csv, { dryRun: true });
    expect(again.rows.every((row) => row.preview === 'already_issued')).toBe(true);
  });

  it.each([
    ['Given Name,Family Name,Email,Course', 'Ada,Lovelace', 'Ada Lovelace'],
    ['First,Last,Email,Course', 'Ada,Lovelace', 'Ada Lovelace'],
    ['Preferred Name,Surname,Email,Course', 'Ada,Lovelace', 'Ada Lovelace'],
    ['Forename,Preferred Name,Surname,Email,Course', 'Augusta,Ada,Lovelace', 'Augusta Lovelace'],
    ['"Surname, Forename",Email,Course', '"Lovelace, Ada"', 'Ada Lovelace'],
    ['Learner Name,Email,Course', 'Ada Lovelace', 'Ada Lovelace'],
  ])('reads the name from %s', async (header, cells, name) => {
    const email = `${header.replace(/\W/g, '').toLowerCase()}@names.example`;
    const csv = `${header}\n${cells},${email},weld1\n`;
    const report = await importCsv(t, a.key, csv);
    expect(report.rows[0]?.outcome, report.rows[0]?.message ?? '').toBe('issued');
    expect((await nameOf(report.rows[0]?.credentialId)).display_name).toBe(name);
  });

  it('reads Course and completed_at as the server always has, and mapped name columns over the aliases', async () => {
    const csv =
      'email,Course,completed_at,Given Name,Surname,Known As\nmap1@names.example,weld1,2026-02-01,Augusta,Byron,Ada\n';
    const dry = await importCsv(t, a.key, csv, { dryRun: true });
    expect(dry.columns.recognised.map((c) => [c.header, c.field])).toEqual([
      ['email', 'recipientEmail'],
      ['Course', 'definitionRef'],
      ['completed_at', 'issuedOn'],
      ['Given Name', 'recipientName'],
      ['Surname', 'recipientName'],
    ]);
    const mapped = await importCsv(t, a.key, csv, {
      mapping: { recipientName: null, givenName: 'known as', familyName: 'SURNAME' },
    });
    expect(mapped.columns.ignored).toEqual(['Given Name']);
    expect((await nameOf(mapped.rows[0]?.credentialId)).display_name).toBe('Ada Byron');
  });

  it('flags a name whose "?" is a character a Windows-1252 save lost, and takes a correction for it', async () => {
    const csv =
      'Surname,Forename,Email,Course\nNguy?n,Anh,lost1@names.example,weld1\nWhy?,Ada,lost2@names.example,weld1\n';
    const dry = await importCsv(t, a.key, csv, { dryRun: true });
    const rows = dry.rows as (RowReport & { nameWarning?: string; recipientName?: string })[];
    expect(rows.map((row) => [row.recipientName, row.nameWarning !== undefined])).toEqual([
      ['Anh Nguy?n', true],
      ['Ada Why?', true],
    ]);
    expect(rows[0]?.nameWarning).toContain('Windows-1252');
    const fixes = { nameCorrections: [{ rowNum: 2, recipientName: 'Anh Nguyễn' }] };
    const fixed = await importCsv(t, a.key, csv, { dryRun: true, ...fixes });
    const fixedRows = fixed.rows as (RowReport & { nameWarning?: string; recipientName?: string })[];
    expect(fixedRows.map((row) => [row.recipientName, row.nameWarning !== undefined])).toEqual([
      ['Anh Nguyễn', false],
      ['Ada Why?', true],
    ]);
    const real = await importCsv(t, a.key, csv, fixes);
    expect((await nameOf(real.rows[0]?.credentialId)).display_name).toBe('Anh Nguyễn');
    const bad = await postJson(t, a.key, '/api/v1/ingest/csv', {
      csv,
      nameCorrections: [{ rowNum: 2, recipientName: 'line\nbreak' }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('validation_failed');
  });

  it('refuses two columns giving one name part, naming the mapping that chooses', async () => {
    const res = await postJson(t, a.key, '/api/v1/ingest/csv', {
      csv: 'email,Forename,First Name,course\nx@names.example,A,B,weld1\n',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe(
      'The columns "Forename" and "First Name" both give givenName; choose one with mapping.givenName.',
    );
  });
});
