import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDispatcher } from '../src/modules/webhooks/dispatcher.js';
import {
  blockedRange,
  HOST_NOT_ALLOWED,
  parseTargetUrl,
  resolveTarget,
  UnsafeTargetError,
} from '../src/modules/webhooks/ssrf.js';
import { createWebhookService } from '../src/modules/webhooks/webhooks.service.js';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { type Receiver, startReceiver } from './webhooks.support.js';

const REFUSED_AT_REGISTRATION: [url: string, reason: RegExp][] = [
  ['https://127.0.0.1/hook', /loopback address \(127\.0\.0\.1\)/],
  ['https://[::1]/hook', /loopback or IPv4-compatible address \(::1\)/],
  ['https://10.0.0.1/hook', /private address \(10\.0\.0\.1\)/],
  ['https://172.20.1.1/hook', /private address/],
  ['https://192.168.1.10/hook', /private address/],
  ['https://169.254.169.254/latest/meta-data', /link-local address \(169\.254\.169\.254\)/],
  ['https://[::ffff:127.0.0.1]/hook', /IPv4-mapped address/],
  ['https://[fe80::1]/hook', /link-local address/],
  ['https://[fd12:3456::1]/hook', /unique-local address/],
  ['https://2130706433/hook', /loopback address \(127\.0\.0\.1\)/],
  ['https://0x7f.1/hook', /loopback address \(127\.0\.0\.1\)/],
  ['https://0177.0.0.1/hook', /loopback address \(127\.0\.0\.1\)/],
  ['https://0.0.0.0/hook', /unspecified/],
  ['https://100.64.0.1/hook', /carrier-grade NAT/],
  ['https://224.0.0.1/hook', /multicast/],
  ['https://localhost/hook', /loopback host/],
  ['https://api.localhost/hook', /loopback host/],
  ['file:///etc/passwd', /must use https, not file/],
  ['gopher://hooks.example.com/_x', /must use https, not gopher/],
  ['http://hooks.example.com/hook', /must use https, not http/],
  ['https://user:pass@hooks.example.com/hook', /user name or password/],
];

