import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { createDefinition, importCsv, postJson } from './ingest.support.js';

const held = (id: string) => `already held: the recipient holds credential ${id} of this definition`;

describe.each(dialects)('completions a recipient already holds, and ambiguous names, on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let ds101: { id: string; slug: string };
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  /** Issues through the API with the sender's own key, as another channel would. */
  async function issueWithKey(email: string, completionKey: string, definitionId = ds101.id): Promise<string> {
    const res = await postJson(t, a.key, '/api/v1/credentials', { definitionId, recipientEmail: email, completionKey });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId;
  }

  async function credentialCount(): Promise<number> {
    const row = await t.database.db
      .selectFrom('credentials')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('issuer_id', '=', a.id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer();
    ds101 = await createDefinition(t, a.key, { name: 'Data Science 101', slug: 'ds101' });
  });
  afterAll(async () => t.close());

  it('a CSV row, with or without its own key, for a credential held under another key is already_issued, then skipped', async () => {
    const existing = await issueWithKey('ada@held.example', 'ds101:ada');
    const csv = 'email,course,key\nADA@held.example,ds101,\nbob@held.example,ds101,\nada@held.example,ds101,own-key\n';
    const dry = await importCsv(t, a.key, csv, { dryRun: true });
    expect(dry.rows.map((r) => [r.outcome, r.preview, r.credentialId])).toEqual([
      ['skipped', 'already_issued', existing],
      ['issued', 'new', null],
      ['skipped', 'already_issued', existing],
    ]);
    expect(dry.rows[0]?.message).toBe(held(existing));
    const before = await credentialCount();
    const real = await importCsv(t, a.key, csv);
    expect([real.issued, real.skipped, real.errored]).toEqual([1, 2, 0]);
    expect(real.rows[0]).toMatchObject({ outcome: 'skipped', credentialId: existing, message: held(existing) });
    // A roster row with its own key issues nothing either when the recipient holds the definition (issue 39 §2).
    expect(real.rows[2]).toMatchObject({ outcome: 'skipped', credentialId: existing, message: held(existing) });
    expect(await credentialCount()).toBe(before + 1);
  });

  it('a revoked or expired credential is not held: the row issues', async () => {
    const revoked = await issueWithKey('rev@held.example', 'ds101:rev');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${revoked}/revoke`,
      headers: auth(a.key),
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(200);
    const short = await createDefinition(t, a.key, { name: 'Short', slug: 'short', expiresAfterDays: 1 });
    await issueWithKey('exp@held.example', 'short:exp', short.id);
    clock.advance(2 * 86_400_000);
    const report = await importCsv(t, a.key, 'email,course\nrev@held.example,ds101\nexp@held.example,short\n');
    expect(report.rows.map((r) => r.outcome)).toEqual(['issued', 'issued']);
  });

  it('a single completion without a key answers 200 with the credential held under another key', async () => {
    const existing = await issueWithKey('cyd@held.example', 'ds101:cyd');
    const res = await postJson(t, a.key, '/api/v1/ingest/completions', {
      recipientEmail: 'Cyd@Held.Example',
      definitionRef: 'ds101',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      credentialId: existing,
      created: false,
      outcome: 'skipped',
      completionKey: 'ds101:cyd',
      status: 'valid',
    });
    const withKey = await postJson(t, a.key, '/api/v1/ingest/completions', {
      recipientEmail: 'cyd@held.example',
      definitionRef: 'ds101',
      completionKey: 'lms:cyd:2',
    });
    expect(withKey.statusCode, withKey.body).toBe(201);
  });

  it('a connector record without a key is skipped with the held credential', async () => {
    const existing = await issueWithKey('dee@held.example', 'ds101:dee');
    const res = await postJson(t, a.key, '/api/v1/connectors/generic/completions', {
      records: [
        { email: 'dee@held.example', courseCode: 'ds101', completedAt: '2026-01-01' },
        { email: 'eve@held.example', courseCode: 'ds101', completedAt: '2026-01-01' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(
      res.json().records.map((r: { outcome: string; credentialId: string }) => [r.outcome, r.credentialId]),
    ).toEqual([
      ['skipped', existing],
      ['issued', expect.any(String)],
    ]);
    expect(res.json().records[0].message).toBe(held(existing));
  });

  it('a name two definitions share is an error naming their slugs, in every channel', async () => {
    await createDefinition(t, a.key, { name: 'Forklift', slug: 'forklift-2019' });
    await createDefinition(t, a.key, { name: 'forklift ', slug: 'forklift-2024' });
    const problem = 'definitionRef names 2 definitions; give one of their slugs instead: forklift-2019, forklift-2024';
    const csv = await importCsv(t, a.key, 'email,course\nfk1@amb.example,Forklift\nfk2@amb.example,forklift-2024\n');
    expect(csv.rows.map((r) => [r.outcome, r.message])).toEqual([
      ['error', problem],
      ['issued', null],
    ]);
    const defaults = await importCsv(t, a.key, 'email\nfk3@amb.example\n', { defaults: { definitionRef: 'FORKLIFT' } });
    expect(defaults.rows[0]?.message).toBe(`defaults.${problem}`);
    const single = await postJson(t, a.key, '/api/v1/ingest/completions', {
      recipientEmail: 'fk4@amb.example',
      definitionRef: 'forklift',
    });
    expect(expectErrorBody(single, 422, 'ingest_failed').message).toBe(`${problem}.`);
    const connector = await postJson(t, a.key, '/api/v1/connectors/generic/completions', {
      email: 'fk5@amb.example',
      definitionRef: 'Forklift',
    });
    expect(connector.json().records[0]).toMatchObject({ outcome: 'error', message: problem });
  });

  it('an archived namesake does not make a name ambiguous', async () => {
    const old = await createDefinition(t, a.key, { name: 'Crane', slug: 'crane-old' });
    const archived = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/definitions/${old.id}`,
      headers: auth(a.key),
      payload: { status: 'archived' },
    });
    expect(archived.statusCode).toBe(200);
    const current = await createDefinition(t, a.key, { name: 'Crane', slug: 'crane-new' });
    const report = await importCsv(t, a.key, 'email,course\ncr1@amb.example,crane\n');
    expect(report.rows[0]?.outcome).toBe('issued');
    const row = await t.database.db
      .selectFrom('credentials')
      .select('definition_id')
      .where('id', '=', report.rows[0]?.credentialId as string)
      .executeTakeFirstOrThrow();
    expect(row.definition_id).toBe(current.id);
  });
});
