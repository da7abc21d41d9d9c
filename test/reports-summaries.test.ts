import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifiedCredentialDaysMigration } from '../src/db/migrations/0011_verified_credential_days.js';
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

  it('counts distinct verified credentials from the summaries exactly as from the events', async () => {
    const fromEvents = async (window: { from: string | null; to: string | null }) => {
      const { rows } = await sql<{ n: number | string }>`select count(distinct credential_id) as n
        from verification_events where issuer_id = ${a.id}
        and occurred_at >= ${window.from ?? ''} and occurred_at < ${window.to ?? '9999'}`.execute(t.database.db);
      return Number(rows[0]?.n);
    };
    // Reaching the newest rolled day (the last-verified-day summary), ending before it (the
    // verified-days summary), with partial edge days, and inside the days not rolled up yet.
    const windows: Record<string, string>[] = [
      {},
      { from: '2026-11-04T09:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
      { from: '2026-11-03T09:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
      { from: '2026-11-05T00:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
      { from: '2026-11-03T00:00:00.000Z', to: '2026-11-05T00:00:00.000Z' },
      { from: '2026-11-09T22:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
      { from: '2026-11-02T12:00:00.000Z', to: '2026-11-05T12:00:00.000Z' },
      { from: '2026-11-01T00:00:00.000Z', to: '2026-11-04T12:00:00.000Z' },
      { from: '2026-11-04T00:00:00.000Z', to: '2026-11-06T00:00:00.000Z' },
      { from: '2026-11-10T00:00:00.000Z', to: '2026-11-10T12:00:00.000Z' },
    ];
    const expected = [4, 4, 4, 3, 2, 2, 2, 2, 2, 1];
    for (const [i, window] of windows.entries()) {
      const query = new URLSearchParams(window).toString();
      const body = await get(`/api/v1/analytics${query ? `?${query}` : ''}`);
      const raw = await fromEvents(body.window);
      expect(body.funnel.verified, query).toBe(raw);
      expect(raw, query).toBe(expected[i]);
    }
  });

  it('fills the verified-days summary of the days rolled before migration 0011', async () => {
    const db = t.database.db;
    const summary = () =>
      db
        .withTables<{ report_verified_credential_days: { issuer_id: string; credential_id: string; day: string } }>()
        .selectFrom('report_verified_credential_days')
        .select(['credential_id', 'day'])
        .where('issuer_id', '=', a.id)
        .orderBy('day')
        .orderBy('credential_id')
        .execute();
    const rolled = await summary();
    expect(rolled.map((r) => r.day)).toEqual(['2026-11-03', '2026-11-04', '2026-11-05', '2026-11-09']);
    // Back to the schema of migration 0010, with the rolled days and events kept, then migrate again.
    await sql`drop table report_verified_credential_days`.execute(db);
    await sql`drop index verification_events_issuer_time_credential`.execute(db);
    await sql`create index verification_events_issuer_time on verification_events (issuer_id, occurred_at)`.execute(db);
    await sql`create index verification_events_issuer_credential_time
      on verification_events (issuer_id, credential_id, occurred_at)`.execute(db);
    await verifiedCredentialDaysMigration().up(db as unknown as Kysely<unknown>);
    expect(await summary()).toEqual(rolled);
  });
});
