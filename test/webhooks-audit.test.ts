import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

describe.each(dialects)('audited webhook changes on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await t.close();
  });

  const webhookRecords = (targetId: string) =>
    t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'action', 'target_type', 'details'])
      .where('issuer_id', '=', issuer.id)
      .where('target_id', '=', targetId)
      .orderBy('seq')
      .execute();

  it('records adding and removing through the API with the key that did it, and the chain still verifies', async () => {
    const keyId = (
      await t.database.db
        .selectFrom('api_keys')
        .select('id')
        .where('issuer_id', '=', issuer.id)
        .executeTakeFirstOrThrow()
    ).id;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: 'http://127.0.0.1:9/hooks?token=receiver-secret', events: ['credential.issued'] },
    });
    expect(created.statusCode).toBe(201);
    const { id } = created.json() as { id: string };
    await t.database.db
      .transaction()
      .execute((trx) => t.app.services.outbox.enqueue(trx, issuer.id, 'credential.issued', { credentialId: 'c' }));
    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: auth(issuer.key) });
    expect(deleted.statusCode).toBe(204);

    const records = await webhookRecords(id);
    expect(records.map((r) => ({ ...r, details: JSON.parse(r.details) }))).toEqual([
      {
        actor: `key:${keyId}`,
        action: 'webhook.added',
        target_type: 'webhook',
        details: { host: '127.0.0.1:9', events: ['credential.issued'] },
      },
      { actor: `key:${keyId}`, action: 'webhook.removed', target_type: 'webhook', details: { cancelledDeliveries: 1 } },
    ]);
    expect(JSON.stringify(records)).not.toContain('receiver-secret');
    const [report] = await t.app.services.audit.verify(issuer.id);
    expect(report?.ok).toBe(true);
  });

  it('records nothing for a refused registration or a removal of a missing webhook', async () => {
    const before = await t.database.db
      .selectFrom('audit_log')
      .select('id')
      .where('issuer_id', '=', issuer.id)
      .execute();
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: 'ftp://127.0.0.1/x', events: ['credential.issued'] },
    });
    expect(refused.statusCode).toBe(400);
    const missing = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/webhooks/00000000-0000-4000-8000-000000000000',
      headers: auth(issuer.key),
    });
    expect(missing.statusCode).toBe(404);
    const after = await t.database.db.selectFrom('audit_log').select('id').where('issuer_id', '=', issuer.id).execute();
    expect(after.length).toBe(before.length);
  });

  it('records the console (`accolade webhooks add|remove`) as actor cli', async () => {
    for (const [name, value] of Object.entries({
      DATABASE_URL: t.testDb.url,
      PUBLIC_BASE_URL: 'https://badges.test',
      LOG_LEVEL: 'silent',
      BOOTSTRAP_ISSUER: 'false',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // The CLI seals the new subscription's secret with the app's key-encryption key.
      ...(t.config.signingKeySecret ? { SIGNING_KEY_SECRET: t.config.signingKeySecret } : {}),
    })) {
      vi.stubEnv(name, value);
    }
    const lines: string[] = [];
    const add = ['webhooks', 'add', '--issuer', issuer.slug, '--url', 'http://127.0.0.1:9/cli'];
    expect(await runCli([...add, '--events', 'credential.revoked'], (line) => lines.push(line))).toBe(0);
    const id = /webhook ([0-9a-f-]{36})/.exec(lines[0] ?? '')?.[1] ?? '';
    expect(await runCli(['webhooks', 'remove', '--issuer', issuer.slug, '--id', id], () => {})).toBe(0);
    const records = await webhookRecords(id);
    expect(records.map((r) => [r.actor, r.action])).toEqual([
      ['cli', 'webhook.added'],
      ['cli', 'webhook.removed'],
    ]);
  });
});
