import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { createDefinition, importCsv } from './ingest.support.js';

const URL = '/api/v1/ingest/imports';

describe.each(dialects)('import history on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const batchIds: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `hist-a-${dialect}` });
    b = await t.issuer({ slug: `hist-b-${dialect}` });
    await createDefinition(t, a.key, { name: 'Forklift Safety', slug: 'forklift' });
    const first = await importCsv(
      t,
      a.key,
      'email,name,definition\nann@example.com,Ann,forklift\nbob@example.com,Bob,nowhere\n',
      { filename: 'first.csv' },
    );
    clock.advance(60_000);
    await importCsv(t, a.key, 'email,name,definition\ncy@example.com,Cy,forklift\n', { dryRun: true });
    const second = await importCsv(
      t,
      a.key,
      'email,name,definition\nann@example.com,Ann,forklift\ncy@example.com,Cy,forklift\n',
    );
    batchIds.push(first.batchId, second.batchId);
  });
  afterAll(async () => t.close());

  it('lists real imports newest first with their counts; dry runs are not kept', async () => {
    const res = await t.app.inject({ method: 'GET', url: URL, headers: auth(a.key) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(body.items).toEqual([
      {
        id: batchIds[1],
        createdAt: '2026-11-21T10:01:00.000Z',
        source: 'csv',
        filename: null,
        rows: 2,
        issued: 1,
        skipped: 1,
        errors: 0,
      },
      {
        id: batchIds[0],
        createdAt: '2026-11-21T10:00:00.000Z',
        source: 'csv',
        filename: 'first.csv',
        rows: 2,
        issued: 1,
        skipped: 0,
        errors: 1,
      },
    ]);
    expect(res.body).not.toContain('@example.com');
  });

  it('pages with limit and offset, and refuses a bad limit', async () => {
    const page = (await t.app.inject({ method: 'GET', url: `${URL}?limit=1&offset=1`, headers: auth(a.key) })).json();
    expect(page).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.items.map((i: { id: string }) => i.id)).toEqual([batchIds[0]]);
    const bad = await t.app.inject({ method: 'GET', url: `${URL}?limit=0`, headers: auth(a.key) });
    expectErrorBody(bad, 400, 'validation_failed');
  });

  it("answers one batch, and hides another issuer's batches", async () => {
    const one = await t.app.inject({ method: 'GET', url: `${URL}/${batchIds[0]}`, headers: auth(a.key) });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({ id: batchIds[0], filename: 'first.csv', rows: 2, issued: 1, errors: 1 });
    const other = (await t.app.inject({ method: 'GET', url: URL, headers: auth(b.key) })).json();
    expect(other).toMatchObject({ total: 0, items: [] });
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'GET', url: `${URL}/${batchIds[0]}` },
      { method: 'GET', url: `${URL}/00000000-0000-4000-8000-000000000000` },
    );
  });

  it("keeps each batch's report: the entries not issued cleanly, never an email", async () => {
    const first = (await t.app.inject({ method: 'GET', url: `${URL}/${batchIds[0]}`, headers: auth(a.key) })).json();
    expect(first.reportComplete).toBe(true);
    expect(first.report).toHaveLength(1);
    expect(first.report[0]).toMatchObject({ entry: 'row 3', outcome: 'error', credentialId: null });
    expect(first.report[0].message).toBe('definitionRef matches no definition slug, course code or name');
    const second = await t.app.inject({ method: 'GET', url: `${URL}/${batchIds[1]}`, headers: auth(a.key) });
    expect(second.json()).toMatchObject({ reportComplete: true, report: [{ entry: 'row 2', outcome: 'skipped' }] });
    expect(second.json().report[0].credentialId).toEqual(expect.any(String));
    expect(second.body).not.toContain('@example.com');
  });

  it('keeps an empty report for a clean import, and caps a long one', async () => {
    const clean = await importCsv(t, a.key, 'email,name,definition\ndee@example.com,Dee,forklift\n');
    const kept = (await t.app.inject({ method: 'GET', url: `${URL}/${clean.batchId}`, headers: auth(a.key) })).json();
    expect(kept).toMatchObject({ issued: 1, report: [], reportComplete: true });
    const lines = Array.from({ length: 1001 }, (_, i) => `p${i}@example.com,P,nowhere`);
    const failing = await importCsv(t, a.key, `email,name,definition\n${lines.join('\n')}\n`);
    const long = (await t.app.inject({ method: 'GET', url: `${URL}/${failing.batchId}`, headers: auth(a.key) })).json();
    expect(long).toMatchObject({ rows: 1001, errors: 1001, reportComplete: false });
    expect(long.report).toHaveLength(1000);
    expect(long.report[999].entry).toBe('row 1001');
  });

  it('requires a key', async () => {
    await expectKeyRequired(t.app, { method: 'GET', url: URL });
    await expectKeyRequired(t.app, { method: 'GET', url: `${URL}/${batchIds[0]}` });
  });
});
