import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDateDetector, parseDate } from '../src/modules/ingest/dates.js';
import { createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, type ImportReportBody, importCsv, postJson } from './ingest.support.js';

/** Issue 39 §2: rosters as they really come (date formats, "not used" columns, already-held rows). */

type RosterRow = ImportReportBody['rows'][number] & {
  recipientName?: string | null;
  definitionName?: string | null;
  issuedOn?: string | null;
};
type RosterReport = Omit<ImportReportBody, 'rows'> & {
  rows: RosterRow[];
  dateFormat: { used: string | null; detected: string | null; ambiguous: boolean };
};

describe('dates', () => {
  it('reads every roster format, and says why a value is no date', () => {
    expect(parseDate('05/04/2025', 'DD/MM/YYYY')).toEqual({ ok: true, iso: '2025-04-05T00:00:00.000Z' });
    expect(parseDate('5/4/2025', 'DD/MM/YYYY')).toEqual({ ok: true, iso: '2025-04-05T00:00:00.000Z' });
    expect(parseDate('04/05/2025', 'MM/DD/YYYY')).toEqual({ ok: true, iso: '2025-04-05T00:00:00.000Z' });
    expect(parseDate('5 April 2025')).toEqual({ ok: true, iso: '2025-04-05T00:00:00.000Z' });
    expect(parseDate('5th Apr 2025')).toEqual({ ok: true, iso: '2025-04-05T00:00:00.000Z' });
    expect(parseDate('45752', 'Excel serial')).toEqual({ ok: true, iso: '2025-04-05T00:00:00.000Z' });
    expect(parseDate('2025-04-05')).toEqual({ ok: true, iso: '2025-04-05T00:00:00.000Z' });
    expect(parseDate('31/02/2026', 'DD/MM/YYYY')).toEqual({ ok: false, problem: 'not_a_day' });
    expect(parseDate('30 February 2026')).toEqual({ ok: false, problem: 'not_a_day' });
    expect(parseDate('2021-02-30')).toEqual({ ok: false, problem: 'not_a_day' });
    expect(parseDate('05/04/2025')).toEqual({ ok: false, problem: 'needs_format' });
    expect(parseDate('yesterday')).toEqual({ ok: false, problem: 'unreadable' });
    // Without its format an Excel serial is what it always was: unix seconds.
    expect(parseDate('45752')).toEqual({ ok: true, iso: '1970-01-01T12:42:32.000Z' });
  });

  it.each([
    [['25/12/2025', '01/02/2026'], { detected: 'DD/MM/YYYY', ambiguous: false }],
    [['12/25/2025', '01/02/2026'], { detected: 'MM/DD/YYYY', ambiguous: false }],
    [['03/04/2026', '01/02/2026', ''], { detected: null, ambiguous: true }],
    [['05/05/2026', '1/1/2026'], { detected: 'DD/MM/YYYY', ambiguous: false }],
    [['25/12/2025', '12/25/2025'], { detected: null, ambiguous: false }],
    [['45752', '45000.5'], { detected: 'Excel serial', ambiguous: false }],
    [['5 April 2025', '2025-01-01'], { detected: 'D Month YYYY', ambiguous: false }],
    [['2025-01-01'], { detected: 'ISO 8601', ambiguous: false }],
    [['', '0'], { detected: null, ambiguous: false }],
  ])('detects the format of %j', (values, expected) => {
    const detector = createDateDetector();
    for (const value of values) detector.add(value);
    expect(detector.result()).toEqual(expected);
  });
});

describe('date detection stops early', () => {
  it('at the first value that shows the day/month order, or after 1,000 values without a day/month date', () => {
    const dayMonth = createDateDetector();
    expect([dayMonth.add('01/02/2026'), dayMonth.add('03/04/2026'), dayMonth.add('25/04/2026')]).toEqual([
      false,
      false,
      true,
    ]);
    const iso = createDateDetector();
    const answers = Array.from({ length: 1000 }, () => iso.add('2026-01-01'));
    expect(answers.indexOf(true)).toBe(999);
    expect(iso.result()).toEqual({ detected: 'ISO 8601', ambiguous: false });
  });
});

