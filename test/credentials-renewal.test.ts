import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const DAY = 86_400_000;

describe.each(dialects)('validity in months, expiring soon and renewal on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let months: string;
  const clock = manualClock('2026-01-31T09:00:00.000Z');

  const inject = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, key = a.key) =>
    t.app.inject({ method, url, headers: auth(key), ...(payload ? { payload } : {}) });

  async function issue(definitionId: string, completionKey: string, recipientName = 'Grace Hopper') {
    const res = await inject('POST', '/api/v1/credentials', {
      definitionId,
      recipientEmail: `${completionKey}@example.test`,
      completionKey,
      recipientName,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId as string;
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `renew-a-${dialect}` });
    b = await t.issuer({ slug: `renew-b-${dialect}` });
    const res = await inject('POST', '/api/v1/definitions', {
      name: 'First Aid',
      description: 'Valid two years',
      validForMonths: 24,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ validForMonths: 24, expiresAfterDays: null });
    months = res.json().id;
  });
  afterAll(async () => t.close());

  it('counts calendar months from the day of issue, on single issue and CSV import alike', async () => {
    clock.set('2026-01-31T09:00:00.000Z');
    const single = await issue(months, 'months-single');
    expect((await inject('GET', `/api/v1/credentials/${single}`)).json().expiresOn).toBe('2028-01-31T09:00:00.000Z');
    const oneMonth = await inject('POST', '/api/v1/definitions', {
      name: 'One Month',
      description: 'Short',
      validForMonths: 1,
    });
    const csv = await inject('POST', '/api/v1/ingest/csv', {
      csv: `email,name,completion_key,definition_id\ncsv-month@example.test,Alan Turing,months-csv,${oneMonth.json().id}\n`,
    });
    expect(csv.statusCode, csv.body).toBe(200);
    const row = csv.json().rows[0];
    expect(row.outcome).toBe('issued');
    // 31 January plus one month is the last day of February.
    expect((await inject('GET', `/api/v1/credentials/${row.credentialId}`)).json().expiresOn).toBe(
      '2026-02-28T09:00:00.000Z',
    );
  });

  it('takes the expiry a single issue gives over the definition’s validity, and refuses one before the issue', async () => {
    clock.set('2026-01-31T09:00:00.000Z');
    const given = await inject('POST', '/api/v1/credentials', {
      definitionId: months,
      recipientEmail: 'given@example.test',
      completionKey: 'given-expiry',
      expiresOn: '2026-06-30T00:00:00Z',
    });
    expect(given.statusCode, given.body).toBe(201);
    const detail = await inject('GET', `/api/v1/credentials/${given.json().credentialId}`);
    expect(detail.json().expiresOn).toBe('2026-06-30T00:00:00.000Z');
    const before = await inject('POST', '/api/v1/credentials', {
      definitionId: months,
      recipientEmail: 'before@example.test',
      completionKey: 'expiry-before-issue',
      expiresOn: '2026-01-31T09:00:00Z',
    });
    expectErrorBody(before, 400, 'validation_failed');
    expectErrorBody(
      await inject('POST', '/api/v1/credentials', {
        definitionId: months,
        recipientEmail: 'bad@example.test',
        completionKey: 'expiry-not-a-date',
        expiresOn: 'next year',
      }),
      400,
      'validation_failed',
    );
  });

  it('keeps one validity: months clear days, days clear months, both at once are refused', async () => {
    const res = await inject('POST', '/api/v1/definitions', { name: 'Days', description: 'd', expiresAfterDays: 10 });
    const id = res.json().id;
    const toMonths = await inject('PATCH', `/api/v1/definitions/${id}`, { validForMonths: 6 });
    expect(toMonths.json()).toMatchObject({ validForMonths: 6, expiresAfterDays: null });
    const toDays = await inject('PATCH', `/api/v1/definitions/${id}`, { expiresAfterDays: 90 });
    expect(toDays.json()).toMatchObject({ validForMonths: null, expiresAfterDays: 90 });
    expectErrorBody(
      await inject('PATCH', `/api/v1/definitions/${id}`, { expiresAfterDays: 9, validForMonths: 9 }),
      400,
      'validation_failed',
    );
    expectErrorBody(
      await inject('POST', '/api/v1/definitions', {
        name: 'Both',
        description: 'b',
        expiresAfterDays: 9,
        validForMonths: 1,
      }),
      400,
      'validation_failed',
    );
    clock.set('2025-01-01T09:00:00.000Z');
    const days = await issue(id, 'days-after-switch');
    const detail = (await inject('GET', `/api/v1/credentials/${days}`)).json();
    expect(Date.parse(detail.expiresOn) - Date.parse(detail.issuedOn)).toBe(90 * DAY);
  });

  it('lists and exports what expires within 30, 60 or 90 days, soonest first, and renews it', async () => {
    clock.set('2026-03-01T09:00:00.000Z');
    const defRes = await inject('POST', '/api/v1/definitions', {
      name: '=Forklift',
      description: 'Short',
      expiresAfterDays: 45,
    });
    const short = defRes.json().id;
    const soon = await issue(short, 'soon', '=HYPERLINK("http://x")');
    clock.set('2026-03-21T09:00:00.000Z');
    await issue(short, 'later', 'Ada Lovelace');
    const revoked = await issue(short, 'revoked-one', 'Revoked Person');
    await inject('POST', `/api/v1/credentials/${revoked}/revoke`, { reason: 'misconduct' });
    clock.set('2026-04-01T09:00:00.000Z');
    // soon: 15 April (14 days on); later: 5 May (34 days on); the revoked one is left out.
    const in30 = (await inject('GET', '/api/v1/credentials/expiring?withinDays=30')).json();
    expect(in30.items.map((c: { id: string }) => c.id)).toEqual([soon]);
    const in60 = (await inject('GET', '/api/v1/credentials/expiring?withinDays=60&limit=1')).json();
    expect(in60).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(in60.items[0]).toMatchObject({ id: soon, recipientName: '=HYPERLINK("http://x")', status: 'valid' });
    const other = (await inject('GET', '/api/v1/credentials/expiring?withinDays=90', undefined, b.key)).json();
    expect(other.total).toBe(0);
    expectErrorBody(await inject('GET', '/api/v1/credentials/expiring?withinDays=0'), 400, 'validation_failed');
    expectErrorBody(await inject('GET', '/api/v1/credentials/expiring?within=30'), 400, 'validation_failed');
    await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/credentials/expiring' });

    const exported = await inject('GET', '/api/v1/credentials/expiring.csv?withinDays=60');
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toContain('text/csv');
    expect(exported.headers['content-disposition']).toContain('expiring-credentials-2026-04-01.csv');
    expect(exported.body).not.toContain('@example.test');
    const lines = parse(exported.body, { bom: true, columns: true }) as Record<string, string>[];
    expect(lines.map((l) => l.completionKey)).toEqual(['soon', 'later']);
    expect(lines[0]).toMatchObject({ name: `'=HYPERLINK("http://x")`, definition: "'=Forklift" });
    expect(lines[1]?.expires).toBe('2026-05-05 09:00:00');

    // The export goes back as it is: both renewed, 45 days from today; an unknown and a revoked key are errors.
    const withErrors = `${exported.body}"Nobody",x,unknown-key,,,\n"Revoked",x,revoked-one,,,\n`;
    const report = await inject('POST', '/api/v1/credentials/renewals', { csv: withErrors });
    expect(report.statusCode, report.body).toBe(200);
    const body = report.json();
    expect(body).toMatchObject({ renewed: 2, alreadyRenewed: 0, errors: 2 });
    expect(body.rows[0]).toMatchObject({
      row: 2,
      completionKey: 'soon',
      outcome: 'renewed',
      replacedId: soon,
      expiresOn: '2026-05-16T09:00:00.000Z',
    });
    expect(body.rows[2]).toMatchObject({ row: 4, outcome: 'error', message: 'No credential has this completion key.' });
    expect(body.rows[3]).toMatchObject({ row: 5, outcome: 'error' });
    const renewed = body.rows[0].credentialId as string;
    expect((await inject('GET', `/api/v1/credentials/${renewed}`)).json()).toMatchObject({
      status: 'valid',
      recipientName: '=HYPERLINK("http://x")',
      completionKey: 'soon#reissue-1',
    });
    const old = (await inject('GET', `/api/v1/credentials/${soon}`)).json();
    expect(old).toMatchObject({ status: 'revoked', revokedReason: 'reissued', replacedBy: renewed, replaces: null });
    expect((await inject('GET', `/api/v1/credentials/${renewed}`)).json()).toMatchObject({
      replaces: soon,
      replacedBy: null,
    });
    const page = await t.app.inject({ method: 'GET', url: new URL(old.verifyUrl).pathname });
    expect(page.body).toContain('Replaced by a newer credential');

    // Again, as a list: nothing new, each names its replacement; a one-click reissue replays too.
    const again = (await inject('POST', '/api/v1/credentials/renewals', { completionKeys: ['soon', 'later'] })).json();
    expect(again).toMatchObject({ renewed: 0, alreadyRenewed: 2, errors: 0 });
    expect(again.rows[0].credentialId).toBe(renewed);
    const click = await inject('POST', `/api/v1/credentials/${soon}/reissue`, {});
    expect(click.statusCode).toBe(200);
    expect(click.json().credentialId).toBe(renewed);
    expect((await inject('GET', '/api/v1/credentials/expiring?withinDays=30')).json().total).toBe(0);

    const audit = (await inject('GET', `/api/v1/audit?targetId=${renewed}`)).json();
    expect(JSON.stringify(audit)).toContain('credential.reissued');
    // Another issuer's keys renew nothing.
    const foreign = (await inject('POST', '/api/v1/credentials/renewals', { completionKeys: ['later'] }, b.key)).json();
    expect(foreign).toMatchObject({ renewed: 0, errors: 1 });
  });

  it('renews by the original key year after year: the newest replacement once it falls due, and once only', async () => {
    clock.set('2025-01-10T09:00:00.000Z');
    const yearly = (
      await inject('POST', '/api/v1/definitions', { name: 'Yearly', description: 'One year', validForMonths: 12 })
    ).json().id;
    const original = await issue(yearly, 'lms-roster-1', 'Edsger Dijkstra');
    const roster = { csv: 'completionKey\nlms-roster-1\n' };

    // Year one: the original is renewed; the roster sent again (a retry) renews nothing more.
    clock.set('2025-12-20T09:00:00.000Z');
    const first = (await inject('POST', '/api/v1/credentials/renewals', roster)).json();
    expect(first).toMatchObject({ renewed: 1, alreadyRenewed: 0, errors: 0 });
    expect(first.rows[0]).toMatchObject({ replacedId: original, expiresOn: '2026-12-20T09:00:00.000Z' });
    const yearOne = first.rows[0].credentialId as string;
    clock.set('2026-01-05T09:00:00.000Z');
    const retry = (await inject('POST', '/api/v1/credentials/renewals', roster)).json();
    expect(retry).toMatchObject({ renewed: 0, alreadyRenewed: 1, errors: 0 });
    expect(retry.rows[0]).toMatchObject({ credentialId: yearOne, replacedId: original });

    // Year two: the same original key renews the first replacement, now expiring; twice in one CSV, once.
    clock.set('2026-12-01T09:00:00.000Z');
    const second = (
      await inject('POST', '/api/v1/credentials/renewals', { csv: 'completionKey\nlms-roster-1\nlms-roster-1\n' })
    ).json();
    expect(second).toMatchObject({ renewed: 1, alreadyRenewed: 1, errors: 0 });
    expect(second.rows[0]).toMatchObject({ replacedId: yearOne, expiresOn: '2027-12-01T09:00:00.000Z' });
    const yearTwo = second.rows[0].credentialId as string;
    expect(second.rows[1]).toMatchObject({ outcome: 'already_renewed', credentialId: yearTwo, replacedId: yearOne });
    expect((await inject('GET', `/api/v1/credentials/${yearOne}`)).json()).toMatchObject({
      status: 'revoked',
      revokedReason: 'reissued',
      replaces: original,
      replacedBy: yearTwo,
    });
    expect((await inject('GET', `/api/v1/credentials/${yearTwo}`)).json()).toMatchObject({
      status: 'valid',
      replaces: yearOne,
      recipientName: 'Edsger Dijkstra',
    });
    const later = (await inject('POST', '/api/v1/credentials/renewals', { completionKeys: ['lms-roster-1'] })).json();
    expect(later).toMatchObject({ renewed: 0, alreadyRenewed: 1 });
    expect(later.rows[0].credentialId).toBe(yearTwo);

    // A replacement revoked for another reason is not brought back by the original key.
    await inject('POST', `/api/v1/credentials/${yearTwo}/revoke`, { reason: 'misconduct' });
    clock.set('2027-11-20T09:00:00.000Z');
    const revoked = (await inject('POST', '/api/v1/credentials/renewals', roster)).json();
    expect(revoked).toMatchObject({ renewed: 0, alreadyRenewed: 0, errors: 1 });
  });

  it('takes back the export’s formula guard from a key starting with = + - or @', async () => {
    // Years after every other credential here has expired, so the export holds these four only.
    clock.set('2031-06-01T09:00:00.000Z');
    const short = (
      await inject('POST', '/api/v1/definitions', { name: 'Guarded', description: 'g', expiresAfterDays: 20 })
    ).json().id;
    const keys = ['=guard-1', '+guard-2', '-guard-3', '@guard-4'];
    const ids = [];
    for (const [i, completionKey] of keys.entries()) {
      const res = await inject('POST', '/api/v1/credentials', {
        definitionId: short,
        recipientEmail: `guard-${i}@example.test`,
        completionKey,
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().credentialId);
    }
    const exported = await inject('GET', '/api/v1/credentials/expiring.csv?withinDays=30');
    const lines = parse(exported.body, { bom: true, columns: true }) as Record<string, string>[];
    expect(lines.map((l) => l.completionKey)).toEqual(keys.map((key) => `'${key}`));
    const report = (await inject('POST', '/api/v1/credentials/renewals', { csv: exported.body })).json();
    expect(report).toMatchObject({ renewed: 4, errors: 0 });
    expect(report.rows.map((r: { completionKey: string }) => r.completionKey)).toEqual(keys);
    expect(report.rows.map((r: { replacedId: string }) => r.replacedId)).toEqual(ids);
    // Only the guard is taken off: a quote before anything else is part of the key.
    const quoted = (await inject('POST', '/api/v1/credentials/renewals', { csv: "key\n'guard-1\n" })).json();
    expect(quoted.rows[0]).toMatchObject({ completionKey: "'guard-1", outcome: 'error' });
  });

  it('refuses a renewal body that is not one list or one CSV with a key column', async () => {
    expectErrorBody(await inject('POST', '/api/v1/credentials/renewals', {}), 400, 'validation_failed');
    expectErrorBody(
      await inject('POST', '/api/v1/credentials/renewals', { csv: 'completionKey\nx\n', completionKeys: ['x'] }),
      400,
      'validation_failed',
    );
    expectErrorBody(await inject('POST', '/api/v1/credentials/renewals', { csv: 'name\nx\n' }), 422, 'invalid_csv');
    expectErrorBody(await inject('POST', '/api/v1/credentials/renewals', { csv: 'key\n' }), 422, 'invalid_csv');
    expectErrorBody(
      await inject('POST', '/api/v1/credentials/renewals', { completionKeys: [] }),
      400,
      'validation_failed',
    );
    await expectKeyRequired(t.app, {
      method: 'POST',
      url: '/api/v1/credentials/renewals',
      payload: { completionKeys: ['x'] },
    });
  });
});
