import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

const CREDENTIALS = 2_000;
const VERIFICATIONS = 2_000;
const ENGAGEMENTS = 300;

describe.each(dialects)('bench-seed console command on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
  });
  afterAll(async () => t.close());
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  async function cli(argv: string[]) {
    for (const [name, value] of Object.entries({
      DATABASE_URL: t.testDb.url,
      PUBLIC_BASE_URL: 'https://badges.test',
      LOG_LEVEL: 'warn',
      BOOTSTRAP_ISSUER: 'false',
    })) {
      vi.stubEnv(name, value);
    }
    const lines: string[] = [];
    const errors: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      errors.push(String(chunk));
      return true;
    });
    const code = await runCli(argv, (line) => lines.push(line));
    return { code, lines, errors };
  }

  async function get(url: string) {
    const res = await t.app.inject({ method: 'GET', url, headers: auth(issuer.key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  it('seeds the requested counts, and analytics and the report total exactly them', async () => {
    const run = await cli([
      'bench-seed',
      '--issuer',
      issuer.slug,
      '--credentials',
      String(CREDENTIALS),
      '--verifications',
      String(VERIFICATIONS),
      '--engagements',
      String(ENGAGEMENTS),
      '--definitions',
      '6',
    ]);
    expect(run.code, run.errors.join('')).toBe(0);
    expect(run.lines.join('\n')).toMatch(
      new RegExp(
        `6 definitions, 2 pathways, ${CREDENTIALS} credentials, ${VERIFICATIONS} verifications, ${ENGAGEMENTS} engagements in [\\d.]+ s`,
      ),
    );

    const from = new Date(Date.now() - 365.5 * 86_400_000).toISOString();
    const analytics = await get(`/api/v1/analytics?from=${from}`);
    const { totals } = analytics;
    expect(totals.issued).toBe(CREDENTIALS);
    expect(totals.valid + totals.expired + totals.revoked).toBe(CREDENTIALS);
    expect(totals.revoked).toBeGreaterThan(0);
    expect(totals.expired).toBeGreaterThan(0);
    expect(totals.issuedInWindow).toBe(CREDENTIALS);
    expect(totals.verifies).toBe(VERIFICATIONS);
    expect(totals.shares).toBe(ENGAGEMENTS);
    const sum = (points: { count: number }[]) => points.reduce((s, p) => s + p.count, 0);
    expect(sum(analytics.series.verifies)).toBe(VERIFICATIONS);
    expect(sum(analytics.geo)).toBe(VERIFICATIONS);
    expect(analytics.byDefinition).toHaveLength(6);
    expect(analytics.byPathway.map((p: { stages: number }) => p.stages)).toEqual([3, 3]);
    expect(sum(analytics.byPathway.map((p: { issued: number }) => ({ count: p.issued })))).toBe(CREDENTIALS);

    const report = await get('/api/v1/reports/issuance');
    expect(report.totals).toMatchObject({ issued: CREDENTIALS, issuedInWindow: CREDENTIALS, verifies: VERIFICATIONS });
    const byChannel = report.verifiesByChannel;
    expect(byChannel.api + byChannel.bulk + byChannel.page).toBe(VERIFICATIONS);
  });

  it('adds to an earlier run instead of colliding, reusing its definitions', async () => {
    const run = await cli(['bench-seed', '--issuer', issuer.slug, '--credentials', '10', '--verifications', '10']);
    expect(run.code, run.errors.join('')).toBe(0);
    const report = await get('/api/v1/reports/issuance');
    expect(report.totals).toMatchObject({ issued: CREDENTIALS + 10, verifies: VERIFICATIONS + 10 });
    expect(report.byDefinition).toHaveLength(20);
  });

  it('refuses missing counts (64) and an unknown issuer (1)', async () => {
    expect((await cli(['bench-seed', '--issuer', issuer.slug, '--credentials', '5'])).code).toBe(64);
    expect(
      (await cli(['bench-seed', '--issuer', issuer.slug, '--credentials', '-1', '--verifications', '1'])).code,
    ).toBe(64);
    const unknown = await cli(['bench-seed', '--issuer', 'nobody-here', '--credentials', '1', '--verifications', '1']);
    expect(unknown.code).toBe(1);
    expect(unknown.errors.join('')).toMatch(/not found/);
  });
});
