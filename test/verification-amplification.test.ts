import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, type Issued, issue } from './verification.support.js';
import { type Receiver, startReceiver } from './webhooks.support.js';

describe.each(dialects)('bulk verify amplification on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let receiver: Receiver;
  let credential: Issued;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
    receiver = await startReceiver();
    const definition = await createDefinition(t, issuer);
    credential = await issue(t, issuer, definition.id, { email: 'amplified@example.test', name: 'Ada Lovelace' });
    const subscribed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: receiver.url, events: ['credential.verified'] },
    });
    expect(subscribed.statusCode).toBe(201);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const count = async (table: 'verification_events' | 'webhook_deliveries') =>
    Number(
      (
        await t.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('issuer_id', '=', issuer.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('30 bulk calls of 1,000 copies of one id leave one event, one outbox row and one delivery per client', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) =>
      i % 2 === 0 ? credential.assertionUrl : credential.credentialId,
    );
    for (let call = 0; call < 30; call++) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/verify/bulk', payload: { ids } });
      expect(res.statusCode).toBe(200);
      const body = res.json() as { count: number; results: { id: string; valid: boolean }[] };
      // Still one answer per requested id, in order.
      expect(body.count).toBe(1000);
      expect(body.results.map((r) => r.id)).toEqual(ids);
      expect(body.results.every((r) => r.valid)).toBe(true);
    }
    await t.app.services.verification.events.flush();
    expect(await count('verification_events')).toBe(1);
    expect(await count('webhook_deliveries')).toBe(1);

    // Someone else verifying is counted: analytics count people, not requests.
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify/bulk',
      remoteAddress: '198.51.100.23',
      payload: { ids: [credential.credentialId, credential.credentialId] },
    });
    expect(other.statusCode).toBe(200);
    for (let call = 0; call < 5; call++) {
      await t.app.inject({ method: 'POST', url: '/api/v1/verify', payload: { id: credential.assertionUrl } });
    }
    await t.app.services.verification.events.flush();
    // + the second client's bulk, + the first client's single verifies (another channel) once.
    expect(await count('verification_events')).toBe(3);
    expect(await count('webhook_deliveries')).toBe(3);

    await t.app.services.webhooks.dispatcher.drain();
    expect(receiver.requests.length).toBe(3);
  });
});
