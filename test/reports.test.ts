import { parse } from 'csv-parse/sync';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReportRepository,
  VERIFICATIONS_BY_DEFINITION_CHANNEL,
} from '../src/modules/reports/reports.repository.js';
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

/*
 * A hand-computed data set, "now" pinned at 2026-11-21T10:00Z. The main window W is
 * 2026-11-01T00:00Z <= t < 2026-11-21T00:00Z, with events exactly on both edges.
 *
 * credential  definition  issuedOn                  state now
 *   c1        Alpha       2026-11-01T00:00:00.000Z  valid        (on W's start: in)
 *   c2        Alpha       2026-11-10T12:00:00.000Z  revoked
 *   c3        Alpha       2026-11-20T23:59:59.999Z  valid        (last ms of W: in)
 *   c4        Beta(10d)   2026-11-05T08:00:00.000Z  expired      (expired 11-15)
 *   c5        Beta(10d)   2026-11-15T00:00:00.000Z  valid        (expires 11-25)
 *   c6        Beta(10d)   2026-10-15T00:00:00.000Z  revoked      (also expired: revoked wins)
 *   c7        Alpha       2026-11-21T09:00:00.000Z  valid        (today: outside W)
 * The third definition, named like a spreadsheet formula, has no credentials.
 */
const NOW = '2026-11-21T10:00:00.000Z';
const W = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z' };
const FORMULA = '=HYPERLINK("https://evil.example","click")';

type Credential = 'c1' | 'c2' | 'c3' | 'c4' | 'c5' | 'c6' | 'c7';

const VERIFICATIONS: [Credential, string, string, string][] = [
  ['c1', 'api', 'AU', '2026-11-01T00:00:00.000Z'], // on W's start: in
  ['c1', 'bulk', 'AU', '2026-11-05T10:00:00.000Z'],
  ['c4', 'page', 'NZ', '2026-11-10T00:00:00.000Z'],
  ['c5', 'api', 'ZZ', '2026-11-20T23:59:59.999Z'], // last ms of W: in
  ['c5', 'api', 'AU', '2026-11-21T00:00:00.000Z'], // on W's end: out
  ['c6', 'page', 'US', '2026-10-31T23:59:59.999Z'], // just before W: out
  ['c7', 'api', 'AU', '2026-11-21T09:30:00.000Z'], // today
];
const ENGAGEMENTS: [Credential, string, string][] = [
  ['c1', 'linkedin', '2026-11-02T12:00:00.000Z'],
  ['c1', 'wallet_apple', '2026-11-02T13:00:00.000Z'],
  ['c5', 'share_link', '2026-11-20T00:00:00.000Z'],
  ['c3', 'wallet_google', '2026-11-21T00:00:00.000Z'], // on W's end: out
  ['c4', 'linkedin', '2026-10-20T08:00:00.000Z'], // before W: out
];

function query(window: { from?: string; to?: string }): string {
  const params = new URLSearchParams(window as Record<string, string>);
  return params.size === 0 ? '' : `?${params}`;
}

function zeroSeries(from: string, days: number, counts: Record<string, number>) {
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(Date.parse(`${from}T00:00:00.000Z`) + i * 86_400_000).toISOString().slice(0, 10);
    return { date, count: counts[date] ?? 0 };
  });
}

function csvRows(res: LightMyRequestResponse): Record<string, string>[] {
  return parse(res.body, { bom: true, columns: true, skip_empty_lines: true }) as Record<string, string>[];
}

