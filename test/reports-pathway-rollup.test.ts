import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

/*
 * A pathway's distinct recipients come from its rollup (migration 0031) once its days are over:
 * the rolled set, plus the recipients of later credentials not in it, rebuilt when its stage
 * definitions change. Each answer is checked against the credentials themselves.
 */
describe.each(dialects)('pathway recipients from the rollup on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const clock = manualClock('2026-11-01T09:00:00.000Z');
  const definitions = {} as Record<'alpha' | 'beta' | 'gamma', string>;
  let pathwayId = '';
  let issued = 0;

  async function post(url: string, payload: object) {
    const res = await t.app.inject({ method: 'POST', url, headers: auth(a.key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }

  async function issue(recipient: string, definitionId: string) {
    issued += 1;
    await t.app.services.issuance.issue(a.id, 'test', {
      definitionId,
      recipientEmail: `${recipient}@example.test`,
      completionKey: `pathway-rollup-${issued}`,
      source: 'api',
    });
  }

  async function recipients(): Promise<number> {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/analytics', headers: auth(a.key) });
    expect(res.statusCode, res.body).toBe(200);
    const [pathway] = res.json().byPathway;
    return pathway.recipients;
  }

  /** What the credentials say: distinct recipients of the pathway's stage definitions. */
  async function fromCredentials(): Promise<number> {
    const stages = await t.database.db
      .selectFrom('pathway_stages')
      .select('definition_id')
      .where('pathway_id', '=', pathwayId)
      .execute();
    const rows = await t.database.db
      .selectFrom('credentials')
      .select('recipient_hash')
      .distinct()
      .where('issuer_id', '=', a.id)
      .where(
        'definition_id',
        'in',
        stages.map((s) => s.definition_id),
      )
      .execute();
    return rows.length;
  }

  async function rollup() {
    return t.database.db
      .withTables<{ report_pathway_rollups: { pathway_id: string; recipients: number; rolled_before: string } }>()
      .selectFrom('report_pathway_rollups')
      .select(['recipients', 'rolled_before'])
      .where('pathway_id', '=', pathwayId)
      .executeTakeFirst();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `pathway-rollup-${dialect}` });
    definitions.alpha = (await post('/api/v1/definitions', { name: 'Alpha', description: 'A' })).id;
    definitions.beta = (await post('/api/v1/definitions', { name: 'Beta', description: 'B' })).id;
    definitions.gamma = (await post('/api/v1/definitions', { name: 'Gamma', description: 'C' })).id;
    pathwayId = (await post('/api/v1/pathways', { name: 'Path', description: 'Alpha then Beta' })).id;
    await post(`/api/v1/pathways/${pathwayId}/stages`, { definitionId: definitions.alpha, stepOrder: 1 });
    await post(`/api/v1/pathways/${pathwayId}/stages`, { definitionId: definitions.beta, stepOrder: 2 });
    await issue('r1', definitions.alpha);
    await issue('r2', definitions.alpha);
    await issue('r2', definitions.beta);
    await issue('r4', definitions.gamma);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('counts the closed days from the rollup, each recipient once', async () => {
    clock.set('2026-11-03T09:00:00.000Z');
    expect(await recipients()).toBe(2);
    expect(await rollup()).toMatchObject({ recipients: 2, rolled_before: '2026-11-03T00:00:00.000Z' });
    expect(await fromCredentials()).toBe(2);
  });

  it('adds the recipients of credentials issued since, not those already rolled up', async () => {
    await issue('r2', definitions.beta);
    await issue('r3', definitions.beta);
    await issue('r5', definitions.gamma);
    expect(await recipients()).toBe(3);
    expect(await fromCredentials()).toBe(3);
    expect(await rollup()).toMatchObject({ recipients: 2 });
  });

  it('takes the next closed day into the rollup without counting anyone twice', async () => {
    clock.set('2026-11-04T09:00:00.000Z');
    expect(await recipients()).toBe(3);
    expect(await rollup()).toMatchObject({ recipients: 3, rolled_before: '2026-11-04T00:00:00.000Z' });
  });

  it('rebuilds the rollup when a stage is added', async () => {
    await post(`/api/v1/pathways/${pathwayId}/stages`, { definitionId: definitions.gamma, stepOrder: 3 });
    expect(await recipients()).toBe(5);
    expect(await fromCredentials()).toBe(5);
    expect(await rollup()).toMatchObject({ recipients: 5 });
  });

  it('answers from the rollup, not from a count of every credential', async () => {
    const rollups = t.database.db.withTables<{
      report_pathway_rollups: { pathway_id: string; recipients: number };
    }>();
    await rollups
      .updateTable('report_pathway_rollups')
      .set({ recipients: 50 })
      .where('pathway_id', '=', pathwayId)
      .execute();
    expect(await recipients()).toBe(50);
    await rollups
      .updateTable('report_pathway_rollups')
      .set({ recipients: 5 })
      .where('pathway_id', '=', pathwayId)
      .execute();
    expect(await recipients()).toBe(5);
  });
});
