import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { publicUrls } from '../src/core/urls.js';
import { createDatabase } from '../src/db/database.js';
import { createWebhookDispatcher } from '../src/modules/webhooks/dispatcher.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../src/modules/webhooks/outbox.service.js';
import {
  DELIVERY_HEADER,
  DELIVERY_TIMEOUT_MS,
  EVENT_HEADER,
  RETRY_SCHEDULE,
  SIGNATURE_HEADER,
  SIGNATURE_V2_HEADER,
  TIMESTAMP_HEADER,
  USER_AGENT,
} from '../src/modules/webhooks/webhooks.constants.js';
import {
  credentialEventData,
  EVENT_DATA_SCHEMAS,
  REMINDERS_PATH,
  reminderDueEventData,
  verifiedEventData,
} from '../src/modules/webhooks/webhooks.events.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import {
  answer,
  insertCredential,
  insertDefinition,
  type Receiver,
  signatureValid,
  startReceiver,
} from './webhooks.support.js';

const UNIT_MS = 1000;

const ajv = new Ajv({ allErrors: true, strict: false });
(formats as unknown as typeof formats.default)(ajv);
const validators = new Map(WEBHOOK_EVENTS.map((event) => [event, ajv.compile(EVENT_DATA_SCHEMAS[event])]));

/** The errors of `data` against the documented schema of `event`'s data (empty when it conforms). */
function dataErrors(event: WebhookEvent, data: unknown) {
  const validate = validators.get(event);
  if (!validate) throw new Error(`no schema for ${event}`);
  return validate(data) ? [] : validate.errors;
}

