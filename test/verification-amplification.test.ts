import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CREDENTIAL_VERIFY_COST, MAX_BULK_JWTS } from '../src/modules/verification/verification.routes.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, forgedJwt, type Issued, issue, signedJwt } from './verification.support.js';
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

/** Issue 37.1: forged VC-JWTs with a real `kid`, at the default open limit, are paid for before they are checked. */
describe.each(dialects)('bulk verify of forged VC-JWTs on %s', (dialect) => {
  const OPEN_LIMIT = 300;
  let t: TestApp;
  let jwt: string;

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { OPEN_RATE_LIMIT_PER_MINUTE: String(OPEN_LIMIT) } });
    const issuer = await t.issuer();
    const definition = await createDefinition(t, issuer);
    const credential = await issue(t, issuer, definition.id, { email: 'forged@example.test' });
    jwt = await signedJwt(t, issuer, credential.credentialId);
  });
  afterAll(async () => t.close());

  it('one address runs out of its budget after the calls it paid for, and the kid is looked up once', async () => {
    const lookups = vi.spyOn(t.app.services.vc.signingKeys, 'publicKeys');
    try {
      const statuses: number[] = [];
      for (let call = 0; call < 4; call++) {
        const ids = Array.from({ length: MAX_BULK_JWTS }, (_, i) => forgedJwt(jwt, call * 100 + i));
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/verify/bulk',
          payload: { ids },
          remoteAddress: '203.0.113.37',
        });
        statuses.push(res.statusCode);
        if (res.statusCode === 200) {
          expect(res.json().results.every((r: { authentic: boolean }) => !r.authentic)).toBe(true);
          expect(Number(res.headers['x-ratelimit-remaining'])).toBe(
            OPEN_LIMIT - MAX_BULK_JWTS * CREDENTIAL_VERIFY_COST,
          );
        }
      }
      // 25 forged JWTs cost 250 of the 300 units: the next call is refused, and so is every later one.
      expect(statuses).toEqual([200, 429, 429, 429]);
      expect(lookups).toHaveBeenCalledTimes(1);

      // 1,000 of them in one call, as in the report, are refused before any is checked or charged.
      const thousand = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify/bulk',
        payload: { ids: Array.from({ length: 1000 }, (_, i) => forgedJwt(jwt, 10_000 + i)) },
        remoteAddress: '203.0.113.38',
      });
      expectErrorBody(thousand, 400, 'validation_failed');
      expect(Number(thousand.headers['x-ratelimit-remaining'])).toBe(OPEN_LIMIT - 1);
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      lookups.mockRestore();
    }
  });
});
