import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleUser } from './console.support.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { answer, type Receiver, signatureValid, startReceiver } from './webhooks.support.js';

describe.each(dialects)('console webhook test event and resend on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
    receiver = await startReceiver(answer(200));
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('delivers a signed webhook.test to a loopback receiver, logs it, and resends a delivery', async () => {
    const owner = await consoleUser(t.app, issuer.id, 'owner');
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: owner.headers,
      payload: { url: receiver.url, events: ['credential.revoked'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id, secret } = created.json();

    const test = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: owner.headers });
    expect(test.statusCode, test.body).toBe(202);
    const { deliveryId } = test.json();
    await t.app.services.webhooks.dispatcher.drain();
    await receiver.waitFor(1);
    const [first] = receiver.requests;
    expect(first?.headers['x-service-event']).toBe('webhook.test');
    expect(signatureValid(secret, first?.raw ?? Buffer.alloc(0), first?.headers['x-service-signature'])).toBe(true);
    expect(JSON.parse(first?.raw.toString() ?? '{}')).toMatchObject({ event: 'webhook.test', data: { webhookId: id } });

    const log = await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}/deliveries`, headers: owner.headers });
    expect(log.json().items).toEqual([
      expect.objectContaining({ id: deliveryId, event: 'webhook.test', status: 'delivered', lastStatusCode: 200 }),
    ]);

    const resent = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${id}/deliveries/${deliveryId}/resend`,
      headers: owner.headers,
    });
    expect(resent.statusCode, resent.body).toBe(202);
    expect(resent.json().deliveryId).not.toBe(deliveryId);
    await t.app.services.webhooks.dispatcher.drain();
    await receiver.waitFor(2);
    expect(receiver.requests[1]?.raw.toString()).toBe(first?.raw.toString());

    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('issuer_id', '=', issuer.id)
      .where('action', 'in', ['webhook.test_sent', 'webhook.resent'])
      .execute();
    expect(audit.map((a) => a.action).sort()).toEqual(['webhook.resent', 'webhook.test_sent']);
    expect(new Set(audit.map((a) => a.actor))).toEqual(new Set([`user:${owner.userId}`]));
  });

  it('answers 404 for an unknown delivery or another issuer’s webhook', async () => {
    const other = await t.issuer();
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: receiver.url, events: ['credential.issued'] },
    });
    const { id } = created.json();
    expectErrorBody(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/resend`,
        headers: auth(issuer.key),
      }),
      404,
      'not_found',
    );
    expectErrorBody(
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: auth(other.key) }),
      404,
      'not_found',
    );
  });
});