describe.each(dialects)('reports and analytics on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  const clock = manualClock(NOW);
  const ids = {} as Record<Credential, string>;
  const definitions = {} as Record<'alpha' | 'beta' | 'formula', string>;
  const pathways = {} as Record<'both' | 'empty', string>;

  async function post(key: string, url: string, payload: object) {
    const res = await t.app.inject({ method: 'POST', url, headers: auth(key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }

  async function get(url: string, key = a.key) {
    return t.app.inject({ method: 'GET', url, headers: auth(key) });
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `reports-a-${dialect}` });
    b = await t.issuer({ slug: `reports-b-${dialect}` });
    definitions.alpha = (await post(a.key, '/api/v1/definitions', { name: 'Alpha', description: 'A' })).id;
    definitions.beta = (
      await post(a.key, '/api/v1/definitions', { name: 'Beta', description: 'B', expiresAfterDays: 10 })
    ).id;
    definitions.formula = (await post(a.key, '/api/v1/definitions', { name: FORMULA, description: 'F' })).id;

    const plan: [Credential, 'alpha' | 'beta', string, string][] = [
      ['c1', 'alpha', '2026-11-01T00:00:00.000Z', 'r1@example.test'],
      ['c2', 'alpha', '2026-11-10T12:00:00.000Z', 'r2@example.test'],
      ['c3', 'alpha', '2026-11-20T23:59:59.999Z', 'R1@Example.test'],
      ['c4', 'beta', '2026-11-05T08:00:00.000Z', 'r3@example.test'],
      ['c5', 'beta', '2026-11-15T00:00:00.000Z', 'r4@example.test'],
      ['c6', 'beta', '2026-10-15T00:00:00.000Z', 'r5@example.test'],
      ['c7', 'alpha', '2026-11-21T09:00:00.000Z', 'r6@example.test'],
    ];
    for (const [name, definition, issuedOn, email] of plan) {
      const outcome = await t.app.services.issuance.issue(a.id, 'test', {
        definitionId: definitions[definition],
        recipientEmail: email,
        completionKey: `report-${name}`,
        issuedOn,
        source: 'api',
      });
      ids[name] = outcome.row.id;
    }
    for (const name of ['c2', 'c6'] as const) await post(a.key, `/api/v1/credentials/${ids[name]}/revoke`, {});

    pathways.both = (await post(a.key, '/api/v1/pathways', { name: 'Both', description: 'Alpha then Beta' })).id;
    await post(a.key, `/api/v1/pathways/${pathways.both}/stages`, { definitionId: definitions.alpha, stepOrder: 1 });
    await post(a.key, `/api/v1/pathways/${pathways.both}/stages`, { definitionId: definitions.beta, stepOrder: 2 });
    pathways.empty = (await post(a.key, '/api/v1/pathways', { name: 'Empty', description: 'No stages' })).id;

    await t.database.db
      .insertInto('verification_events')
      .values(
        VERIFICATIONS.map(([c, channel, country, at]) => ({
          issuer_id: a.id,
          credential_id: ids[c],
          channel,
          country,
          occurred_at: at,
        })),
      )
      .execute();
    await t.database.db
      .insertInto('engagement_events')
      .values(
        ENGAGEMENTS.map(([c, action, at]) => ({
          issuer_id: a.id,
          credential_id: ids[c],
          action,
          country: 'AU',
          occurred_at: at,
        })),
      )
      .execute();
    await t.database.db
      .insertInto('import_batches')
      .values(
        [
          ['2026-11-03T00:00:00.000Z', 10, 6, 3, 1],
          ['2026-11-21T00:00:00.000Z', 5, 5, 0, 0], // on W's end: out
          ['2026-10-01T00:00:00.000Z', 7, 7, 0, 0], // before W: out
        ].map(([at, total, issued, skipped, errored], i) => ({
          id: `00000000-0000-4000-8000-00000000000${i}`,
          issuer_id: a.id,
          source: 'csv',
          filename: 'import.csv',
          total: total as number,
          issued: issued as number,
          skipped: skipped as number,
          errored: errored as number,
          created_at: at as string,
        })),
      )
      .execute();

    // Issuer B: one credential verified and shared inside W, which A must never see.
    const other = (await post(b.key, '/api/v1/definitions', { name: 'Other', description: 'B only' })).id;
    const bCredential = await t.app.services.issuance.issue(b.id, 'test', {
      definitionId: other,
      recipientEmail: 'r1@example.test',
      completionKey: 'b-1',
      issuedOn: '2026-11-02T00:00:00.000Z',
      source: 'api',
    });
    const row = {
      issuer_id: b.id,
      credential_id: bCredential.row.id,
      country: 'GB',
      occurred_at: '2026-11-03T00:00:00.000Z',
    };
    await t.database.db
      .insertInto('verification_events')
      .values({ ...row, channel: 'api' })
      .execute();
    await t.database.db
      .insertInto('engagement_events')
      .values({ ...row, action: 'linkedin' })
      .execute();
  });
  afterAll(async () => t.close());

  const alpha = { name: 'Alpha', slug: 'alpha', issued: 4, valid: 3, expired: 0, revoked: 1 };
  const beta = { name: 'Beta', slug: 'beta', issued: 3, valid: 1, expired: 1, revoked: 1 };
  const formula = { name: FORMULA, issued: 0, valid: 0, expired: 0, revoked: 0 };
  const allTime = { issued: 7, valid: 4, expired: 1, revoked: 2 };

  describe('GET /api/v1/reports/issuance', () => {
    it('counts all-time status, and issuance, verifications and imports of the window [from, to)', async () => {
      const res = await get(`/api/v1/reports/issuance${query(W)}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        issuerId: a.id,
        window: W,
        totals: {
          ...allTime,
          issuedInWindow: 5,
          verifies: 4,
          imports: { batches: 1, issued: 6, skipped: 3, errored: 1 },
        },
        verifiesByChannel: { api: 2, bulk: 1, page: 1 },
        byDefinition: [
          { definitionId: definitions.formula, ...formula, slug: expect.any(String), verifies: 0 },
          { definitionId: definitions.alpha, ...alpha, verifies: 2 },
          { definitionId: definitions.beta, ...beta, verifies: 2 },
        ],
        generatedAt: NOW,
      });
    });

    it('takes bare dates: from is midnight UTC, to includes its whole day', async () => {
      const dated = await get('/api/v1/reports/issuance?from=2026-11-01&to=2026-11-20');
      const exact = await get(`/api/v1/reports/issuance${query(W)}`);
      expect(dated.json().window).toEqual(W);
      expect(dated.json().totals).toEqual(exact.json().totals);
    });

    it('without a window covers all time and answers window nulls', async () => {
      const body = (await get('/api/v1/reports/issuance')).json();
      expect(body.window).toEqual({ from: null, to: null });
      expect(body.totals).toEqual({
        ...allTime,
        issuedInWindow: 7,
        verifies: 7,
        imports: { batches: 3, issued: 18, skipped: 3, errored: 1 },
      });
      expect(body.verifiesByChannel).toEqual({ api: 4, bulk: 1, page: 2 });
      const halfOpen = (await get('/api/v1/reports/issuance?from=2026-11-21T00:00:00.000Z')).json();
      expect(halfOpen.window).toEqual({ from: '2026-11-21T00:00:00.000Z', to: null });
      expect(halfOpen.totals).toMatchObject({ issuedInWindow: 1, verifies: 2 });
    });

    it('answers zeros for a window without activity, still listing every definition', async () => {
      const body = (await get('/api/v1/reports/issuance?from=2026-06-01&to=2026-06-30')).json();
      expect(body.totals).toEqual({
        ...allTime,
        issuedInWindow: 0,
        verifies: 0,
        imports: { batches: 0, issued: 0, skipped: 0, errored: 0 },
      });
      expect(body.verifiesByChannel).toEqual({ api: 0, bulk: 0, page: 0 });
      expect(body.byDefinition.map((d: { verifies: number }) => d.verifies)).toEqual([0, 0, 0]);
    });

    it('exports the per-definition rows as a guarded CSV attachment equal to the JSON', async () => {
      const res = await get(`/api/v1/reports/issuance.csv${query(W)}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="issuance-report-2026-11-21.csv"');
      expect(res.body.split('\r\n')[0]).toBe('\uFEFFdefinitionId,name,slug,issued,valid,expired,revoked,verifies');
      const json = (await get(`/api/v1/reports/issuance${query(W)}`)).json();
      const rows = csvRows(res);
      expect(rows).toEqual(
        json.byDefinition.map((d: Record<string, string | number>) =>
          Object.fromEntries(
            Object.entries(d).map(([k, v]) => [k, k === 'name' && v === FORMULA ? `'${FORMULA}` : String(v)]),
          ),
        ),
      );
      expect(rows[0]?.name).toBe(`'${FORMULA}`);
    });
  });

  describe('GET /api/v1/analytics', () => {
    it('computes totals, funnel, daily series, breakdowns and geo for the window', async () => {
      const res = await get(`/api/v1/analytics${query(W)}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        issuerId: a.id,
        window: W,
        totals: { ...allTime, issuedInWindow: 5, verifies: 4, shares: 3 },
        verifiesByChannel: { api: 2, bulk: 1, page: 1 },
        engagementByAction: { total: 3, linkedin: 1, wallet_apple: 1, wallet_google: 0, share_link: 1 },
        funnel: { issued: 5, verified: 3, shared: 2 },
        series: {
          issuance: zeroSeries('2026-11-01', 20, {
            '2026-11-01': 1,
            '2026-11-05': 1,
            '2026-11-10': 1,
            '2026-11-15': 1,
            '2026-11-20': 1,
          }),
          verifies: zeroSeries('2026-11-01', 20, {
            '2026-11-01': 1,
            '2026-11-05': 1,
            '2026-11-10': 1,
            '2026-11-20': 1,
          }),
          engagement: zeroSeries('2026-11-01', 20, { '2026-11-02': 2, '2026-11-20': 1 }),
        },
        byDefinition: [
          { definitionId: definitions.formula, ...formula, slug: expect.any(String), verifies: 0, shares: 0 },
          { definitionId: definitions.alpha, ...alpha, verifies: 2, shares: 2 },
          { definitionId: definitions.beta, ...beta, verifies: 2, shares: 1 },
        ],
        byPathway: [
          { pathwayId: pathways.both, name: 'Both', slug: 'both', stages: 2, issued: 7, recipients: 6 },
          { pathwayId: pathways.empty, name: 'Empty', slug: 'empty', stages: 0, issued: 0, recipients: 0 },
        ],
        geo: [
          { country: 'AU', count: 2 },
          { country: 'NZ', count: 1 },
          { country: 'ZZ', count: 1 },
        ],
        generatedAt: NOW,
      });
    });

    it('defaults to the 30 days ending now, counting partial edge days and today', async () => {
      const body = (await get('/api/v1/analytics')).json();
      expect(body.window).toEqual({ from: '2026-10-22T10:00:00.000Z', to: NOW });
      expect(body.series.issuance).toHaveLength(31);
      expect(body.series.issuance[0].date).toBe('2026-10-22');
      expect(body.series.issuance.at(-1)).toEqual({ date: '2026-11-21', count: 1 });
      expect(body.totals).toMatchObject({ issuedInWindow: 6, verifies: 7, shares: 4 });
      expect(body.verifiesByChannel).toEqual({ api: 4, bulk: 1, page: 2 });
      expect(body.funnel).toEqual({ issued: 6, verified: 5, shared: 3 });
      expect(body.geo).toEqual([
        { country: 'AU', count: 4 },
        { country: 'NZ', count: 1 },
        { country: 'US', count: 1 },
        { country: 'ZZ', count: 1 },
      ]);
      for (const name of ['issuance', 'verifies', 'engagement'] as const) {
        const total = body.series[name].reduce((s: number, p: { count: number }) => s + p.count, 0);
        expect(total).toBe({ issuance: 6, verifies: 7, engagement: 4 }[name]);
      }
    });

    it('mixes rolled-up days and raw partial days into the same counts as raw events alone', async () => {
      const window = { from: '2026-11-01T12:00:00.000Z', to: NOW };
      const body = (await get(`/api/v1/analytics${query(window)}`)).json();
      expect(body.totals.verifies).toBe(5);
      expect(body.verifiesByChannel).toEqual({ api: 3, bulk: 1, page: 1 });
      const repo = createReportRepository(t.database.db, t.database.dialect);
      const rawOnly = await repo.countEvents(
        a.id,
        { rolled: null, raw: [window] },
        VERIFICATIONS_BY_DEFINITION_CHANNEL,
      );
      const mixed = await t.app.services.reports.rollup.refresh(a.id, window, clock.now());
      expect(mixed.rolled).toEqual({ firstDay: '2026-11-02', lastDay: '2026-11-20' });
      const sort = (rows: { definition_id: string; channel: string }[]) =>
        [...rows].sort((x, y) => `${x.definition_id}${x.channel}`.localeCompare(`${y.definition_id}${y.channel}`));
      expect(sort(await repo.countEvents(a.id, mixed, VERIFICATIONS_BY_DEFINITION_CHANNEL))).toEqual(sort(rawOnly));
    });

    it('answers zeros and a zero point per day for a window without activity; none for an empty one', async () => {
      const quiet = (await get('/api/v1/analytics?from=2026-06-01&to=2026-06-03')).json();
      expect(quiet.series.verifies).toEqual(zeroSeries('2026-06-01', 3, {}));
      expect(quiet.totals).toEqual({ ...allTime, issuedInWindow: 0, verifies: 0, shares: 0 });
      expect(quiet.funnel).toEqual({ issued: 0, verified: 0, shared: 0 });
      expect(quiet.geo).toEqual([]);
      const instant = `from=${encodeURIComponent(NOW)}&to=${encodeURIComponent(NOW)}`;
      const empty = (await get(`/api/v1/analytics?${instant}`)).json();
      expect(empty.series).toEqual({ issuance: [], verifies: [], engagement: [] });
    });

    it('exports one CSV line per UTC day that equals the JSON series', async () => {
      const res = await get(`/api/v1/analytics.csv${query(W)}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="analytics-2026-11-21.csv"');
      const json = (await get(`/api/v1/analytics${query(W)}`)).json();
      const rows = csvRows(res);
      expect(Object.keys(rows[0] ?? {})).toEqual([
        'date',
        'issued',
        'verifies',
        'engagement',
        'linkedin',
        'wallet_apple',
        'wallet_google',
        'share_link',
      ]);
      expect(rows.map((r) => r.date)).toEqual(json.series.issuance.map((p: { date: string }) => p.date));
      rows.forEach((row, i) => {
        expect(Number(row.issued)).toBe(json.series.issuance[i].count);
        expect(Number(row.verifies)).toBe(json.series.verifies[i].count);
        expect(Number(row.engagement)).toBe(json.series.engagement[i].count);
        expect(
          Number(row.linkedin) + Number(row.wallet_apple) + Number(row.wallet_google) + Number(row.share_link),
        ).toBe(Number(row.engagement));
      });
      expect(rows.find((r) => r.date === '2026-11-02')).toMatchObject({ linkedin: '1', wallet_apple: '1' });
    });
  });

  describe('windows and security', () => {
    const endpoints = [
      '/api/v1/reports/issuance',
      '/api/v1/reports/issuance.csv',
      '/api/v1/analytics',
      '/api/v1/analytics.csv',
    ];

    it.each(endpoints)('%s refuses a bad window with 400 validation_failed and issues', async (path) => {
      const cases: [string, string][] = [
        ['from=2026-11-10&to=2026-11-01T00:00:00Z', '/from'],
        ['from=yesterday', '/from'],
        ['from=2026-13-01', '/from'],
        ['to=2026-11-21T25:00:00Z', '/to'],
        ['from=2025-01-01&to=2026-01-02', '/to'],
        // A leap second passes the date-time format, but no JavaScript Date holds it.
        ['from=2016-12-31T23:59:60Z', '/from'],
        ['to=2016-12-31T23:59:60Z', '/to'],
      ];
      for (const [qs, path_] of cases) {
        const res = await get(`${path}?${qs}`);
        const body = expectErrorBody(res, 400, 'validation_failed') as { issues: { path: string }[] };
        expect(
          body.issues.map((i) => i.path),
          qs,
        ).toContain(path_);
      }
      const leapYear = await get(`${path}?from=2024-01-01&to=2024-12-31`);
      expect(leapYear.statusCode, leapYear.body).toBe(200);
    });

    it('refuses an analytics window reaching back more than 366 days from now', async () => {
      expectErrorBody(await get('/api/v1/analytics?from=2025-11-01'), 400, 'validation_failed');
    });

    it.each(endpoints)('%s needs an API key', async (path) => {
      await expectKeyRequired(t.app, { method: 'GET', url: `${path}${query(W)}` });
    });

    it("shows another issuer only its own numbers, never A's", async () => {
      const report = (await get(`/api/v1/reports/issuance${query(W)}`, b.key)).json();
      expect(report.issuerId).toBe(b.id);
      expect(report.totals).toEqual({
        issued: 1,
        valid: 1,
        expired: 0,
        revoked: 0,
        issuedInWindow: 1,
        verifies: 1,
        imports: { batches: 0, issued: 0, skipped: 0, errored: 0 },
      });
      expect(report.byDefinition).toEqual([expect.objectContaining({ name: 'Other', issued: 1, verifies: 1 })]);
      const analytics = (await get(`/api/v1/analytics${query(W)}`, b.key)).json();
      expect(analytics.totals).toMatchObject({ issued: 1, verifies: 1, shares: 1 });
      expect(analytics.geo).toEqual([{ country: 'GB', count: 1 }]);
      expect(analytics.byPathway).toEqual([]);
      const csv = csvRows(await get(`/api/v1/reports/issuance.csv${query(W)}`, b.key));
      expect(csv.map((r) => r.name)).toEqual(['Other']);
    });

    it('documents the four endpoints in the OpenAPI description, CSV as text/csv', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(doc.paths['/api/v1/reports/issuance'].get.operationId).toBe('getIssuanceReport');
      expect(doc.paths['/api/v1/analytics'].get.responses['200']).toBeDefined();
      for (const path of ['/api/v1/reports/issuance.csv', '/api/v1/analytics.csv']) {
        const op = doc.paths[path].get;
        expect(Object.keys(op.responses['200'].content)).toEqual(['text/csv']);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
      }
    });
  });
});