describe.each(dialects)('CSV rosters on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let course: { id: string; slug: string };
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  const run = (csv: string, extra: Record<string, unknown> = {}) =>
    importCsv(t, a.key, csv, extra) as Promise<unknown> as Promise<RosterReport>;

  async function issuedOn(id: string | null): Promise<string> {
    const row = await t.database.db
      .selectFrom('credentials')
      .select(['issued_on', 'display_name'])
      .where('id', '=', id as string)
      .executeTakeFirstOrThrow();
    return row.issued_on;
  }

  /** A UK roster: 30 rows, day first, every day ≤ 28 so some rows read both ways. */
  function roster(prefix: string, day = (i: number) => i + 1): string {
    const lines = ['Email,Full Name,Course,Completed'];
    for (let i = 0; i < 30; i++) {
      const d = String(day(i)).padStart(2, '0');
      lines.push(`${prefix}${i}@roster.example,Learner ${i},forklift,${d}/03/2026`);
    }
    return `${lines.join('\r\n')}\r\n`;
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer();
    course = await createDefinition(t, a.key, { name: 'Forklift Safety', slug: 'forklift' });
  });
  afterAll(async () => t.close());

  it('imports a DD/MM/YYYY roster of 30 rows with the option, and detects the format without it', async () => {
    const named = await run(roster('uk'), { mapping: { dateFormat: 'DD/MM/YYYY' } });
    expect([named.total, named.issued, named.errored]).toEqual([30, 30, 0]);
    expect(named.dateFormat).toEqual({ used: 'DD/MM/YYYY', detected: null, ambiguous: false });
    expect(await issuedOn(named.rows[24]?.credentialId ?? null)).toBe('2026-03-25T00:00:00.000Z');

    const detected = await run(roster('det'), { dryRun: true });
    expect(detected.dateFormat).toEqual({ used: 'DD/MM/YYYY', detected: 'DD/MM/YYYY', ambiguous: false });
    expect([detected.issued, detected.errored]).toEqual([30, 0]);
    expect(detected.rows[2]).toMatchObject({
      preview: 'new',
      recipientName: 'Learner 2',
      definitionName: 'Forklift Safety',
      issuedOn: '2026-03-03T00:00:00.000Z',
      message: null,
    });
  });

  it('finds the email under "Email Address" or "E-mail", and composes the name from first name and surname', async () => {
    for (const header of ['Email Address', 'E-mail', 'email_address']) {
      const csv = `${header},First Name,Surname,Course,Completed\r\nparts-${header.length}@roster.example,Ada,Lovelace,forklift,2026-03-01\r\n`;
      const report = await run(csv, { dryRun: true });
      expect([report.issued, report.errored], header).toEqual([1, 0]);
      expect(report.rows[0]?.recipientName).toBe('Ada Lovelace');
    }
  });

  it('reads a roster separated by semicolons (Excel where the decimal mark is a comma) or tabs', async () => {
    const semicolons = roster('semi').replaceAll(',', ';');
    const bySemicolon = await run(`\uFEFF${semicolons}`, { dryRun: true });
    expect([bySemicolon.total, bySemicolon.issued, bySemicolon.errored]).toEqual([30, 30, 0]);
    expect(bySemicolon.rows[4]).toMatchObject({ recipientName: 'Learner 4', issuedOn: '2026-03-05T00:00:00.000Z' });
    const byTab = await run(roster('tab').replaceAll(',', '\t'), { dryRun: true });
    expect([byTab.total, byTab.issued, byTab.errored]).toEqual([30, 30, 0]);
    // A comma file keeps its commas: a semicolon in a name is data, and the header decides.
    const commaNames = roster('comma').replace('Learner 0', '"Ng; Learner 0"').replace('Learner 1,', 'Learner; 1,');
    const byComma = await run(commaNames, { dryRun: true });
    expect([byComma.issued, byComma.errored]).toEqual([30, 0]);
    expect(byComma.rows.slice(0, 2).map((row) => row.recipientName)).toEqual(['Ng; Learner 0', 'Learner; 1']);
  });

  it('an ambiguous file (all days ≤ 12) asks for the format, and imports once it is named', async () => {
    const csv = roster('amb', (i) => (i % 12) + 1);
    const asked = await run(csv, { dryRun: true });
    expect(asked.dateFormat).toEqual({ used: null, detected: null, ambiguous: true });
    expect(asked.issued).toBe(0);
    expect(asked.rows[1]).toMatchObject({ preview: 'error', outcome: 'error', issuedOn: null });
    expect(asked.rows[1]?.message).toBe(
      'issuedOn: date 02/03/2026 could be day/month or month/day; choose the date format (mapping.dateFormat DD/MM/YYYY or MM/DD/YYYY)',
    );
    const monthFirst = await run(csv, { dryRun: true, mapping: { dateFormat: 'MM/DD/YYYY' } });
    expect(monthFirst.rows[1]?.issuedOn).toBe('2026-02-03T00:00:00.000Z');
    const chosen = await run(csv, { mapping: { dateFormat: 'DD/MM/YYYY' } });
    expect([chosen.issued, chosen.errored]).toEqual([30, 0]);
    expect(await issuedOn(chosen.rows[1]?.credentialId ?? null)).toBe('2026-03-02T00:00:00.000Z');
  });

  it('a name with a line break or a tab in it is a row error, not a stored name (issue 37 item 8)', async () => {
    const csv =
      'email,name,course\nbreak@roster.example,"Ada\nLovelace",forklift\ntab@roster.example,Ada\tL,forklift\nok@roster.example,Ada Lovelace,forklift\n';
    const report = await run(csv, { dryRun: true });
    expect(report.rows.map((r) => r.preview)).toEqual(['error', 'error', 'new']);
    expect(report.rows[0]?.message).toBe(
      'recipientName may not contain control characters (a line break or a tab): write the name on one line',
    );
  });

  it('a date that is no day gets a message saying how to fix it', async () => {
    const csv = 'email,course,date\nfeb@roster.example,forklift,31/02/2026\nok@roster.example,forklift,28/02/2026\n';
    const report = await run(csv, { dryRun: true, mapping: { dateFormat: 'DD/MM/YYYY' } });
    expect(report.rows.map((r) => r.preview)).toEqual(['error', 'new']);
    expect(report.rows[0]?.message).toBe(
      'issuedOn: date 31/02/2026 is not a day; correct the day or the month (read as DD/MM/YYYY)',
    );
    const named = await run('email,course,date\nmonth@roster.example,forklift,30 February 2026\n', { dryRun: true });
    expect(named.rows[0]?.message).toContain('date 30 February 2026 is not a day');
  });

  it('reads Excel serials when named, and month names always', async () => {
    const excel = await run('email,course,date\nxl@roster.example,forklift,45752\n', { dryRun: true });
    expect(excel.dateFormat.detected).toBe('Excel serial');
    expect(excel.rows[0]?.issuedOn).toBe('2025-04-05T00:00:00.000Z');
    const words = await run('email,course,date\nword@roster.example,forklift,5 April 2025\n');
    expect(await issuedOn(words.rows[0]?.credentialId ?? null)).toBe('2025-04-05T00:00:00.000Z');
  });

  it('never reads a column mapped "not used" (null), whatever its header', async () => {
    const csv = 'email,name,first name,course,date\nunused@roster.example,Full Name,First,forklift,not a date at all\n';
    const read = await run(csv, { dryRun: true });
    expect(read.rows[0]?.preview).toBe('error');
    const report = await run(csv, { mapping: { issuedOn: null, recipientName: null } });
    expect(report.rows[0]).toMatchObject({ outcome: 'issued', message: null });
    expect(report.columns.recognised.map((c) => c.field)).toEqual(['recipientEmail', 'definitionRef']);
    expect(report.columns.ignored).toEqual(['name', 'first name', 'date']);
    expect(report.dateFormat).toEqual({ used: null, detected: null, ambiguous: false });
    const row = await t.database.db
      .selectFrom('credentials')
      .select(['display_name', 'issued_on'])
      .where('id', '=', report.rows[0]?.credentialId as string)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ display_name: null, issued_on: '2026-11-21T10:00:00.000Z' });
  });

  it('a row for a recipient who already holds the definition is already held, with or without a key, and issues nothing', async () => {
    const first = await postJson(t, a.key, '/api/v1/credentials', {
      definitionId: course.id,
      recipientEmail: 'held@roster.example',
      completionKey: 'lms:held',
    });
    expect(first.statusCode, first.body).toBe(201);
    const existing = first.json().credentialId as string;
    const csv = [
      'email,course,key',
      'held@roster.example,forklift,roster-2026:held',
      'HELD@roster.example,forklift,',
      'fresh@roster.example,forklift,roster-2026:fresh',
    ].join('\n');
    const dry = await run(csv, { dryRun: true });
    expect(dry.rows.map((r) => [r.preview, r.credentialId])).toEqual([
      ['already_issued', existing],
      ['already_issued', existing],
      ['new', null],
    ]);
    expect(dry.rows[0]?.message).toBe(`already held: the recipient holds credential ${existing} of this definition`);
    const count = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('credentials')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('recipient_hash', 'in', [
              (
                await t.database.db
                  .selectFrom('credentials')
                  .select('recipient_hash')
                  .where('id', '=', existing)
                  .executeTakeFirstOrThrow()
              ).recipient_hash,
            ])
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const real = await run(csv);
    expect([real.issued, real.skipped, real.errored]).toEqual([1, 2, 0]);
    expect(real.rows[0]).toMatchObject({ outcome: 'skipped', credentialId: existing });
    expect(await count()).toBe(before);
  });
});
