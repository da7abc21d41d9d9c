import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSecrets, sealStoredSecrets } from '../src/modules/webhooks/webhook-secrets.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { type Receiver, signatureValid, startReceiver } from './webhooks.support.js';

type VerifyDelivery = (
  secret: string,
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  nowSeconds?: number,
) => boolean;

/** The receiver check exactly as docs/webhooks.md prints it, loaded as the module a reader would paste. */
async function documentedCheck(): Promise<{ verify: VerifyDelivery; cleanup: () => void }> {
  const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'webhooks.md'), 'utf8');
  const code = /<!-- snippet:verify-v2 -->\s*```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!code) throw new Error('docs/webhooks.md has no verify-v2 snippet');
  const dir = mkdtempSync(join(tmpdir(), 'accolade-snippet-'));
  const file = join(dir, 'verify.mjs');
  writeFileSync(file, code);
  const module = (await import(pathToFileURL(file).href)) as { verifyAccoladeDelivery: VerifyDelivery };
  return { verify: module.verifyAccoladeDelivery, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe.each(dialects)('timestamped webhook signatures on %s', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let issuer: TestIssuer;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    issuer = await t.issuer();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('the documented receiver check accepts a real delivery and refuses a replay, a forged time and a changed body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: receiver.url, events: ['credential.issued'] },
    });
    const { secret } = res.json() as { secret: string };
    await t.database.db
      .transaction()
      .execute((trx) => t.app.services.outbox.enqueue(trx, issuer.id, 'credential.issued', { credentialId: 'c' }));
    await t.app.services.webhooks.dispatcher.drain();
    const delivery = receiver.requests[0];
    if (!delivery) throw new Error('no delivery arrived');
    const sentAt = Math.floor(clock.now().getTime() / 1000);
    expect(delivery.headers['x-service-timestamp']).toBe(String(sentAt));
    expect(delivery.headers['x-service-signature-v2']).toMatch(new RegExp(`^t=${sentAt},v1=[0-9a-f]{64}$`));
    // The interface's signature over the body alone is still sent, unchanged.
    expect(signatureValid(secret, delivery.raw, delivery.headers['x-service-signature'])).toBe(true);

    const { verify, cleanup } = await documentedCheck();
    try {
      expect(verify(secret, delivery.raw, delivery.headers, sentAt)).toBe(true);
      expect(verify(secret, delivery.raw, delivery.headers, sentAt + 300)).toBe(true);
      expect(verify(secret, delivery.raw, delivery.headers, sentAt - 300)).toBe(true);
      // The same bytes sent again later: refused.
      expect(verify(secret, delivery.raw, delivery.headers, sentAt + 301)).toBe(false);
      // A replayer who moves t forward breaks the digest.
      const v1 = String(delivery.headers['x-service-signature-v2']).split(',v1=')[1];
      const forged = { ...delivery.headers, 'x-service-signature-v2': `t=${sentAt + 3600},v1=${v1}` };
      expect(verify(secret, delivery.raw, forged, sentAt + 3600)).toBe(false);
      const changed = Buffer.from(delivery.raw.toString('utf8').replace('"c"', '"d"'));
      expect(verify(secret, changed, delivery.headers, sentAt)).toBe(false);
      expect(verify('whsec_wrong', delivery.raw, delivery.headers, sentAt)).toBe(false);
      expect(verify(secret, delivery.raw, { 'x-service-signature-v2': 'garbage' }, sentAt)).toBe(false);
      expect(verify(secret, delivery.raw, {}, sentAt)).toBe(false);
    } finally {
      cleanup();
    }
  });

  it('stores the signing secret sealed, and seals one stored in the clear at start-up with the same signatures (issue 48 §7)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: `${receiver.url}/sealed`, events: ['credential.revoked'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id, secret } = res.json() as { id: string; secret: string };
    const stored = await t.database.db
      .selectFrom('webhook_subscriptions')
      .select('secret')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain(secret.slice('whsec_'.length));
    expect(stored.secret).toMatch(/^v1\./);
    const secrets = createWebhookSecrets(t.config);
    expect(secrets.open(id, stored.secret)).toBe(secret);
    // Bound to its subscription: the same sealed text on another row does not open.
    expect(() => secrets.open(randomUUID(), stored.secret)).toThrow();

    // A subscription from before sealing: its secret in the clear until start-up seals it.
    const legacy = { id: randomUUID(), secret: `whsec_${'L'.repeat(32)}` };
    await t.database.db
      .insertInto('webhook_subscriptions')
      .values({
        id: legacy.id,
        issuer_id: issuer.id,
        url: `${receiver.url}/legacy`,
        events: JSON.stringify(['credential.revoked']),
        secret: legacy.secret,
        created_at: clock.now().toISOString(),
        deleted_at: null,
      })
      .execute();
    expect(await sealStoredSecrets(t.database.db, secrets)).toBe(1);
    expect(await sealStoredSecrets(t.database.db, secrets)).toBe(0);
    const sealed = await t.database.db
      .selectFrom('webhook_subscriptions')
      .select('secret')
      .where('id', '=', legacy.id)
      .executeTakeFirstOrThrow();
    expect(sealed.secret).not.toContain(legacy.secret);

    const before = receiver.requests.length;
    await t.database.db
      .transaction()
      .execute((trx) => t.app.services.outbox.enqueue(trx, issuer.id, 'credential.revoked', { credentialId: 'r' }));
    await t.app.services.webhooks.dispatcher.drain();
    const arrived = receiver.requests.slice(before);
    const byPath = (path: string) => arrived.find((r) => r.url.endsWith(path));
    const toSealed = byPath('/sealed');
    const toLegacy = byPath('/legacy');
    if (!toSealed || !toLegacy) throw new Error(`deliveries missing: ${arrived.map((r) => r.url).join(', ')}`);
    expect(signatureValid(secret, toSealed.raw, toSealed.headers['x-service-signature'])).toBe(true);
    expect(signatureValid(legacy.secret, toLegacy.raw, toLegacy.headers['x-service-signature'])).toBe(true);
    for (const subscription of [id, legacy.id]) {
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/webhooks/${subscription}`,
        headers: auth(issuer.key),
      });
      expect(removed.statusCode, removed.body).toBe(204);
    }
  });

  it('signs each attempt at the time it is sent, so a retry passes the receiver check hours later', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: receiver.url, events: ['credential.revoked'] },
    });
    expect(res.statusCode).toBe(201);
    const before = receiver.requests.length;
    receiver.behave((_i, reply) => reply.writeHead(500).end());
    await t.database.db
      .transaction()
      .execute((trx) => t.app.services.outbox.enqueue(trx, issuer.id, 'credential.revoked', { credentialId: 'r' }));
    await t.app.services.webhooks.dispatcher.drain();
    receiver.behave((_i, reply) => reply.writeHead(200).end());
    clock.advance(3 * 60 * 60 * 1000);
    await t.app.services.webhooks.dispatcher.drain();
    const [first, retry] = receiver.requests.slice(before);
    expect(retry?.raw.equals(first?.raw ?? Buffer.alloc(0))).toBe(true);
    expect(Number(retry?.headers['x-service-timestamp']) - Number(first?.headers['x-service-timestamp'])).toBe(
      3 * 60 * 60,
    );
  });
});
