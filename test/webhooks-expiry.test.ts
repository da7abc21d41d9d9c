import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpirySweeper } from '../src/modules/webhooks/expiry-sweeper.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { insertCredential, insertCredentials, insertDefinition, raceTwoSweepers } from './webhooks.support.js';

describe.each(dialects)('expiry sweeper on %s', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let issuer: TestIssuer;

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    issuer = await t.issuer();
  });
  afterAll(async () => t.close());

  async function subscribe(issuerKey: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuerKey),
      payload: { url: 'http://127.0.0.1:9/hooks', events: ['credential.expired'] },
    });
    expect(res.statusCode).toBe(201);
    return (res.json() as { id: string }).id;
  }

  async function expiredPayloads(subscriptionId: string) {
    const rows = await t.database.db
      .selectFrom('webhook_deliveries')
      .select(['event', 'payload'])
      .where('subscription_id', '=', subscriptionId)
      .execute();
    expect(rows.every((r) => r.event === 'credential.expired')).toBe(true);
    return rows.map((r) => JSON.parse(r.payload) as { occurredAt: string; data: Record<string, unknown> });
  }

  it('announces each expired, unrevoked credential exactly once', async () => {
    const other = await t.issuer();
    const subscription = await subscribe(issuer.key);
    const otherSubscription = await subscribe(other.key);
    const definition = await insertDefinition(t.database, issuer.id);
    const otherDefinition = await insertDefinition(t.database, other.id);
    const past = '2026-11-20T10:00:00.000Z';
    const expiredA = await insertCredential(t.database, issuer.id, definition.id, { expires_on: past });
    const expiredB = await insertCredential(t.database, issuer.id, definition.id, {
      expires_on: clock.now().toISOString(),
    });
    const otherExpired = await insertCredential(t.database, other.id, otherDefinition.id, { expires_on: past });
    await insertCredential(t.database, issuer.id, definition.id, {
      expires_on: past,
      revoked_at: '2026-11-19T00:00:00.000Z',
      revoked_reason: 'withdrawn',
    });
    await insertCredential(t.database, issuer.id, definition.id, { expires_on: past, expiry_announced_at: past });
    await insertCredential(t.database, issuer.id, definition.id, { expires_on: null });
    const later = await insertCredential(t.database, issuer.id, definition.id, {
      expires_on: '2026-11-22T10:00:00.000Z',
    });

    const { expirySweeper } = t.app.services.webhooks;
    expect(await expirySweeper.runOnce()).toBe(3);
    expect(await expirySweeper.runOnce()).toBe(0);

    const payloads = await expiredPayloads(subscription);
    expect(payloads.map((p) => p.data.credentialId).sort()).toEqual([expiredA.id, expiredB.id].sort());
    const a = payloads.find((p) => p.data.credentialId === expiredA.id);
    expect(a).toMatchObject({
      occurredAt: clock.now().toISOString(),
      data: {
        credentialId: expiredA.id,
        definitionId: definition.id,
        assertionUrl: `https://badges.test/v1/issuers/${issuer.slug}/assertions/${expiredA.id}`,
        badgeClassUrl: `https://badges.test/v1/issuers/${issuer.slug}/badges/${definition.slug}`,
        verifyUrl: `https://badges.test/verify/${issuer.slug}/${expiredA.id}`,
        status: 'expired',
        expiresOn: past,
        revokedAt: null,
      },
    });
    expect(JSON.stringify(payloads)).not.toContain('Ada');
    expect(JSON.stringify(payloads)).not.toContain(expiredA.recipient_hash);
    expect((await expiredPayloads(otherSubscription)).map((p) => p.data.credentialId)).toEqual([otherExpired.id]);

    const marked = await t.database.db
      .selectFrom('credentials')
      .select(['id', 'expiry_announced_at'])
      .where('id', 'in', [expiredA.id, expiredB.id, later.id])
      .execute();
    expect(Object.fromEntries(marked.map((r) => [r.id, r.expiry_announced_at]))).toEqual({
      [expiredA.id]: clock.now().toISOString(),
      [expiredB.id]: clock.now().toISOString(),
      [later.id]: null,
    });

    clock.set('2026-11-22T10:00:00.000Z');
    expect(await expirySweeper.runOnce()).toBe(1);
    expect((await expiredPayloads(subscription)).map((p) => p.data.credentialId)).toContain(later.id);
    expect(await expirySweeper.runOnce()).toBe(0);
    expect(await expiredPayloads(subscription)).toHaveLength(3);
  });

  it('works through more expiries than one batch holds in a single pass', async () => {
    const definition = await insertDefinition(t.database, issuer.id);
    for (let i = 0; i < 7; i++) {
      await insertCredential(t.database, issuer.id, definition.id, { expires_on: '2026-01-01T00:00:00.000Z' });
    }
    const sweeper = createExpirySweeper(t.app.core, t.app.services, { batchSize: 3 });
    expect(await sweeper.runOnce()).toBe(7);
    expect(await sweeper.runOnce()).toBe(0);
  });

  it.runIf(dialect === 'postgres')('announces each credential once with two sweepers on separate pools', async () => {
    const subscription = await subscribe(issuer.key);
    const definition = await insertDefinition(t.database, issuer.id);
    await insertCredentials(t.database, issuer.id, definition.id, 600, () => '2026-01-01T00:00:00.000Z');
    const [na, nb] = await raceTwoSweepers(t, (sweeper) => sweeper.runOnce());
    expect(na + nb).toBe(600);
    expect(na).toBeGreaterThan(0);
    expect(nb).toBeGreaterThan(0);
    const ids = (await expiredPayloads(subscription)).map((p) => p.data.credentialId);
    expect(ids).toHaveLength(600);
    expect(new Set(ids).size).toBe(600);
  });
});
