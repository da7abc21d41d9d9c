import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReportRepository } from '../src/modules/reports/reports.repository.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

/*
 * Credentials issued on 2026-11-01 and 2026-11-02, verified on several days, then read with "now"
 * days later, so that issuance and verification are counted from the day summaries (migration
 * 0009), and compared with what the raw rows say.
 */
describe.each(dialects)('report summaries of closed days on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const clock = manualClock('2026-11-01T09:00:00.000Z');
  const ids: string[] = [];

  async function get(url: string) {
    const res = await t.app.inject({ method: 'GET', url, headers: auth(a.key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  async function issue(n: number, definitionId: string) {
    const outcome = await t.app.services.issuance.issue(a.id, 'test', {
      definitionId,
      recipientEmail: `s${n}@example.test`,
      completionKey: `summary-${n}`,
      source: 'api',
    });
    ids.push(outcome.row.id);
  }

  async function verify(index: number, at: string) {
    await t.database.db
      .insertInto('verification_events')
      .values({ issuer_id: a.id, credential_id: ids[index] as string, channel: 'api', country: 'AU', occurred_at: at })
      .execute();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `summaries-${dialect}` });
    const post = async (payload: object) =>
      (await t.app.inject({ method: 'POST', url: '/api/v1/definitions', headers: auth(a.key), payload })).json();
    const alpha = (await post({ name: 'Alpha', description: 'A' })).id;
    const beta = (await post({ name: 'Beta', description: 'B', expiresAfterDays: 5 })).id;
    for (let n = 0; n < 3; n++) await issue(n, alpha);
    clock.set('2026-11-02T09:00:00.000Z');
    for (let n = 3; n < 5; n++) await issue(n, beta);
    await verify(0, '2026-11-03T10:00:00.000Z');
    await verify(0, '2026-11-05T10:00:00.000Z');
    await verify(1, '2026-11-04T10:00:00.000Z');
    await verify(3, '2026-11-09T23:00:00.000Z');
    await verify(4, '2026-11-10T08:00:00.000Z');
    clock.set('2026-11-10T09:00:00.000Z');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('counts credentials of rolled-up days, and a later revocation at once', async () => {
    const first = await get('/api/v1/analytics');
    expect(first.totals).toMatchObject({ issued: 5, valid: 3, expired: 2, revoked: 0 });
    clock.set('2026-11-10T10:00:00.000Z');
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${ids[0]}/revoke`,
      headers: auth(a.key),
      payload: {},
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    clock.set('2026-11-10T12:00:00.000Z');
    const later = await get('/api/v1/analytics');
    // The Beta credentials expired on 2026-11-07; the revoked Alpha one counts as revoked.
    expect(later.totals).toMatchObject({ issued: 5, valid: 2, expired: 2, revoked: 1 });
    expect(later.byPathway).toEqual([]);
    const report = await get('/api/v1/reports/issuance');
    expect(report.totals).toMatchObject({ issued: 5, valid: 2, expired: 2, revoked: 1 });
  });

  it('counts distinct verified credentials from the summary exactly as from the events', async () => {
    const repo = createReportRepository(t.database.db, t.database.dialect);
    const windows: Record<string, string>[] = [
      {},
      { from: '2026-11-04T09:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
      { from: '2026-11-03T09:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
      { from: '2026-11-05T00:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
      { from: '2026-11-03T00:00:00.000Z', to: '2026-11-05T00:00:00.000Z' },
      { from: '2026-11-09T22:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
    ];
    const expected = [4, 4, 4, 3, 2, 2];
    for (const [i, window] of windows.entries()) {
      const query = new URLSearchParams(window).toString();
      const body = await get(`/api/v1/analytics${query ? `?${query}` : ''}`);
      const raw = await repo.distinctCredentials(a.id, 'verification_events', body.window);
      expect(body.funnel.verified, query).toBe(raw);
      expect(raw, query).toBe(expected[i]);
    }
  });
});
