import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashRecipientEmail } from '../src/core/hashing.js';
import {
  axcelerateContact,
  axcelerateFlattenedUnits,
  axcelerateMergedRows,
  axcelerateWebhook,
  canvasCourseCompleted,
  canvasCourseProgress,
  moodleRawCourseCompleted,
  moodleRawCourseViewed,
  moodleToolTriggerBody,
} from './connectors.fixtures.js';
import {
  createTestApp,
  dialects,
  expectErrorBody,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { createDefinition, postJson, storedText } from './ingest.support.js';

interface RecordReport {
  index: number;
  outcome: string;
  completionKey: string | null;
  credentialId: string | null;
  message: string | null;
}
interface RunReport {
  provider: string;
  total: number;
  issued: number;
  skipped: number;
  errored: number;
  records: RecordReport[];
}

const url = (provider: string) => `/api/v1/connectors/${provider}/completions`;

describe.each(dialects)('connectors on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  const defs: Record<string, { id: string; slug: string }> = {};
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const responses: string[] = [];

  async function send(provider: string, body: unknown, key = a.key): Promise<RunReport> {
    const res = await postJson(t, key, url(provider), body);
    expect(res.statusCode, res.body.slice(0, 2000)).toBe(200);
    responses.push(res.body);
    return res.json() as RunReport;
  }

  async function credential(id: string | null) {
    return t.database.db
      .selectFrom('credentials')
      .selectAll()
      .where('id', '=', id as string)
      .executeTakeFirstOrThrow();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `conn-a-${dialect}` });
    b = await t.issuer({ slug: `conn-b-${dialect}` });
    for (const [name, slug] of [
      ['Computer Science I', 'cs-101'],
      ['English 101', 'eng-101'],
      ['CPR', 'hltaid001'],
      ['Provide First Aid', 'first-aid'],
      ['First Aid Refresher', 'pfa-cpr-com'],
      ['Trainer Checklist', 'trainer-checklist'],
      ['Stakeholder Survey', 'bsbcco405a'],
      ['Customer Service', 'bsbcus403a'],
      ['Generic Course', 'generic-course'],
    ]) {
      defs[slug as string] = await createDefinition(t, a.key, { name: name as string, slug });
    }
    defs.foreign = await createDefinition(t, b.key, { name: 'Foreign', slug: 'foreign' });
  });
  afterAll(async () => t.close());

  describe('canvas', () => {
    it('issues for a raw course_completed Live Event and replays its re-fire with a new completed_at', async () => {
      const definitionMap = { '2017.100.101.101-1': 'cs-101' };
      const first = await send('canvas', { ...canvasCourseCompleted, definitionMap });
      expect(first).toMatchObject({ provider: 'canvas', total: 1, issued: 1, skipped: 0, errored: 0 });
      const record = first.records[0] as RecordReport;
      expect(record).toMatchObject({
        index: 0,
        outcome: 'issued',
        completionKey: 'canvas:VicYj3cu5BIFpoZhDVU4DZumnlBrWi1grgJEzADs:565:123',
        message: null,
      });
      expect(await credential(record.credentialId)).toMatchObject({
        definition_id: defs['cs-101']?.id,
        recipient_hash: hashRecipientEmail('inewton@example.com', a.salt),
        display_name: 'Isaac Newton',
        issued_on: '2019-11-05T13:38:00.218Z',
        source: 'connector:canvas',
      });
      const refired = structuredClone(canvasCourseCompleted);
      refired.body.progress.completed_at = '2019-11-09T08:00:00.000Z';
      const again = await send('canvas', { records: [refired], definitionMap });
      expect(again.records[0]).toMatchObject({
        outcome: 'skipped',
        credentialId: record.credentialId,
        message: 'already issued: the completion key exists',
      });
    });

    it('skips progress events and records without completed_at, reading the SIS id, else the course id', async () => {
      const keyless = structuredClone(canvasCourseCompleted);
      keyless.body.user = { email: 'keyless@example.com', id: '125', name: 'Keyless Student' };
      const report = await send('canvas', {
        records: [canvasCourseProgress, { ...keyless, metadata: { event_name: 'course_completed' } }],
        definitionMap: { '2017.100.101.101-1': 'cs-101' },
      });
      expect(report.records.map((r) => [r.outcome, r.message])).toEqual([
        ['skipped', 'the event course_progress is not course_completed'],
        ['issued', null],
      ]);
      expect(report.records[1]?.completionKey).toMatch(/^auto:/);
      const bare = structuredClone(canvasCourseCompleted);
      bare.body.course.sis_source_id = '';
      bare.metadata.context_sis_source_id = '';
      bare.body.user = { email: 'other@example.com', id: '124', name: 'Other Student' };
      const byId = await send('canvas', { records: [bare], definitionMap: { '565': 'cs-101' } });
      expect(byId.records[0]).toMatchObject({ outcome: 'issued' });
    });
  });

  describe('axcelerate', () => {
    it('issues enrolment rows that completed: unit outcome 20, program, workshop and e-learning completed', async () => {
      const report = await send('axcelerate', {
        records: axcelerateMergedRows,
        definitionMap: { 'PFA incl CPR': 'first-aid', 'el:425489': defs['trainer-checklist']?.id },
      });
      expect(report.records.map((r) => [r.outcome, r.completionKey, r.message])).toEqual([
        ['issued', 'axcelerate:708861:s:48957030', null],
        ['issued', 'axcelerate:708861:p:11760355', null],
        ['issued', 'axcelerate:708861:w:8448208', null],
        ['issued', 'axcelerate:708861:el:8448209', null],
      ]);
      const rows = await Promise.all(report.records.map((r) => credential(r.credentialId)));
      expect(rows.map((r) => r.definition_id)).toEqual([
        defs.hltaid001?.id,
        defs['first-aid']?.id,
        defs['pfa-cpr-com']?.id,
        defs['trainer-checklist']?.id,
      ]);
      expect(rows.map((r) => r.display_name)).toEqual(Array(4).fill('Joe Bloggs'));
      expect(rows[0]).toMatchObject({
        recipient_hash: hashRecipientEmail(axcelerateContact.EMAILADDRESS, a.salt),
        issued_on: '2021-04-15T00:00:00.000Z',
        source: 'connector:axcelerate',
      });
      const again = await send('axcelerate', {
        records: axcelerateMergedRows,
        definitionMap: { 'PFA incl CPR': 'first-aid', 'el:425489': 'trainer-checklist' },
      });
      expect(again).toMatchObject({ issued: 0, skipped: 4, errored: 0 });
    });

    it('skips outcome 30; issues 51; issues 60 only when options.outcomeCodes adds it', async () => {
      const [achieved, notAchieved] = axcelerateFlattenedUnits;
      const rpl = { ...achieved, CODE: 'BSBCUS403A', OUTCOMECODE: '51', LEARNERID: 3135018 };
      const credit = { ...achieved, CODE: 'BSBCUS403A', OUTCOMECODE: '60', LEARNERID: 3135019 };
      const report = await send('axcelerate', { records: [achieved, notAchieved, rpl, credit] });
      expect(report.records.map((r) => [r.outcome, r.message])).toEqual([
        ['issued', null],
        ['skipped', 'outcome code 30 is not a completion'],
        ['issued', null],
        ['skipped', 'outcome code 60 is not a completion'],
      ]);
      expect(report.records[0]?.completionKey).toBe('axcelerate:116482:s:3135016');
      expect((await credential(report.records[0]?.credentialId ?? null)).issued_on).toBe('2026-11-21T10:00:00.000Z');
      const withCredit = await send('axcelerate', { records: [credit], options: { outcomeCodes: ['60'] } });
      expect(withCredit.records[0]).toMatchObject({ outcome: 'issued', completionKey: 'axcelerate:116482:s:3135019' });
    });

    it('skips rows that are not completions and unwraps a webhook delivery', async () => {
      const [unit, program] = axcelerateMergedRows;
      const report = await send('axcelerate', {
        records: [
          { ...program, STATUS: 'Enrolled', LEARNERID: 1 },
          { ...program, COMPLETIONDATE: '1900-01-01', FINISHDATE: null, LEARNERID: 2 },
          { ...unit, TYPE: 'x', LEARNERID: 3 },
          { ...unit, OUTCOMECODE: '', LEARNERID: 4 },
        ],
      });
      expect(report.records.map((r) => [r.outcome, r.message])).toEqual([
        ['skipped', 'the status Enrolled is not a completion'],
        ['skipped', 'completed, but without a completion date'],
        ['skipped', 'the activity type x is not a completion'],
        ['skipped', 'the unit has no outcome code'],
      ]);
      const hook = await send('axcelerate', axcelerateWebhook({ ...unit, LEARNERID: 5 }));
      expect(hook.records[0]).toMatchObject({ outcome: 'issued', completionKey: 'axcelerate:708861:s:5' });
    });

    it('takes the legal name, never the preferred name or the USI', async () => {
      const [unit] = axcelerateMergedRows;
      const report = await send('axcelerate', { records: [{ ...unit, LEARNERID: 77 }] });
      const row = await credential(report.records[0]?.credentialId ?? null);
      expect(row.display_name).toBe('Joe Bloggs');
      expect(JSON.stringify(row)).not.toContain('FAKE054321');
      expect(await storedText(t)).not.toContain('fake054321');
    });
  });

  describe('moodle', () => {
    it('issues for an enriched Event Trigger record, restoring "+" in the email', async () => {
      const report = await send('moodle', { ...moodleToolTriggerBody, definitionMap: { 'ENG-101-2026': 'eng-101' } });
      expect(report.records[0]).toMatchObject({
        outcome: 'issued',
        completionKey: 'moodle:moodle.school.example:4:58',
      });
      expect(await credential(report.records[0]?.credentialId ?? null)).toMatchObject({
        definition_id: defs['eng-101']?.id,
        recipient_hash: hashRecipientEmail('ada+lovelace@school.example', a.salt),
        display_name: 'Ada Lovelace',
        issued_on: '2026-01-01T00:00:00.000Z',
      });
    });

    it('reports a raw course_completed event without an email as an error and skips other events', async () => {
      const raw = await send('moodle', moodleRawCourseCompleted);
      expect(raw).toMatchObject({ total: 1, issued: 0, errored: 1 });
      expect(raw.records[0]?.message).toContain('needs an email: enrich the event');
      expect(raw.records[0]?.completionKey).toBe('moodle:moodle.school.example:4:58');
      const viewed = await send('moodle', { records: [moodleRawCourseViewed] });
      expect(viewed.records[0]).toMatchObject({
        outcome: 'skipped',
        message: expect.stringContaining('course_viewed'),
      });
      const enriched = await send('moodle', {
        ...moodleRawCourseCompleted,
        email: 'raw@school.example',
        relateduserid: '60',
        definitionMap: { 'moodle:4': 'eng-101' },
      });
      expect(enriched.records[0]).toMatchObject({
        outcome: 'issued',
        completionKey: 'moodle:moodle.school.example:4:60',
      });
      expect((await credential(enriched.records[0]?.credentialId ?? null)).issued_on).toBe('2017-12-11T03:04:16.000Z');
      const notDone = await send('moodle', {
        records: [{ ...moodleToolTriggerBody.records[0], timecompleted: '0', userid: '59' }],
      });
      expect(notDone.records[0]).toMatchObject({
        outcome: 'skipped',
        message: 'not completed: timecompleted is not set',
      });
    });
  });

  describe('generic', () => {
    it('reads common field names, definitionRef on the record, the sender key or the auto: key', async () => {
      const report = await send('generic', {
        records: [
          {
            email: 'g1@generic.example',
            firstName: 'Gen',
            lastName: 'One',
            definitionRef: 'Generic Course',
            externalId: 'ext-1',
          },
          {
            recipientEmail: 'g2@generic.example',
            fullName: 'Gen Two',
            courseCode: 'GENERIC-COURSE',
            completedAt: 1_700_000_000,
          },
          {
            user: { email: 'g3@generic.example' },
            code: 'generic-course',
            completed_at: '2024-02-29',
            evidenceUrl: 'https://x.example/e',
          },
          { emailAddress: 'g4@generic.example', courseId: 'c-9', completionDate: 1_700_000_000_000 },
        ],
        definitionMap: { 'c-9': defs['generic-course']?.id },
      });
      expect(report.records.map((r) => r.outcome)).toEqual(['issued', 'issued', 'issued', 'issued']);
      expect(report.records[0]?.completionKey).toBe('ext-1');
      expect(report.records[1]?.completionKey).toMatch(/^auto:[0-9a-f]{32}$/);
      const rows = await Promise.all(report.records.map((r) => credential(r.credentialId)));
      expect(rows.map((r) => [r.display_name, r.issued_on, r.definition_id])).toEqual([
        ['Gen One', '2026-11-21T10:00:00.000Z', defs['generic-course']?.id],
        ['Gen Two', '2023-11-14T22:13:20.000Z', defs['generic-course']?.id],
        [null, '2024-02-29T00:00:00.000Z', defs['generic-course']?.id],
        [null, '2023-11-14T22:13:20.000Z', defs['generic-course']?.id],
      ]);
      expect(rows[2]?.evidence_url).toBe('https://x.example/e');
    });

    it('applies mapping paths and dateFormat, and reports every bad record without failing the others', async () => {
      const report = await send('generic', {
        records: [
          { learner: { contact: 'm1@map.example', label: 'Mapped One' }, unit: 'generic-course', done: '05/04/2025' },
          'not an object',
          null,
          [1, 2],
          { learner: { contact: 'not-an-email' }, unit: 'generic-course' },
          { learner: { contact: 'm2@map.example' }, unit: 'no-such-code' },
          { learner: { contact: 'm3@map.example' }, unit: 'mapped-away' },
          { learner: { contact: 'm4@map.example' } },
          { learner: { contact: 'm5@map.example' }, unit: 'generic-course', done: '2999-01-01' },
          { learner: { contact: 'm6@map.example' }, unit: 'generic-course', done: '2021-02-30' },
          { learner: { contact: 'm7@map.example' }, unit: 'foreign' },
          { learner: { contact: 'm8@map.example' }, unit: 'generic-course', definitionId: defs.foreign?.id },
          { learner: { contact: 'm9@map.example' }, unit: 'constructor' },
        ],
        mapping: {
          recipientEmail: 'learner.contact',
          recipientName: ['learner.label', 'learner.name'],
          courseCode: 'unit',
          completedAt: 'done',
          dateFormat: 'DD/MM/YYYY',
        },
        definitionMap: { 'mapped-away': defs.foreign?.id },
      });
      expect(report).toMatchObject({ total: 13, issued: 1, skipped: 0, errored: 12 });
      expect(report.records.map((r) => r.message)).toEqual([
        null,
        'the record is not a JSON object',
        'the record is not a JSON object',
        'the record is not a JSON object',
        'recipientEmail is not a valid email address',
        'no definition for course code "no-such-code": add it to definitionMap or use it as a definition slug',
        `definitionMap sends course code "mapped-away" to "${defs.foreign?.id}", which is no definition`,
        'the record has no course code to choose its definition by',
        'completedAt may not be in the future',
        'completedAt: date 2021-02-30 is not a day; correct the day or the month',
        'no definition for course code "foreign": add it to definitionMap or use it as a definition slug',
        'definitionId does not match a definition',
        'no definition for course code "constructor": add it to definitionMap or use it as a definition slug',
      ]);
      expect(await credential(report.records[0]?.credentialId ?? null)).toMatchObject({
        display_name: 'Mapped One',
        issued_on: '2025-04-05T00:00:00.000Z',
      });
      expect(JSON.stringify(report)).not.toContain('@map.example');
    });

    it('makes a record holding U+0000 or an unpaired surrogate an error record alone; U+0000 in the settings is a 400', async () => {
      const report = await send('generic', {
        records: [
          { email: 'nul1@nul.example', name: 'Nul\u0000Name', courseCode: 'generic-course' },
          { email: 'nul2@nul.example', name: 'Fine Name', courseCode: 'generic-course' },
        ],
      });
      expect(report).toMatchObject({ total: 2, issued: 1, errored: 1 });
      expect(report.records[0]?.message).toBe('/name contains the NUL character (U+0000)');
      const lone = await send('generic', {
        records: [{ email: 'lone@nul.example', name: 'Lone\ud800Name', courseCode: 'generic-course' }],
      });
      expect(lone).toMatchObject({ total: 1, issued: 0, errored: 1 });
      expect(lone.records[0]?.message).toBe('/name contains an unpaired surrogate (U+D800-U+DFFF)');
      const res = await postJson(t, a.key, url('generic'), {
        records: [{ email: 'nul3@nul.example', courseCode: 'x' }],
        definitionMap: { x: 'generic\u0000course' },
      });
      expectErrorBody(res, 400, 'validation_failed');
    });

    it('issues once per key within a call and records each call as an import batch', async () => {
      const record = { email: 'twice@generic.example', courseCode: 'generic-course' };
      const report = await send('generic', { records: [record, { ...record, email: 'TWICE@generic.example' }] });
      expect(report.records.map((r) => [r.outcome, r.message])).toEqual([
        ['issued', null],
        ['skipped', 'duplicate of record 0'],
      ]);
      const batches = await t.database.db
        .selectFrom('import_batches')
        .select(['source', 'filename', 'total', 'issued', 'skipped', 'errored'])
        .where('issuer_id', '=', a.id)
        .execute();
      expect(batches).toContainEqual({
        source: 'connector:generic',
        filename: null,
        total: 2,
        issued: 1,
        skipped: 1,
        errored: 0,
      });
      expect(new Set(batches.map((row) => row.source))).toEqual(
        new Set(['connector:generic', 'connector:canvas', 'connector:axcelerate', 'connector:moodle']),
      );
    });

    it('keeps quota rows apart: records past the quota are quota_exceeded errors', async () => {
      await t.app.services.issuers.updatePlan('free', { requestsPerMinute: 10_000, issuanceQuota: 2 });
      const small = await t.issuer({ plan: 'free' });
      await createDefinition(t, small.key, { name: 'Small', slug: 'small' });
      const report = await send(
        'generic',
        { records: [1, 2, 3, 4].map((n) => ({ email: `s${n}@quota.example`, courseCode: 'small' })) },
        small.key,
      );
      expect(report.records.map((r) => [r.outcome, r.message])).toEqual([
        ['issued', null],
        ['issued', null],
        ['error', 'quota_exceeded'],
        ['error', 'quota_exceeded'],
      ]);
    });
  });

  it('answers 404 unknown_provider, 400 over 1,000 records or a bad body, 401 without a key', async () => {
    expectErrorBody(await postJson(t, a.key, url('blackboard'), { records: [] }), 404, 'unknown_provider');
    expectErrorBody(await postJson(t, a.key, url('AXCELERATE'), { records: [] }), 404, 'unknown_provider');
    const tooMany = { records: Array.from({ length: 1_001 }, (_, i) => ({ email: `n${i}@x.example` })) };
    const over = expectErrorBody(await postJson(t, a.key, url('generic'), tooMany), 400, 'validation_failed');
    expect(JSON.stringify(over.issues)).toContain('/records');
    expectErrorBody(await postJson(t, a.key, url('axcelerate'), tooMany), 400, 'validation_failed');
    const exactly = await send('generic', { records: tooMany.records.slice(0, 1_000) });
    expect(exactly).toMatchObject({ total: 1_000, errored: 1_000 });
    for (const body of [
      { records: 'nope' },
      { records: [], mapping: { recipientEmail: 5 } },
      { records: [], mapping: { learner: 'x' } },
      { records: [], definitionMap: { a: 1 } },
      { records: [], options: { outcomeCodes: 'all' } },
      { records: [], mapping: { dateFormat: 'YYYY/DD/MM' } },
    ]) {
      expectErrorBody(await postJson(t, a.key, url('generic'), body), 400, 'validation_failed');
    }
    const empty = await send('generic', { records: [] });
    expect(empty).toEqual({ provider: 'generic', total: 0, issued: 0, skipped: 0, errored: 0, records: [] });
    for (const provider of ['generic', 'moodle', 'canvas', 'axcelerate', 'unknown']) {
      await expectKeyRequired(t.app, { method: 'POST', url: url(provider), payload: { records: [] } });
    }
  });

  it("never resolves another issuer's definitions", async () => {
    const report = await send(
      'generic',
      {
        records: [
          { email: 'c1@cross.example', definitionId: defs['cs-101']?.id },
          { email: 'c2@cross.example', courseCode: 'cs-101' },
          { email: 'c3@cross.example', courseCode: 'foreign' },
        ],
      },
      b.key,
    );
    expect(report.records.map((r) => r.outcome)).toEqual(['error', 'error', 'issued']);
  });

  it('never stores or returns the emails it received', async () => {
    const stored = await storedText(t);
    const emails = [
      'inewton@example.com',
      'joe.bloggs@fakeemail.com.au',
      'nathan.gordon@vmlearning.com.au',
      'ada+lovelace@school.example',
      'raw@school.example',
      'g1@generic.example',
      'm1@map.example',
      'twice@generic.example',
    ];
    expect(emails.filter((email) => stored.includes(email))).toEqual([]);
    expect(emails.filter((email) => responses.some((r) => r.toLowerCase().includes(email)))).toEqual([]);
  });
});