describe('SSRF address policy', () => {
  it('names the range of every address webhooks may not reach', () => {
    const blocked: [string, string][] = [
      ['127.0.0.1', 'a loopback'],
      ['127.255.0.9', 'a loopback'],
      ['10.1.2.3', 'a private'],
      ['172.31.255.255', 'a private'],
      ['192.168.0.1', 'a private'],
      ['169.254.169.254', 'a link-local'],
      ['100.127.0.1', 'a carrier-grade NAT'],
      ['0.0.0.0', 'an unspecified ("this network")'],
      ['255.255.255.255', 'a reserved'],
      ['::1', 'an unspecified, loopback or IPv4-compatible'],
      ['::', 'an unspecified, loopback or IPv4-compatible'],
      ['::ffff:127.0.0.1', 'an IPv4-mapped'],
      ['::ffff:8.8.8.8', 'an IPv4-mapped'],
      ['fe80::abcd', 'a link-local'],
      ['fc00::1', 'a unique-local'],
      ['fd00:ec2::254', 'a unique-local'],
      ['ff02::1', 'a multicast'],
      ['64:ff9b::a00:1', 'a NAT64'],
    ];
    for (const [address, label] of blocked) expect(blockedRange(address), address).toBe(label);
    for (const address of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111']) {
      expect(blockedRange(address), address).toBeNull();
    }
  });

  it('refuses every address a host resolves to when any one of them is private', async () => {
    const url = parseTargetUrl('https://hooks.example.com/x', false);
    const twoFaced = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(resolveTarget(url, false, twoFaced)).rejects.toThrow(HOST_NOT_ALLOWED);
    await expect(resolveTarget(url, false, async () => [])).rejects.toThrow(HOST_NOT_ALLOWED);
    await expect(resolveTarget(url, false, async () => [{ address: '93.184.216.34', family: 4 }])).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
    await expect(resolveTarget(url, true, twoFaced)).resolves.toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('lets the operator opt into http and private targets, but never other schemes', () => {
    expect(parseTargetUrl('http://127.0.0.1:8080/x', true).href).toBe('http://127.0.0.1:8080/x');
    expect(() => parseTargetUrl('file:///etc/passwd', true)).toThrow(/https \(or http in development\), not file/);
    expect(() => parseTargetUrl('gopher://127.0.0.1/', true)).toThrow(UnsafeTargetError);
  });
});

describe.each(dialects)('webhook SSRF guard on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    issuer = await t.issuer();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('refuses private, loopback, link-local, mapped and encoded addresses and other schemes at registration', async () => {
    for (const [url, reason] of REFUSED_AT_REGISTRATION) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: auth(issuer.key),
        payload: { url, events: ['credential.issued'] },
      });
      const body = expectErrorBody(res, 400, 'validation_failed');
      if (url.startsWith('https://')) {
        expect(body.message, url).toMatch(reason);
        expect(body.issues).toEqual([{ path: '/url', message: body.message, code: 'webhook_url' }]);
      } else {
        // Another scheme never reaches the guard: the schema itself says https (the contract audit).
        expect(body.issues, url).toEqual([expect.objectContaining({ path: '/url', code: 'pattern' })]);
        expect(() => parseTargetUrl(url, false), url).toThrow(reason);
      }
    }
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: auth(issuer.key) });
    expect(list.json()).toEqual([]);
  });

  it('refuses a public-looking host that resolves to a private address at registration, without saying what it resolves to', async () => {
    for (const address of ['192.168.7.7', '127.0.0.1', '169.254.169.254', 'fd00::7']) {
      const service = createWebhookService(t.app.core, {
        audit: t.app.services.audit,
        lookup: async () => [{ address, family: address.includes(':') ? 6 : 4 }],
      });
      const refusal = await service
        .create(issuer.id, 'cli', { url: 'https://vm/x', events: ['credential.issued'] })
        .then(
          () => null,
          (err: unknown) => err as { code: string; message: string },
        );
      expect(refusal).toMatchObject({ code: 'validation_failed', message: HOST_NOT_ALLOWED });
      expect(JSON.stringify(refusal)).not.toContain(address);
      expect(refusal?.message).not.toMatch(/resolves|loopback|private|link-local/);
    }
    const dnsDown = createWebhookService(t.app.core, {
      audit: t.app.services.audit,
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    const accepted = await dnsDown.create(issuer.id, 'cli', {
      url: 'https://later.example.com/x',
      events: ['credential.issued'],
    });
    expect(accepted.url).toBe('https://later.example.com/x');
    await dnsDown.remove(issuer.id, 'cli', accepted.id);
  });

  it('resolves again at delivery and never connects when the host now points at loopback (DNS rebinding)', async () => {
    const registration = createWebhookService(t.app.core, {
      audit: t.app.services.audit,
      lookup: async () => [{ address: '93.184.216.34', family: 4 }],
    });
    const sub = await registration.create(issuer.id, 'cli', {
      url: `https://rebind.example.com:${receiver.port}/hook`,
      events: ['credential.issued'],
    });
    await t.database.db
      .transaction()
      .execute((trx) => t.app.services.outbox.enqueue(trx, issuer.id, 'credential.issued', { credentialId: 'c' }));
    const rebound = createWebhookDispatcher(t.app.core, {
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(await rebound.runOnce()).toBe(1);
    expect(receiver.connections()).toBe(0);
    const row = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(row.last_error).toBe(`refused: ${HOST_NOT_ALLOWED}`);
  });

  it('checks the stored URL again at delivery, so a row written while private targets were allowed is not sent', async () => {
    await t.database.db
      .insertInto('webhook_subscriptions')
      .values({
        id: 'b7d9a3a0-4c1e-4f55-9a43-0c6f1e2d3b4a',
        issuer_id: issuer.id,
        url: receiver.url,
        events: JSON.stringify(['credential.revoked']),
        secret: 'whsec_x',
        created_at: new Date().toISOString(),
        deleted_at: null,
      })
      .execute();
    await t.database.db
      .transaction()
      .execute((trx) => t.app.services.outbox.enqueue(trx, issuer.id, 'credential.revoked', { credentialId: 'c' }));
    expect(await t.app.services.webhooks.dispatcher.runOnce()).toBe(1);
    expect(receiver.connections()).toBe(0);
    const row = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('last_error')
      .where('subscription_id', '=', 'b7d9a3a0-4c1e-4f55-9a43-0c6f1e2d3b4a')
      .executeTakeFirstOrThrow();
    expect(row.last_error).toBe('refused: The webhook URL must use https, not http.');
  });
});
