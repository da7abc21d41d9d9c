import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashRecipientEmail, sha256Hex } from '../src/core/hashing.js';
import { parseDate } from '../src/modules/ingest/dates.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { archive, createDefinition, postJson, storedText } from './ingest.support.js';

const URL = '/api/v1/ingest/completions';
const EMAIL = 'Grace.Hopper+Ingest@Navy.Example';

describe.each(dialects)('single completion ingest on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let course: { id: string; slug: string };
  let foreign: { id: string; slug: string };
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `ingest-a-${dialect}` });
    b = await t.issuer({ slug: `ingest-b-${dialect}` });
    course = await createDefinition(t, a.key, { name: 'COBOL Basics', slug: 'cobol', expiresAfterDays: 10 });
    foreign = await createDefinition(t, b.key, { name: 'Foreign', slug: 'foreign' });
  });
  afterAll(async () => t.close());

  it('issues with 201, replays with 200 and the default auto: key', async () => {
    const payload = { recipientEmail: EMAIL, definitionId: course.id, recipientName: 'Grace Hopper' };
    const first = await postJson(t, a.key, URL, payload);
    expect(first.statusCode, first.body).toBe(201);
    const issued = first.json();
    const autoKey = `auto:${sha256Hex(`${course.id}:${hashRecipientEmail(EMAIL, a.salt)}`).slice(0, 32)}`;
    expect(issued).toEqual({
      credentialId: expect.any(String),
      assertionUrl: `https://badges.test/v1/issuers/${a.slug}/assertions/${issued.credentialId}`,
      badgeClassUrl: `https://badges.test/v1/issuers/${a.slug}/badges/cobol`,
      verifyUrl: `https://badges.test/verify/${a.slug}/${issued.credentialId}`,
      created: true,
      status: 'valid',
      completionKey: autoKey,
      outcome: 'issued',
    });
    const replay = await postJson(t, a.key, URL, { ...payload, recipientEmail: EMAIL.toLowerCase() });
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ ...issued, created: false, outcome: 'skipped' });
    const stored = await t.database.db
      .selectFrom('credentials')
      .selectAll()
      .where('id', '=', issued.credentialId)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      source: 'ingest',
      display_name: 'Grace Hopper',
      issued_on: '2026-11-21T10:00:00.000Z',
    });
  });

  it('resolves definitionRef by slug, else by case-insensitive name, and keeps given keys and dates', async () => {
    const bySlug = await postJson(t, a.key, URL, {
      recipientEmail: 'ref1@ingest.example',
      definitionRef: 'cobol',
      completionKey: 'lms-42',
      issuedOn: '2026-03-04T05:06:07Z',
      evidenceUrl: 'https://lms.example/evidence/42',
    });
    expect(bySlug.statusCode, bySlug.body).toBe(201);
    expect(bySlug.json()).toMatchObject({ completionKey: 'lms-42', outcome: 'issued' });
    const detail = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${bySlug.json().credentialId}`,
      headers: auth(a.key),
    });
    expect(detail.json()).toMatchObject({
      issuedOn: '2026-03-04T05:06:07.000Z',
      expiresOn: '2026-03-14T05:06:07.000Z',
      status: 'expired',
    });
    const byName = await postJson(t, a.key, URL, {
      recipientEmail: 'ref2@ingest.example',
      definitionRef: 'cobol BASICS',
    });
    expect(byName.statusCode).toBe(201);
    expect(byName.json().badgeClassUrl).toContain('/badges/cobol');
  });

  it('answers 422 ingest_failed when the definition cannot be resolved, is archived, or issuedOn is ahead', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ definitionRef: 'no-such-course' }, 'definitionRef'],
      [{ definitionId: '00000000-0000-4000-8000-000000000000' }, 'definitionId'],
      [{}, 'definitionId or definitionRef'],
      [{ definitionId: course.id, issuedOn: '2026-11-21T10:00:01Z' }, 'future'],
    ];
    for (const [extra, text] of cases) {
      const res = await postJson(t, a.key, URL, { recipientEmail: 'fail@ingest.example', ...extra });
      expect(expectErrorBody(res, 422, 'ingest_failed').message).toContain(text);
      expect(res.body).not.toContain('fail@ingest.example');
    }
    const old = await createDefinition(t, a.key, { name: 'Retired', slug: 'retired' });
    const before = await postJson(t, a.key, URL, { recipientEmail: 'kept@ingest.example', definitionId: old.id });
    expect(before.statusCode).toBe(201);
    await archive(t, a.key, old.id);
    const refused = await postJson(t, a.key, URL, { recipientEmail: 'late@ingest.example', definitionRef: 'retired' });
    expect(expectErrorBody(refused, 422, 'ingest_failed').message).toContain('archived');
    const replay = await postJson(t, a.key, URL, { recipientEmail: 'kept@ingest.example', definitionId: old.id });
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toMatchObject({ outcome: 'skipped', credentialId: before.json().credentialId });
  });

  it("treats another issuer's definition exactly like a missing one", async () => {
    for (const field of ['definitionId', 'definitionRef'] as const) {
      const theirs = await postJson(t, a.key, URL, {
        recipientEmail: 'x@ingest.example',
        [field]: field === 'definitionId' ? foreign.id : foreign.slug,
      });
      const missing = await postJson(t, a.key, URL, {
        recipientEmail: 'x@ingest.example',
        [field]: field === 'definitionId' ? '00000000-0000-4000-8000-000000000000' : 'missing',
      });
      expectErrorBody(theirs, 422, 'ingest_failed');
      expect(theirs.body).toBe(missing.body);
    }
  });

  it('validates the body and requires a key', async () => {
    const res = await postJson(t, a.key, URL, {
      recipientEmail: 'not-an-email',
      definitionId: 'nope',
      issuedOn: 'yesterday',
      evidenceUrl: 'javascript:alert(1)',
      completionKey: '',
      source: 'spoof',
    });
    const body = expectErrorBody(res, 400, 'validation_failed') as { issues: { path: string }[] };
    expect(body.issues.map((i) => i.path).sort()).toEqual([
      '/completionKey',
      '/definitionId',
      '/evidenceUrl',
      '/issuedOn',
      '/recipientEmail',
      '/source',
    ]);
    expect(res.body).not.toContain('not-an-email');
    await expectKeyRequired(t.app, {
      method: 'POST',
      url: URL,
      payload: { recipientEmail: 'k@ingest.example', definitionId: course.id },
    });
  });

  it('never stores the raw email', async () => {
    const stored = await storedText(t);
    expect(stored).not.toContain(EMAIL.toLowerCase());
    expect(stored).not.toContain('ref1@ingest.example');
  });
});

describe.each(dialects)('single completion quota on %s', (dialect) => {
  let t: TestApp;
  afterAll(async () => t.close());

  it('answers 402 once the plan quota is used, but still replays', async () => {
    t = await createTestApp(dialect);
    await t.app.services.issuers.updatePlan('free', { requestsPerMinute: 10_000, issuanceQuota: 2 });
    const issuer = await t.issuer({ plan: 'free' });
    const def = await createDefinition(t, issuer.key, { name: 'Quota', slug: 'quota' });
    const send = (n: number) =>
      postJson(t, issuer.key, URL, { recipientEmail: `q${n}@quota.example`, definitionRef: 'quota' });
    expect((await send(1)).statusCode).toBe(201);
    expect((await send(2)).statusCode).toBe(201);
    const refused = await send(3);
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toEqual({
      error: 'quota_exceeded',
      message: expect.any(String),
      plan: 'free',
      quota: 2,
      used: 2,
    });
    expect((await send(1)).statusCode).toBe(200);
    expect(def.slug).toBe('quota');
  });
});

describe('completion dates (unit, no database: sqlite and postgres alike)', () => {
  it.each([
    [1_700_000_000, '2023-11-14T22:13:20.000Z'],
    ['1700000000', '2023-11-14T22:13:20.000Z'],
    [1_700_000_000_123, '2023-11-14T22:13:20.123Z'],
    ['2021-04-15', '2021-04-15T00:00:00.000Z'],
    ['2021-04-15 09:30', '2021-04-15T09:30:00.000Z'],
    ['2019-11-05T13:38:00.218Z', '2019-11-05T13:38:00.218Z'],
    ['2019-11-05T23:38:00+10:00', '2019-11-05T13:38:00.000Z'],
    ['2019-11-05T08:38:00-0500', '2019-11-05T13:38:00.000Z'],
    ['2019-11-05T13:38:00', '2019-11-05T13:38:00.000Z'],
    [0, null],
    ['0', null],
    ['', null],
    [null, null],
    [undefined, null],
    ['1900-01-01', null],
    ['1900-01-01 00:00', null],
  ])('reads %j as %j', (value, iso) => {
    expect(parseDate(value)).toEqual({ ok: true, iso });
  });

  it.each([
    ['2021-02-30'],
    ['2021-13-01'],
    ['15/04/2021'],
    ['yesterday'],
    ['2021-04-15T25:00:00Z'],
    [-5],
    [Number.NaN],
    [true],
    [{ date: '2021-04-15' }],
  ])('refuses %j', (value) => {
    expect(parseDate(value)).toEqual({
      ok: false,
      problem: expect.stringMatching(/^(unreadable|not_a_day|needs_format)$/),
    });
  });

  it('reads day/month dates only in the named format', () => {
    expect(parseDate('05/04/2021', 'DD/MM/YYYY')).toEqual({ ok: true, iso: '2021-04-05T00:00:00.000Z' });
    expect(parseDate('05/04/2021', 'MM/DD/YYYY')).toEqual({ ok: true, iso: '2021-05-04T00:00:00.000Z' });
    expect(parseDate('15042021', 'DDMMYYYY')).toEqual({ ok: true, iso: '2021-04-15T00:00:00.000Z' });
    expect(parseDate('31/02/2021', 'DD/MM/YYYY')).toEqual({ ok: false, problem: 'not_a_day' });
    expect(parseDate('05/04/2021')).toEqual({ ok: false, problem: 'needs_format' });
    expect(parseDate('2021-04-15', 'DD/MM/YYYY')).toEqual({ ok: true, iso: '2021-04-15T00:00:00.000Z' });
  });
});

describe.each(dialects)('ingest logs on %s', (dialect) => {
  let t: TestApp;
  const lines: string[] = [];
  afterAll(async () => t.close());

  it('never logs an email, even at trace level and on failures', async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    t = await createTestApp(dialect, { logger: { level: 'trace', stream } });
    const issuer = await t.issuer();
    await createDefinition(t, issuer.key, { name: 'Logged', slug: 'logged' });
    await postJson(t, issuer.key, '/api/v1/ingest/csv', { csv: 'email,course\nlog.csv@logs.example,logged\n' });
    await postJson(t, issuer.key, '/api/v1/ingest/csv', { csv: 'email,course\nlog.bad@logs.example,"open\n' });
    await postJson(t, issuer.key, URL, { recipientEmail: 'log.single@logs.example', definitionRef: 'logged' });
    await postJson(t, issuer.key, URL, { recipientEmail: 'log.fail@logs.example', definitionRef: 'missing' });
    await postJson(t, issuer.key, '/api/v1/connectors/generic/completions', {
      records: [{ email: 'log.connector@logs.example', courseCode: 'logged' }, { email: 'log.err@logs.example' }],
    });
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.join('\n').toLowerCase()).not.toContain('@logs.example');
  });
});
