import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

/*
 * "Now" is 2026-11-21T10:00Z. One credential was verified on a closed day (2026-11-10, rolled up),
 * two others several times today (raw events only), on different channels and countries so no
 * coalescing of repeated verifications can hide a missing DISTINCT.
 */
describe.each(dialects)('analytics funnel counts credentials, not verifications, on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const ids: string[] = [];

  async function analytics(from: string, to: string) {
    const query = new URLSearchParams({ from, to });
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/analytics?${query}`, headers: auth(a.key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer();
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Funnel', description: 'F' },
    });
    for (let n = 0; n < 3; n++) {
      const outcome = await t.app.services.issuance.issue(a.id, 'test', {
        definitionId: definition.json().id,
        recipientEmail: `funnel-${n}@example.test`,
        completionKey: `funnel-${n}`,
        issuedOn: '2026-11-05T09:00:00.000Z',
        source: 'api',
      });
      ids.push(outcome.row.id);
    }
    const events: [number, string, string, string][] = [
      [0, 'api', 'AU', '2026-11-10T08:00:00.000Z'],
      [1, 'api', 'AU', '2026-11-21T08:00:00.000Z'],
      [1, 'page', 'NZ', '2026-11-21T08:30:00.000Z'],
      [1, 'bulk', 'US', '2026-11-21T09:00:00.000Z'],
      [2, 'page', 'AU', '2026-11-21T09:10:00.000Z'],
      [2, 'api', 'GB', '2026-11-21T09:20:00.000Z'],
    ];
    await t.database.db
      .insertInto('verification_events')
      .values(
        events.map(([index, channel, country, at]) => ({
          issuer_id: a.id,
          credential_id: ids[index] as string,
          channel,
          country,
          occurred_at: at,
        })),
      )
      .execute();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('counts each credential once in a window of raw events only', async () => {
    const today = await analytics('2026-11-21T00:00:00.000Z', '2026-11-21T10:00:00.000Z');
    expect(today.totals.verifies).toBe(5);
    expect(today.funnel.verified).toBe(2);
  });

  it('counts each credential once when rolled-up days meet one raw interval', async () => {
    const month = await analytics('2026-11-01T00:00:00.000Z', '2026-11-21T10:00:00.000Z');
    expect(month.totals.verifies).toBe(6);
    expect(month.funnel).toMatchObject({ issued: 3, verified: 3 });
  });
});

describe.each(dialects)('issuance CSV with line breaks in names on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const NAMES = ['\n=1+1', 'Intro\r\n+SUM(A1)', 'Lone\r@cmd', 'Plain'];

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer();
    // The API now refuses control characters in names (issue 37 item 8); names stored before that
    // rule may still hold them, so they are written straight into the table after a plain create.
    for (const [i, name] of NAMES.entries()) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: auth(a.key),
        payload: { name: `Definition ${i}`, description: 'D' },
      });
      expect(res.statusCode, res.body).toBe(201);
      const { id } = res.json() as { id: string };
      await t.database.db.updateTable('definitions').set({ name }).where('id', '=', id).execute();
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  it('keeps one record per definition and guards every line that starts like a formula', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/reports/issuance.csv', headers: auth(a.key) });
    expect(res.statusCode, res.body).toBe(200);
    // Read as a lenient spreadsheet does: any line break outside quotes ends a record.
    const rows = parse(res.body, { columns: true, record_delimiter: ['\r\n', '\n', '\r'] }) as Record<string, string>[];
    expect(rows.map((row) => row.name).sort()).toEqual(
      ["'\n=1+1", "'Intro\r\n+SUM(A1)", "'Lone\r@cmd", 'Plain'].sort(),
    );
  });
});
