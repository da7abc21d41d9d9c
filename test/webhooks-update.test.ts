import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSecrets } from '../src/modules/webhooks/webhook-secrets.js';
import { consoleUser } from './console.support.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { answer, type Receiver, startReceiver } from './webhooks.support.js';

describe.each(dialects)('PATCH /api/v1/webhooks/{id} on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let first: Receiver;
  let second: Receiver;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
    first = await startReceiver(answer(200));
    second = await startReceiver(answer(200));
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await t.close();
  });

  it('moves a subscription to a new URL and events, keeps its secret, and audits the change', async () => {
    const owner = await consoleUser(t.app, issuer.id, 'owner');
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: owner.headers,
      payload: { url: first.url, events: ['credential.issued'] },
    });
    const { id, secret } = created.json();

    const updated = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${id}`,
      headers: owner.headers,
      payload: { url: second.url, events: ['credential.revoked', 'credential.expired'] },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toEqual({
      id,
      url: second.url,
      events: ['credential.revoked', 'credential.expired'],
      createdAt: created.json().createdAt,
    });
    expect(updated.json()).not.toHaveProperty('secret');

    const eventsOnly = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${id}`,
      headers: owner.headers,
      payload: { events: ['credential.issued'] },
    });
    expect(eventsOnly.json()).toMatchObject({ url: second.url, events: ['credential.issued'] });

    await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: owner.headers });
    await t.app.services.webhooks.dispatcher.drain();
    await second.waitFor(1);
    expect(first.requests).toHaveLength(0);
    const stored = await t.database.db
      .selectFrom('webhook_subscriptions')
      .select('secret')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // Kept sealed at rest (issue 48 §7), and it still opens to the secret handed out.
    expect(stored.secret).not.toBe(secret);
    expect(createWebhookSecrets(t.config).open(id, stored.secret)).toBe(secret);

    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'details'])
      .where('issuer_id', '=', issuer.id)
      .where('action', '=', 'webhook.updated')
      .execute();
    expect(audit).toHaveLength(2);
    expect(audit.every((row) => row.actor === `user:${owner.userId}`)).toBe(true);
    expect(audit.map((row) => row.details).join(' ')).not.toContain('/hooks');
  });

  it('refuses an empty change, an unknown field, a bad URL or event; 404 for another issuer', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: first.url, events: ['credential.issued'] },
    });
    const { id } = created.json();
    const patch = (payload: unknown, key = issuer.key) =>
      t.app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${id}`, headers: auth(key), payload: payload as object });
    expectErrorBody(await patch({}), 400, 'validation_failed');
    expectErrorBody(await patch({ secret: 'x' }), 400, 'validation_failed');
    expectErrorBody(await patch({ url: 'ftp://example.org/x' }), 400, 'validation_failed');
    expectErrorBody(await patch({ events: [] }), 400, 'validation_failed');
    expectErrorBody(await patch({ events: ['credential.nope'] }), 400, 'validation_failed');
    const other = await t.issuer();
    expectErrorBody(await patch({ events: ['credential.revoked'] }, other.key), 404, 'not_found');
    await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: auth(issuer.key) });
    expectErrorBody(await patch({ events: ['credential.revoked'] }), 404, 'not_found');
  });
});