describe.each(dialects)('webhooks on %s', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let issuer: TestIssuer;
  let other: TestIssuer;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock, env: { WEBHOOK_BACKOFF_UNIT_MS: String(UNIT_MS) } });
    issuer = await t.issuer();
    other = await t.issuer();
  });
  afterAll(async () => t.close());
  afterEach(async () => {
    await receiver?.close();
    // Nothing one test subscribes or leaves undelivered may reach the next one.
    await t.database.db
      .updateTable('webhook_subscriptions')
      .set({ deleted_at: clock.now().toISOString() })
      .where('deleted_at', 'is', null)
      .execute();
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ status: 'cancelled' })
      .where('status', 'in', ['pending', 'delivering'])
      .execute();
  });

  async function subscribe(url: string, events: readonly string[] = WEBHOOK_EVENTS, key = issuer.key) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(key),
      payload: { url, events },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; url: string; events: string[]; createdAt: string; secret: string };
  }

  async function credentialData(fields: Parameters<typeof insertCredential>[3] = {}) {
    const definition = await insertDefinition(t.database, issuer.id);
    const row = await insertCredential(t.database, issuer.id, definition.id, fields);
    return { row, withSlugs: { ...row, issuer_slug: issuer.slug, definition_slug: definition.slug } };
  }

  async function emit(event: WebhookEvent, data: Record<string, unknown>, issuerId = issuer.id) {
    await t.database.db.transaction().execute((trx) => t.app.services.outbox.enqueue(trx, issuerId, event, data));
  }

  async function deliveryRows(subscriptionId: string) {
    return t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .orderBy('created_at')
      .execute();
  }

  describe('subscriptions API', () => {
    it('creates a subscription and shows its secret only once', async () => {
      receiver = await startReceiver();
      const created = await subscribe(receiver.url, ['credential.issued', 'credential.revoked']);
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: receiver.url,
        events: ['credential.issued', 'credential.revoked'],
        createdAt: clock.now().toISOString(),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
      });
      const one = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${created.id}`,
        headers: auth(issuer.key),
      });
      expect(one.statusCode).toBe(200);
      const { secret: _secret, ...withoutSecret } = created;
      expect(one.json()).toEqual(withoutSecret);
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: auth(issuer.key) });
      expect(list.json()).toContainEqual(withoutSecret);
      expect(list.body).not.toContain(created.secret);
      expect(one.body).not.toContain(created.secret);
    });

    it('refuses unknown events, empty event lists, bad URLs and unknown fields with 400', async () => {
      const cases = [
        { url: 'https://hooks.example.com/x', events: ['credential.deleted'] },
        { url: 'https://hooks.example.com/x', events: [] },
        { url: 'https://hooks.example.com/x' },
        { url: 'not a url', events: ['credential.issued'] },
        { url: 'ftp://hooks.example.com/x', events: ['credential.issued'] },
        { url: 'https://hooks.example.com/x', events: ['credential.issued'], secret: 'mine' },
      ];
      for (const payload of cases) {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(issuer.key), payload });
        const body = expectErrorBody(res, 400, 'validation_failed');
        expect((body.issues as unknown[]).length, JSON.stringify(payload)).toBeGreaterThan(0);
      }
    });

    it('requires a key on every subscription route', async () => {
      const id = '00000000-0000-4000-8000-000000000000';
      await expectKeyRequired(t.app, {
        method: 'POST',
        url: '/api/v1/webhooks',
        payload: { url: 'https://hooks.example.com/x', events: ['credential.issued'] },
      });
      await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/webhooks' });
      await expectKeyRequired(t.app, { method: 'GET', url: `/api/v1/webhooks/${id}` });
      await expectKeyRequired(t.app, { method: 'DELETE', url: `/api/v1/webhooks/${id}` });
      await expectKeyRequired(t.app, { method: 'GET', url: `/api/v1/webhooks/${id}/deliveries` });
    });

    it("answers another issuer's subscription exactly like a missing one", async () => {
      receiver = await startReceiver();
      const mine = await subscribe(receiver.url);
      const missing = '11111111-1111-4111-8111-111111111111';
      for (const [method, suffix] of [
        ['GET', ''],
        ['GET', '/deliveries'],
        ['DELETE', ''],
      ] as const) {
        await expectHiddenFromOtherIssuer(
          t.app,
          other.key,
          { method, url: `/api/v1/webhooks/${mine.id}${suffix}` },
          { method, url: `/api/v1/webhooks/${missing}${suffix}` },
        );
      }
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: auth(other.key) });
      expect(list.json()).toEqual([]);
      const still = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${mine.id}`,
        headers: auth(issuer.key),
      });
      expect(still.statusCode).toBe(200);
    });

    it('deletes a subscription softly and cancels what it had not delivered', async () => {
      receiver = await startReceiver();
      const sub = await subscribe(receiver.url);
      const { withSlugs } = await credentialData();
      await emit('credential.issued', credentialEventData(publicUrls(t.config.publicBaseUrl), withSlugs, clock.now()));
      const del = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/webhooks/${sub.id}`,
        headers: auth(issuer.key),
      });
      expect(del.statusCode).toBe(204);
      expect(del.body).toBe('');
      expect((await deliveryRows(sub.id)).map((r) => r.status)).toEqual(['cancelled']);
      for (const url of [`/api/v1/webhooks/${sub.id}`, `/api/v1/webhooks/${sub.id}/deliveries`]) {
        expectErrorBody(await t.app.inject({ method: 'GET', url, headers: auth(issuer.key) }), 404, 'not_found');
      }
      const hugeOffset = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${sub.id}/deliveries?offset=1e308`,
        headers: auth(issuer.key),
      });
      expectErrorBody(hugeOffset, 400, 'validation_failed');
      const again = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/webhooks/${sub.id}`,
        headers: auth(issuer.key),
      });
      expectErrorBody(again, 404, 'not_found');
      await emit('credential.issued', credentialEventData(publicUrls(t.config.publicBaseUrl), withSlugs, clock.now()));
      expect(await t.app.services.webhooks.dispatcher.drain()).toBe(0);
      expect(receiver.connections()).toBe(0);
      expect(await deliveryRows(sub.id)).toHaveLength(1);
    });

    it('cancels, rather than sends, a row whose subscription was deleted after it was written', async () => {
      receiver = await startReceiver();
      const sub = await subscribe(receiver.url);
      await emit('credential.issued', { credentialId: 'x' });
      // The delete commits between the outbox insert and the dispatcher's claim.
      await t.database.db
        .updateTable('webhook_subscriptions')
        .set({ deleted_at: clock.now().toISOString() })
        .where('id', '=', sub.id)
        .execute();
      expect(await t.app.services.webhooks.dispatcher.runOnce()).toBe(0);
      expect(receiver.connections()).toBe(0);
      expect((await deliveryRows(sub.id)).map((r) => r.status)).toEqual(['cancelled']);
    });

    it('lists deliveries latest first with paging, and validates the query', async () => {
      receiver = await startReceiver();
      const sub = await subscribe(receiver.url);
      await emit('credential.issued', { n: 1 });
      clock.advance(1000);
      await emit('credential.revoked', { n: 2 });
      await t.app.services.webhooks.dispatcher.drain();
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${sub.id}/deliveries?limit=1`,
        headers: auth(issuer.key),
      });
      expect(res.statusCode).toBe(200);
      const page = res.json() as { total: number; limit: number; offset: number; items: Record<string, unknown>[] };
      expect(page).toMatchObject({ total: 2, limit: 1, offset: 0 });
      expect(page.items).toEqual([
        {
          id: receiver.requests.find((r) => r.headers[EVENT_HEADER.toLowerCase()] === 'credential.revoked')?.headers[
            DELIVERY_HEADER.toLowerCase()
          ],
          event: 'credential.revoked',
          status: 'delivered',
          attempts: 1,
          lastStatusCode: 200,
          lastError: null,
          nextAttemptAt: null,
          createdAt: clock.now().toISOString(),
          deliveredAt: clock.now().toISOString(),
        },
      ]);
      const second = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${sub.id}/deliveries?limit=1&offset=1`,
        headers: auth(issuer.key),
      });
      expect((second.json() as typeof page).items[0]?.event).toBe('credential.issued');
      const bad = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${sub.id}/deliveries?limit=0`,
        headers: auth(issuer.key),
      });
      expectErrorBody(bad, 400, 'validation_failed');
    });
  });

  it('documents every webhook operation in the OpenAPI document, keyed except the catalogue', () => {
    const paths = t.app.swagger().paths ?? {};
    const operations = [
      ['/api/v1/webhooks', 'post', 'createWebhook'],
      ['/api/v1/webhooks', 'get', 'listWebhooks'],
      ['/api/v1/webhooks/{id}', 'get', 'getWebhook'],
      ['/api/v1/webhooks/{id}', 'delete', 'deleteWebhook'],
      ['/api/v1/webhooks/{id}/deliveries', 'get', 'listWebhookDeliveries'],
      ['/api/v1/webhooks/catalog', 'get', 'getWebhookCatalog'],
    ] as const;
    for (const [path, method, operationId] of operations) {
      const operation = paths[path]?.[method];
      expect(operation, `${method} ${path}`).toMatchObject({ operationId, tags: ['Webhooks'] });
      if (operationId === 'getWebhookCatalog') expect(operation?.security).toEqual([]);
      else expect(operation?.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }, { consoleSession: [] }]);
    }
  });

  describe('catalogue', () => {
    it('is open and publishes exactly what the dispatcher sends', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks/catalog' });
      expect(res.statusCode).toBe(200);
      const catalog = res.json() as {
        signature: Record<string, string>;
        headers: Record<string, string>;
        retry: { maxAttempts: number; backoffMinutes: number[]; note: string };
        events: {
          event: WebhookEvent;
          description: string;
          sample: { id: string; event: string; occurredAt: string; data: unknown };
        }[];
      };
      expect(catalog.signature).toEqual({
        header: SIGNATURE_HEADER,
        scheme: 'sha256',
        algorithm: 'HMAC-SHA256',
        signedOver: expect.stringContaining('raw request body'),
        v2: {
          header: SIGNATURE_V2_HEADER,
          timestampHeader: TIMESTAMP_HEADER,
          format: 't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>',
          signedOver: expect.stringContaining('300 seconds'),
          toleranceSeconds: 300,
        },
      });
      expect(catalog.retry.maxAttempts).toBe(RETRY_SCHEDULE.maxAttempts);
      expect(catalog.retry.backoffMinutes).toEqual([...RETRY_SCHEDULE.backoffMinutes]);
      expect(catalog.retry.backoffMinutes).toEqual([1, 5, 15, 60, 180, 720, 1440]);
      expect(catalog.retry.maxAttempts).toBe(8);
      expect(catalog.retry.note).toContain(DELIVERY_HEADER);
      expect(catalog.retry.note).toContain('occurredAt');
      expect(catalog.retry.note).toContain(`${DELIVERY_TIMEOUT_MS / 1000} seconds`);
      expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
      expect(catalog.events.map((e) => e.event)).toEqual([...WEBHOOK_EVENTS]);
      for (const { event, description, sample } of catalog.events) {
        expect(description.length).toBeGreaterThan(20);
        expect(sample).toMatchObject({ event, id: expect.any(String), occurredAt: expect.any(String) });
        expect(dataErrors(event, sample.data), event).toEqual([]);
        expect(JSON.stringify(sample.data)).toContain(t.config.publicBaseUrl);
      }

      // The headers a real delivery carries are the ones the catalogue lists, with the same values.
      receiver = await startReceiver();
      await subscribe(receiver.url, ['credential.issued']);
      await emit('credential.issued', { credentialId: 'c' });
      await t.app.services.webhooks.dispatcher.drain();
      const sent = receiver.requests[0]?.headers ?? {};
      const listed = [SIGNATURE_HEADER, SIGNATURE_V2_HEADER, TIMESTAMP_HEADER, EVENT_HEADER, DELIVERY_HEADER];
      for (const name of [...listed, 'Content-Type', 'User-Agent']) {
        expect(Object.keys(catalog.headers)).toContain(name);
        expect(sent[name.toLowerCase()], name).toBeDefined();
      }
      expect(sent['user-agent']).toBe(catalog.headers['User-Agent']);
      expect(sent['user-agent']).toBe(USER_AGENT);
      expect(sent['content-type']).toBe(catalog.headers['Content-Type']);
      expect(sent[SIGNATURE_HEADER.toLowerCase()]).toMatch(/^sha256=[0-9a-f]{64}$/);
    });
  });

  describe('delivery', () => {
    it('delivers every event type signed over the raw bytes, with the documented data and no personal data', async () => {
      receiver = await startReceiver();
      const sub = await subscribe(receiver.url);
      const links = publicUrls(t.config.publicBaseUrl);
      const original = await credentialData({ revoked_at: '2026-11-21T09:00:00.000Z', revoked_reason: 'reissued' });
      const replacement = await credentialData({ source: 'reissue', reissued_from: original.row.id });
      const expired = await credentialData({
        issued_on: '2025-01-01T00:00:00.000Z',
        expires_on: '2026-01-01T00:00:00.000Z',
      });
      const expiring = await credentialData({ expires_on: '2026-12-01T10:00:00.000Z' });
      const now = clock.now();
      const emitted: Record<WebhookEvent, Record<string, unknown>> = {
        'credential.issued': credentialEventData(links, replacement.withSlugs, now),
        'credential.revoked': credentialEventData(links, original.withSlugs, now),
        'credential.reissued': credentialEventData(links, replacement.withSlugs, now),
        'credential.expired': credentialEventData(links, expired.withSlugs, now),
        'credential.expiry_reminder_due': reminderDueEventData(
          links,
          { ...expiring.withSlugs, expires_on: '2026-12-01T10:00:00.000Z' },
          now,
          { days: 30, url: `${t.config.publicBaseUrl}${REMINDERS_PATH}` },
        ),
        'credential.verified': verifiedEventData(links, replacement.withSlugs, now, 'bulk'),
      };
      for (const event of WEBHOOK_EVENTS) await emit(event, emitted[event]);
      expect(await t.app.services.webhooks.dispatcher.drain()).toBe(WEBHOOK_EVENTS.length);

      const rows = await deliveryRows(sub.id);
      expect(rows.map((r) => r.status)).toEqual(WEBHOOK_EVENTS.map(() => 'delivered'));
      expect(receiver.requests).toHaveLength(WEBHOOK_EVENTS.length);
      for (const request of receiver.requests) {
        expect(request.method).toBe('POST');
        expect(request.url).toBe('/hooks');
        expect(signatureValid(sub.secret, request.raw, request.headers[SIGNATURE_HEADER.toLowerCase()])).toBe(true);
        const tampered = Buffer.from(request.raw);
        tampered[tampered.length - 2] = (tampered[tampered.length - 2] ?? 0) ^ 1;
        expect(signatureValid(sub.secret, tampered, request.headers[SIGNATURE_HEADER.toLowerCase()])).toBe(false);
        expect(signatureValid('whsec_wrong', request.raw, request.headers[SIGNATURE_HEADER.toLowerCase()])).toBe(false);

        const envelope = JSON.parse(request.raw.toString('utf8')) as {
          id: string;
          event: WebhookEvent;
          occurredAt: string;
          data: Record<string, unknown>;
        };
        const row = rows.find((r) => r.id === request.headers[DELIVERY_HEADER.toLowerCase()]);
        expect(row?.payload).toBe(request.raw.toString('utf8'));
        expect(Object.keys(envelope)).toEqual(['id', 'event', 'occurredAt', 'data']);
        expect(request.headers[EVENT_HEADER.toLowerCase()]).toBe(envelope.event);
        expect(envelope.occurredAt).toBe(now.toISOString());
        expect(envelope.data).toEqual(emitted[envelope.event]);
        expect(dataErrors(envelope.event, envelope.data)).toEqual([]);
        const text = request.raw.toString('utf8');
        for (const personal of ['Ada', 'Lovelace', original.row.recipient_hash, replacement.row.recipient_hash, '@']) {
          expect(text).not.toContain(personal);
        }
      }
      const byEvent = (e: WebhookEvent) =>
        receiver.requests.map((r) => JSON.parse(r.raw.toString('utf8'))).find((env) => env.event === e)?.data;
      expect(byEvent('credential.revoked')).toMatchObject({ status: 'revoked', revokedReason: 'reissued' });
      expect(byEvent('credential.reissued')).toMatchObject({ reissuedFrom: original.row.id, source: 'reissue' });
      expect(byEvent('credential.expired')).toMatchObject({ status: 'expired', expiresOn: '2026-01-01T00:00:00.000Z' });
      expect(byEvent('credential.verified')).toMatchObject({ channel: 'bulk', status: 'valid' });
      expect(byEvent('credential.expiry_reminder_due')).toMatchObject({
        status: 'valid',
        completionKey: expiring.row.completion_key,
        reminderDays: 30,
        remindersUrl: 'https://badges.test/api/v1/notifications/reminders',
      });
      expect(byEvent('credential.issued')).toMatchObject({
        assertionUrl: `https://badges.test/v1/issuers/${issuer.slug}/assertions/${replacement.row.id}`,
        verifyUrl: `https://badges.test/verify/${issuer.slug}/${replacement.row.id}`,
      });
    });

    it('sends nothing for events the subscription did not ask for, nor to other issuers', async () => {
      receiver = await startReceiver();
      const sub = await subscribe(receiver.url, ['credential.issued']);
      await emit('credential.revoked', { credentialId: 'r' });
      await emit('credential.verified', { credentialId: 'v' });
      await emit('credential.issued', { credentialId: 'o' }, other.id);
      expect(await deliveryRows(sub.id)).toHaveLength(0);
      await t.app.services.webhooks.dispatcher.drain();
      expect(receiver.requests).toHaveLength(0);
      await emit('credential.issued', { credentialId: 'i' });
      await t.app.services.webhooks.dispatcher.drain();
      expect(receiver.requests.map((r) => r.headers[EVENT_HEADER.toLowerCase()])).toEqual(['credential.issued']);
    });

    it('retries a receiver that fails twice, with one delivery id and identical bytes, on the schedule', async () => {
      receiver = await startReceiver((i, res) => answer(i < 2 ? 503 : 200)(i, res));
      const sub = await subscribe(receiver.url, ['credential.issued']);
      const { dispatcher } = t.app.services.webhooks;
      await emit('credential.issued', { credentialId: 'retry' });

      expect(await dispatcher.runOnce()).toBe(1);
      let [row] = await deliveryRows(sub.id);
      expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 503, last_error: 'HTTP 503' });
      expect(row?.next_attempt_at).toBe(new Date(clock.now().getTime() + 1 * UNIT_MS).toISOString());
      expect(await dispatcher.runOnce()).toBe(0);

      clock.advance(1 * UNIT_MS);
      expect(await dispatcher.runOnce()).toBe(1);
      [row] = await deliveryRows(sub.id);
      expect(row).toMatchObject({ status: 'pending', attempts: 2 });
      expect(row?.next_attempt_at).toBe(new Date(clock.now().getTime() + 5 * UNIT_MS).toISOString());

      clock.advance(5 * UNIT_MS);
      expect(await dispatcher.runOnce()).toBe(1);
      [row] = await deliveryRows(sub.id);
      expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, last_error: null });
      expect(row?.delivered_at).toBe(clock.now().toISOString());

      expect(receiver.requests).toHaveLength(3);
      const ids = new Set(receiver.requests.map((r) => r.headers[DELIVERY_HEADER.toLowerCase()]));
      expect([...ids]).toEqual([row?.id]);
      expect(new Set(receiver.requests.map((r) => r.raw.toString('hex'))).size).toBe(1);
      expect(new Set(receiver.requests.map((r) => r.headers[SIGNATURE_HEADER.toLowerCase()])).size).toBe(1);
    });

    it('marks a delivery failed after maxAttempts, waiting backoffMinutes between attempts', async () => {
      receiver = await startReceiver(answer(500));
      const sub = await subscribe(receiver.url, ['credential.issued']);
      const { dispatcher } = t.app.services.webhooks;
      await emit('credential.issued', { credentialId: 'doomed' });
      for (let attempt = 1; attempt <= RETRY_SCHEDULE.maxAttempts; attempt++) {
        expect(await dispatcher.runOnce(), `attempt ${attempt}`).toBe(1);
        const [row] = await deliveryRows(sub.id);
        expect(row?.attempts).toBe(attempt);
        if (attempt < RETRY_SCHEDULE.maxAttempts) {
          const wait = (RETRY_SCHEDULE.backoffMinutes[attempt - 1] ?? 0) * UNIT_MS;
          expect(row?.status).toBe('pending');
          expect(row?.next_attempt_at).toBe(new Date(clock.now().getTime() + wait).toISOString());
          clock.advance(wait - 1);
          expect(await dispatcher.runOnce(), 'not due yet').toBe(0);
          clock.advance(1);
        } else {
          expect(row).toMatchObject({ status: 'failed', last_status_code: 500, last_error: 'HTTP 500' });
        }
      }
      clock.advance(1000 * UNIT_MS);
      expect(await dispatcher.runOnce()).toBe(0);
      expect(receiver.requests).toHaveLength(8);
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${sub.id}/deliveries`,
        headers: auth(issuer.key),
      });
      expect((res.json() as { items: unknown[] }).items).toEqual([
        expect.objectContaining({
          status: 'failed',
          attempts: 8,
          lastStatusCode: 500,
          nextAttemptAt: null,
          deliveredAt: null,
        }),
      ]);
    });

    it('gives up on a receiver that does not answer within the timeout', async () => {
      receiver = await startReceiver(() => undefined);
      const sub = await subscribe(receiver.url, ['credential.issued']);
      const dispatcher = createWebhookDispatcher(t.app.core, { timeoutMs: 200 });
      await emit('credential.issued', { credentialId: 'slow' });
      // The receiver never answers: without the timeout runOnce would not return at all. The test's
      // own bound (vitest's) catches that; no wall-clock figure, which a loaded machine would move.
      expect(await dispatcher.runOnce()).toBe(1);
      const [row] = await deliveryRows(sub.id);
      expect(row).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_status_code: null,
        last_error: 'timed out after 200 ms',
      });
      expect(receiver.requests).toHaveLength(1);
    });

    it('reads only the first bytes of an endless answer', async () => {
      receiver = await startReceiver((_i, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const timer = setInterval(() => res.write(chunk), 5);
        res.on('close', () => clearInterval(timer));
      });
      const sub = await subscribe(receiver.url, ['credential.issued']);
      // A timeout far beyond the test's bound: reading the endless answer to its end (or until the
      // timeout) would fail the test, however fast or slow the machine is.
      const dispatcher = createWebhookDispatcher(t.app.core, { timeoutMs: 600_000 });
      await emit('credential.issued', { credentialId: 'chatty' });
      await dispatcher.runOnce();
      expect((await deliveryRows(sub.id))[0]).toMatchObject({ status: 'delivered', last_status_code: 200 });
    });

    it('does not follow redirects', async () => {
      const canary = await startReceiver();
      receiver = await startReceiver((_i, res) => {
        res.writeHead(302, { location: canary.url });
        res.end();
      });
      const sub = await subscribe(receiver.url, ['credential.issued']);
      await emit('credential.issued', { credentialId: 'moved' });
      await t.app.services.webhooks.dispatcher.runOnce();
      expect((await deliveryRows(sub.id))[0]).toMatchObject({
        status: 'pending',
        last_status_code: 302,
        last_error: 'HTTP 302 (redirects are not followed)',
      });
      expect(canary.connections()).toBe(0);
      await canary.close();
    });

    it('records a refused connection as a failed attempt', async () => {
      receiver = await startReceiver();
      const url = receiver.url;
      await receiver.close();
      const sub = await subscribe(url, ['credential.issued']);
      await emit('credential.issued', { credentialId: 'gone' });
      await t.app.services.webhooks.dispatcher.runOnce();
      expect((await deliveryRows(sub.id))[0]).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_status_code: null,
        last_error: 'connection failed (ECONNREFUSED)',
      });
    });

    it('connects to the address its own lookup resolved, not to a second resolution', async () => {
      receiver = await startReceiver();
      const looked: string[] = [];
      const dispatcher = createWebhookDispatcher(t.app.core, {
        lookup: async (host) => {
          looked.push(host);
          return [{ address: '127.0.0.1', family: 4 }];
        },
      });
      const sub = await subscribe(`http://receiver.webhooks.invalid:${receiver.port}/pinned`, ['credential.issued']);
      await emit('credential.issued', { credentialId: 'pinned' });
      expect(await dispatcher.runOnce()).toBe(1);
      expect(looked).toEqual(['receiver.webhooks.invalid']);
      expect(receiver.requests[0]?.url).toBe('/pinned');
      expect(receiver.requests[0]?.headers.host).toBe(`receiver.webhooks.invalid:${receiver.port}`);
      expect((await deliveryRows(sub.id))[0]?.status).toBe('delivered');
    });

    it('retries a row whose worker died mid-delivery once its lease has passed', async () => {
      receiver = await startReceiver();
      const sub = await subscribe(receiver.url, ['credential.issued']);
      await emit('credential.issued', { credentialId: 'orphan' });
      await emit('credential.issued', { credentialId: 'busy' });
      const [orphan, busy] = await deliveryRows(sub.id);
      const now = clock.now().getTime();
      // One worker was killed (its lease ran out a second ago); another is still working (lease ahead).
      await t.database.db
        .updateTable('webhook_deliveries')
        .set({ status: 'delivering', locked_until: new Date(now - 1000).toISOString() })
        .where('id', '=', orphan?.id ?? '')
        .execute();
      await t.database.db
        .updateTable('webhook_deliveries')
        .set({ status: 'delivering', locked_until: new Date(now + 20_000).toISOString() })
        .where('id', '=', busy?.id ?? '')
        .execute();
      expect(await t.app.services.webhooks.dispatcher.drain()).toBe(1);
      expect(receiver.requests.map((r) => r.headers[DELIVERY_HEADER.toLowerCase()])).toEqual([orphan?.id]);
      clock.advance(20_000);
      expect(await t.app.services.webhooks.dispatcher.drain()).toBe(1);
      expect(receiver.requests.map((r) => r.headers[DELIVERY_HEADER.toLowerCase()])).toEqual([orphan?.id, busy?.id]);
      expect((await deliveryRows(sub.id)).map((r) => r.status)).toEqual(['delivered', 'delivered']);
    });

    it.runIf(dialect === 'postgres')(
      'delivers each row exactly once with two dispatchers on separate pools',
      async () => {
        receiver = await startReceiver((_i, res) => setTimeout(() => answer(200)(_i, res), 10));
        const sub = await subscribe(receiver.url, ['credential.issued']);
        await t.database.db.transaction().execute((trx) =>
          t.app.services.outbox.enqueueMany(
            trx,
            issuer.id,
            Array.from({ length: 60 }, (_, i) => ({ event: 'credential.issued' as const, data: { n: i } })),
          ),
        );
        const second = createDatabase(t.config.database);
        try {
          const a = createWebhookDispatcher(t.app.core, { maxInFlight: 5 });
          const b = createWebhookDispatcher({ ...t.app.core, db: second.db }, { maxInFlight: 5 });
          const [na, nb] = await Promise.all([a.drain(), b.drain()]);
          expect(na + nb).toBe(60);
          expect(na).toBeGreaterThan(0);
          expect(nb).toBeGreaterThan(0);
        } finally {
          await second.close();
        }
        const ids = receiver.requests.map((r) => r.headers[DELIVERY_HEADER.toLowerCase()]);
        expect(ids).toHaveLength(60);
        expect(new Set(ids).size).toBe(60);
        const rows = await deliveryRows(sub.id);
        expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
      },
    );
  });
});

describe.each(dialects)('inline webhook dispatch on %s', (dialect) => {
  it('delivers from the API process without being asked, and stops cleanly', async () => {
    const t = await createTestApp(dialect, { env: { WEBHOOK_DISPATCH: 'inline' } });
    const receiver = await startReceiver();
    try {
      const issuer = await t.issuer();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: auth(issuer.key),
        payload: { url: receiver.url, events: ['credential.revoked'] },
      });
      expect(res.statusCode).toBe(201);
      await t.database.db
        .transaction()
        .execute((trx) => t.app.services.outbox.enqueue(trx, issuer.id, 'credential.revoked', { credentialId: 'x' }));
      t.app.services.webhooks.dispatcher.kick();
      await receiver.waitFor(1, 5000);
      expect(receiver.requests[0]?.headers[EVENT_HEADER.toLowerCase()]).toBe('credential.revoked');
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
