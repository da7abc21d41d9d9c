import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUDIT_VERIFY_COST } from '../src/modules/audit/audit.routes.js';
import { consoleUser } from './console.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { createDefinition, postJson } from './ingest.support.js';

const URL = '/api/v1/audit';

describe.each(dialects)('audit API on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  const credentials: string[] = [];
  const clock = manualClock();

  const get = (url: string, key = a.key) => t.app.inject({ method: 'GET', url, headers: auth(key) });

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `audit-api-a-${dialect}` });
    b = await t.issuer({ slug: `audit-api-b-${dialect}` });
    const definition = await createDefinition(t, a.key, { name: 'Audited', slug: 'audited' });
    for (let i = 0; i < 2; i++) {
      const res = await postJson(t, a.key, '/api/v1/credentials', {
        definitionId: definition.id,
        recipientEmail: `r${i}@example.test`,
        completionKey: `audit-api-${i}`,
      });
      credentials.push(res.json().credentialId);
      clock.advance(1000);
    }
    const revoked = await postJson(t, a.key, `/api/v1/credentials/${credentials[0]}/revoke`, {});
    expect(revoked.statusCode, revoked.body).toBe(200);
  });
  afterAll(async () => t.close());

  it("filters by target id: one credential's records, newest first", async () => {
    const res = await get(`${URL}?targetId=${credentials[0]}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(2);
    expect(body.items.map((r: { action: string }) => r.action)).toEqual(['credential.revoked', 'credential.issued']);
    expect(body.items.every((r: { targetId: string }) => r.targetId === credentials[0])).toBe(true);
  });

  it('filters by target type, alone or with an id, and pages the filtered records', async () => {
    const all = (await get(URL)).json();
    const typed = (await get(`${URL}?targetType=credential`)).json();
    expect(typed.total).toBe(3);
    expect(all.total).toBeGreaterThan(typed.total);
    const page = (await get(`${URL}?targetType=credential&limit=1&offset=2`)).json();
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 2 });
    expect(page.items[0].action).toBe('credential.issued');
    const both = (await get(`${URL}?targetType=credential&targetId=${credentials[1]}`)).json();
    expect(both.items.map((r: { targetId: string }) => r.targetId)).toEqual([credentials[1]]);
    const wrongType = (await get(`${URL}?targetType=definition&targetId=${credentials[1]}`)).json();
    expect(wrongType).toMatchObject({ total: 0, items: [] });
  });

  it("never shows another issuer's records, and refuses an empty filter", async () => {
    expect((await get(`${URL}?targetId=${credentials[0]}`, b.key)).json()).toMatchObject({ total: 0, items: [] });
    expectErrorBody(await get(`${URL}?targetId=`), 400, 'validation_failed');
    expectErrorBody(await get(`${URL}?targetType=${'x'.repeat(101)}`), 400, 'validation_failed');
  });

  it('finds one target through the audit_log_issuer_target index', async () => {
    if (dialect === 'sqlite') {
      const { rows } = await sql<{ detail: string }>`explain query plan
        select * from audit_log where issuer_id = ${a.id} and target_id = ${credentials[0]}`.execute(t.database.db);
      expect(rows.map((r) => r.detail).join('\n')).toContain('audit_log_issuer_target');
    } else {
      const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes
        where tablename = 'audit_log' and indexname = 'audit_log_issuer_target'`.execute(t.database.db);
      expect(rows[0]?.indexdef).toMatch(/\(issuer_id, target_id\)/);
    }
  });

  it('filters by action, actor and date range, and names each actor as people read it', async () => {
    const issued = (await get(`${URL}?action=credential.issued`)).json();
    expect(issued.total).toBe(2);
    expect(issued.items.map((r: { targetId: string }) => r.targetId)).toEqual([credentials[1], credentials[0]]);
    const key = await t.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('issuer_id', '=', a.id)
      .executeTakeFirstOrThrow();
    const byKey = (await get(`${URL}?actor=key:${key.id}&targetType=credential`)).json();
    expect(byKey.total).toBe(3);
    expect(new Set(byKey.items.map((r: { actorName: string }) => r.actorName))).toEqual(new Set(['API key initial']));
    const bySystem = (await get(`${URL}?actor=system`)).json();
    expect(bySystem.items.map((r: { action: string; actorName: string }) => [r.action, r.actorName]).sort()).toEqual([
      ['api_key.created', 'System'],
      ['issuer.created', 'System'],
    ]);
    const staff = await consoleUser(t.app, a.id, 'viewer');
    const byUser = (await get(`${URL}?actor=user:${staff.userId}`)).json();
    expect(byUser.items.map((r: { action: string; actorName: string }) => [r.action, r.actorName])).toEqual([
      ['console_user.activated', staff.email],
    ]);
    expect((await get(`${URL}?actor=user:${staff.userId}`, b.key)).json()).toMatchObject({ total: 0, items: [] });

    const from = '2026-11-21T10:00:01.000Z';
    const since = (await get(`${URL}?targetType=credential&from=${from}`)).json();
    expect(since.items.map((r: { action: string; targetId: string }) => [r.action, r.targetId])).toEqual([
      ['credential.revoked', credentials[0]],
      ['credential.issued', credentials[1]],
    ]);
    const window = (await get(`${URL}?targetType=credential&from=${from}&to=2026-11-21T10:00:02.000Z`)).json();
    expect(window.items.map((r: { targetId: string }) => r.targetId)).toEqual([credentials[1]]);
    const offset = (await get(`${URL}?targetType=credential&to=2026-11-21T12:00:01%2B02:00`)).json();
    expect(offset.items.map((r: { targetId: string }) => r.targetId)).toEqual([credentials[0]]);
    expectErrorBody(await get(`${URL}?from=2026-11-21T10:00:02.000Z&to=${from}`), 400, 'validation_failed');
    expectErrorBody(await get(`${URL}?from=yesterday`), 400, 'validation_failed');
    expectErrorBody(await get(`${URL}?action=`), 400, 'validation_failed');
  });

  it('documents the filters in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const names = doc.paths['/api/v1/audit'].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['targetType', 'targetId', 'action', 'actor', 'from', 'to']));
  });

  it('checks the chains over the API as the CLI does, for this issuer only, at its rate-limit cost', async () => {
    const res = await get(`${URL}/verify`);
    expect(res.statusCode, res.body).toBe(200);
    const [cli] = await t.app.services.audit.verify(a.id);
    expect(res.json()).toEqual(cli);
    expect(res.json()).toMatchObject({ issuerId: a.id, ok: true, records: (await get(URL)).json().total });
    const before = Number((await get(URL)).headers['x-ratelimit-remaining']);
    const after = Number((await get(`${URL}/verify`)).headers['x-ratelimit-remaining']);
    expect(before - after).toBe(AUDIT_VERIFY_COST);
  });

  it('runs one check for concurrent requests of one issuer', async () => {
    const { audit } = t.app.services;
    const original = audit.verify.bind(audit);
    // A slow log: the requests arrive while the first check still reads it.
    const spy = vi.spyOn(audit, 'verify').mockImplementation(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return original(...args);
    });
    try {
      const answers = await Promise.all([get(`${URL}/verify`), get(`${URL}/verify`), get(`${URL}/verify`)]);
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      expect(spy).toHaveBeenCalledTimes(1);
      await get(`${URL}/verify`);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('names the first break of a record altered behind the triggers, and not in another issuer', async () => {
    const row = await t.database.db
      .selectFrom('audit_log')
      .select(['id', 'stripe', 'seq'])
      .where('target_id', '=', credentials[1] as string)
      .executeTakeFirstOrThrow();
    if (dialect === 'sqlite') {
      await sql`drop trigger audit_log_no_update`.execute(t.database.db);
      await sql`update audit_log set details = '{"tampered":true}' where id = ${row.id}`.execute(t.database.db);
    } else {
      await sql`alter table audit_log disable trigger audit_log_no_update_delete`.execute(t.database.db);
      await sql`update audit_log set details = '{"tampered":true}' where id = ${row.id}`.execute(t.database.db);
      await sql`alter table audit_log enable trigger audit_log_no_update_delete`.execute(t.database.db);
    }
    const broken = (await get(`${URL}/verify`)).json();
    expect(broken).toMatchObject({ ok: false, brokenAt: { stripe: row.stripe, seq: row.seq, id: row.id } });
    expect(broken.brokenAt.reason).toMatch(/altered/);
    expect((await get(`${URL}/verify`, b.key)).json()).toMatchObject({ issuerId: b.id, ok: true });
  });
});
