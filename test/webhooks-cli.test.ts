import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli.js';
import { createWebhookDispatcher } from '../src/modules/webhooks/dispatcher.js';
import { DELIVERY_HEADER, DELIVERY_LEASE_MS } from '../src/modules/webhooks/webhooks.constants.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { answer, type Receiver, startReceiver } from './webhooks.support.js';

describe.each(dialects)('webhooks console and worker on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let receiver: Receiver | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
    env = {
      DATABASE_URL: t.testDb.url,
      PUBLIC_BASE_URL: 'https://badges.test',
      LOG_LEVEL: 'warn',
      BOOTSTRAP_ISSUER: 'false',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // The worker opens the sealed signing secrets with the same key-encryption key as the app.
      ...(t.config.signingKeySecret ? { SIGNING_KEY_SECRET: t.config.signingKeySecret } : {}),
    };
  });
  afterAll(async () => t.close());
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
    await t.database.db
      .updateTable('webhook_subscriptions')
      .set({ deleted_at: new Date().toISOString() })
      .where('deleted_at', 'is', null)
      .execute();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  async function cli(argv: string[], extraEnv: Record<string, string> = {}) {
    for (const [name, value] of Object.entries({ ...env, ...extraEnv })) vi.stubEnv(name, value);
    const lines: string[] = [];
    const errors: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      errors.push(String(chunk));
      return true;
    });
    const code = await runCli(argv, (line) => lines.push(line));
    stderr.mockRestore();
    return { code, lines, errors };
  }

  it('adds, lists and removes subscriptions, printing the secret once', async () => {
    const added = await cli([
      'webhooks',
      'add',
      '--issuer',
      issuer.slug,
      '--url',
      'http://127.0.0.1:9/cli',
      '--events',
      'credential.issued, credential.expired',
    ]);
    expect(added.code).toBe(0);
    expect(added.lines[0]).toMatch(
      /^Created webhook [0-9a-f-]{36} -> http:\/\/127\.0\.0\.1:9\/cli for credential\.issued, credential\.expired\.$/,
    );
    const secret = /(whsec_[A-Za-z0-9_-]{32})$/.exec(added.lines[1] ?? '')?.[1];
    expect(secret).toBeDefined();
    const id = /webhook ([0-9a-f-]{36})/.exec(added.lines[0] ?? '')?.[1] ?? '';

    const api = await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}`, headers: auth(issuer.key) });
    expect(api.json()).toMatchObject({ id, events: ['credential.issued', 'credential.expired'] });

    const listed = await cli(['webhooks', 'list', '--issuer', issuer.slug]);
    expect(listed.code).toBe(0);
    expect(listed.lines).toEqual([
      'ID\tURL\tEVENTS\tCREATED',
      expect.stringMatching(new RegExp(`^${id}\thttp://127.0.0.1:9/cli\tcredential.issued,credential.expired\t`)),
    ]);
    expect(listed.lines.join('\n')).not.toContain(secret);

    const removed = await cli(['webhooks', 'remove', '--issuer', issuer.slug, '--id', id]);
    expect(removed).toMatchObject({ code: 0, lines: [`Webhook ${id} removed; its undelivered events are cancelled.`] });
    expect((await cli(['webhooks', 'list', '--issuer', issuer.slug])).lines).toEqual(['No webhooks.']);
    const again = await cli(['webhooks', 'remove', '--issuer', issuer.slug, '--id', id]);
    expect(again.code).toBe(1);
    expect(again.errors.join('')).toContain('Webhook not found.');
  });

  it('refuses unsafe URLs, unknown events and missing options', async () => {
    const privateUrl = await cli(
      ['webhooks', 'add', '--issuer', issuer.slug, '--url', 'https://10.0.0.1/x', '--events', 'credential.issued'],
      { WEBHOOK_ALLOW_PRIVATE: 'false' },
    );
    expect(privateUrl.code).toBe(1);
    expect(privateUrl.errors.join('')).toContain('private address (10.0.0.1)');
    const unknownEvent = await cli([
      'webhooks',
      'add',
      '--issuer',
      issuer.slug,
      '--url',
      'http://127.0.0.1:9/x',
      '--events',
      'credential.deleted',
    ]);
    expect(unknownEvent.code).toBe(1);
    expect(unknownEvent.errors.join('')).toContain('Unknown event credential.deleted');
    const missing = await cli(['webhooks', 'add', '--issuer', issuer.slug, '--url', 'http://127.0.0.1:9/x']);
    expect(missing.code).toBe(64);
    expect(missing.errors.join('')).toContain('--events is required');
    expect((await cli(['webhooks', 'frobnicate'])).code).toBe(64);
  });

  function startWorker(): { child: ChildProcess; output: () => string } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'worker'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    return { child, output: () => output };
  }

  async function subscribeAndEmit(url: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url, events: ['credential.revoked'] },
    });
    const sub = res.json() as { id: string };
    await t.database.db
      .transaction()
      .execute((trx) => t.app.services.outbox.enqueue(trx, issuer.id, 'credential.revoked', { credentialId: 'w' }));
    return sub.id;
  }

  async function onlyDelivery(subscriptionId: string) {
    return t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
  }

  it('`accolade worker` delivers, and on SIGTERM finishes the delivery in flight before exiting 0', async () => {
    receiver = await startReceiver((i, res) => setTimeout(() => answer(200)(i, res), 300));
    const subscriptionId = await subscribeAndEmit(receiver.url);
    const worker = startWorker();
    await receiver.waitFor(1, 20_000);
    worker.child.kill('SIGTERM');
    const [code] = await once(worker.child, 'exit');
    expect(code, worker.output()).toBe(0);
    expect(worker.output()).toContain('SIGTERM received: finishing deliveries in flight.');
    expect(worker.output()).toContain('Worker stopped.');
    expect(await onlyDelivery(subscriptionId)).toMatchObject({
      status: 'delivered',
      attempts: 1,
      last_status_code: 200,
    });
  });

  it('a worker killed mid-delivery leaves the row to the next worker, which delivers it with the same id', async () => {
    receiver = await startReceiver((i, res) => {
      if (i > 0) answer(200)(i, res);
    });
    const subscriptionId = await subscribeAndEmit(receiver.url);
    const worker = startWorker();
    await receiver.waitFor(1, 20_000);
    worker.child.kill('SIGKILL');
    await once(worker.child, 'exit');

    const orphaned = await onlyDelivery(subscriptionId);
    expect(orphaned).toMatchObject({ status: 'delivering', attempts: 0 });
    expect(Date.parse(orphaned.locked_until ?? '')).toBeGreaterThan(Date.now());

    const afterLease = { now: () => new Date(Date.now() + DELIVERY_LEASE_MS + 1000) };
    const next = createWebhookDispatcher({ ...t.app.core, clock: afterLease });
    expect(await next.runOnce()).toBe(1);
    expect(await onlyDelivery(subscriptionId)).toMatchObject({ status: 'delivered', attempts: 1 });
    const ids = receiver.requests.map((r) => r.headers[DELIVERY_HEADER.toLowerCase()]);
    expect(ids).toEqual([orphaned.id, orphaned.id]);
  });
});
