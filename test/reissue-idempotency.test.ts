import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

describe.each(dialects)('reissue without a completion key on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;

  async function issue(completionKey: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: `${completionKey}@example.test`, completionKey },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId;
  }

  const reissue = (id: string, payload?: object) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/reissue`,
      headers: auth(a.key),
      ...(payload ? { payload } : {}),
    });

  async function replacements(id: string) {
    return t.database.db
      .selectFrom('credentials')
      .select(['id', 'revoked_at'])
      .where('reissued_from', '=', id)
      .execute();
  }

  async function auditedReissues(id: string) {
    const rows = await t.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('issuer_id', '=', a.id)
      .where('action', '=', 'credential.reissued')
      .execute();
    return rows.filter((row) => String(row.details).includes(id)).length;
  }

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Reissued', description: 'R' },
    });
    definitionId = res.json().id;
  });
  afterAll(async () => t?.close());

  it('answers a second reissue (a double click) with the existing replacement, created false', async () => {
    const id = await issue('double-click');
    const first = await reissue(id);
    expect(first.statusCode, first.body).toBe(201);
    const second = await reissue(id, {});
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ credentialId: first.json().credentialId, created: false, status: 'valid' });
    expect(await replacements(id)).toHaveLength(1);
    expect(await auditedReissues(id)).toBe(1);
  });

  it('creates exactly one replacement for 20 concurrent reissues', async () => {
    const id = await issue('concurrent');
    const results = await Promise.all(Array.from({ length: 20 }, () => reissue(id)));
    expect(results.filter((res) => res.statusCode === 200)).toHaveLength(19);
    const created = results.filter((res) => res.statusCode === 201);
    expect(created).toHaveLength(1);
    const replacementId = created[0]?.json().credentialId;
    for (const res of results) expect(res.json().credentialId).toBe(replacementId);
    expect(await replacements(id)).toEqual([{ id: replacementId, revoked_at: null }]);
    expect(await auditedReissues(id)).toBe(1);
  });

  it('still creates a further replacement when asked with a new completion key', async () => {
    const id = await issue('explicit');
    const first = await reissue(id);
    const keyed = await reissue(id, { completionKey: 'explicit#second' });
    expect(keyed.statusCode, keyed.body).toBe(201);
    expect(keyed.json().credentialId).not.toBe(first.json().credentialId);
    const again = await reissue(id);
    expect(again.statusCode).toBe(200);
    expect(again.json().credentialId).toBe(keyed.json().credentialId);
  });
});
