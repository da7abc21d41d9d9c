import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { createExpirySweeper } from '../src/modules/webhooks/expiry-sweeper.js';
import { SIGNATURE_HEADER } from '../src/modules/webhooks/webhooks.constants.js';
import { ReminderDueEventDataSchema } from '../src/modules/webhooks/webhooks.events.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import {
  insertCredential,
  insertCredentials,
  insertDefinition,
  raceTwoSweepers,
  signatureValid,
  startReceiver,
} from './webhooks.support.js';

const DAY_MS = 86_400_000;
const EVENT = 'credential.expiry_reminder_due';

const ajv = new Ajv({ allErrors: true, strict: false });
(formats as unknown as typeof formats.default)(ajv);
const validData = ajv.compile(ReminderDueEventDataSchema);

interface Envelope {
  id: string;
  event: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/**
 * credential.expiry_reminder_due (issue 39 §5): the expiry sweeper announces, once per credential,
 * each live credential of an issuer with expiry reminders on when it comes within the lead time, so
 * that an LMS can ask for the reminder email without a daily roster call.
 */
describe.each(dialects)('credential.expiry_reminder_due on %s', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let definitionIds: Map<string, string>;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, {
      clock,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60000' },
    });
    definitionIds = new Map();
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const inDays = (days: number, extraMs = 0) => new Date(clock.now().getTime() + days * DAY_MS + extraMs).toISOString();
  const sweeper = () => t.app.services.webhooks.expirySweeper;

  async function reminders(issuer: TestIssuer, change: { expiryReminders: boolean; expiryReminderDays?: number }) {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      headers: auth(issuer.key),
      payload: change,
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  async function subscribe(issuer: TestIssuer, url = 'http://127.0.0.1:9/hooks') {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url, events: [EVENT] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; secret: string };
  }

  /** Issues through the API with a name and an address (the event must carry neither), expiring as asked. */
  async function issue(issuer: TestIssuer, email: string, completionKey: string, expiresOn: string) {
    let definitionId = definitionIds.get(issuer.id);
    if (!definitionId) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: auth(issuer.key),
        payload: { name: 'First Aid', description: 'Emergency first aid at work' },
      });
      definitionId = res.json().id as string;
      definitionIds.set(issuer.id, definitionId);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId, recipientEmail: email, recipientName: 'Grace Hopper', completionKey, expiresOn },
    });
    expect(res.statusCode, res.body).toBe(201);
    return { id: res.json().credentialId as string, definitionId, completionKey, expiresOn };
  }

  async function announced(subscriptionId: string): Promise<Envelope[]> {
    const rows = await t.database.db
      .selectFrom('webhook_deliveries')
      .select(['event', 'payload'])
      .where('subscription_id', '=', subscriptionId)
      .orderBy('created_at')
      .execute();
    expect(rows.every((r) => r.event === EVENT)).toBe(true);
    return rows.map((r) => JSON.parse(r.payload) as Envelope);
  }

  it('is sent once per live credential, when it comes within the lead time, with its data and audit record', async () => {
    const a = await t.issuer();
    await reminders(a, { expiryReminders: true, expiryReminderDays: 30 });
    const sub = await subscribe(a);

    const due = await issue(a, 'due@example.test', 'lms-due', inDays(10));
    const edge = await issue(a, 'edge@example.test', 'lms-edge', inDays(40, 1));
    await issue(a, 'far@example.test', 'lms-far', inDays(200));
    const revoked = await issue(a, 'revoked@example.test', 'lms-revoked', inDays(5));
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${revoked.id}/revoke`,
      headers: auth(a.key),
      payload: { reason: 'withdrawn' },
    });
    expect(revoke.statusCode, revoke.body).toBe(200);
    const replaced = await issue(a, 'replaced@example.test', 'lms-replaced', inDays(7));
    const definition = await insertDefinition(t.database, a.id);
    await insertCredential(t.database, a.id, definition.id, { reissued_from: replaced.id, expires_on: inDays(400) });
    // Expired already: credential.expired is its event, not a reminder.
    await insertCredential(t.database, a.id, definition.id, { expires_on: inDays(-1) });
    await insertCredential(t.database, a.id, definition.id, { expires_on: null });

    expect(await sweeper().announceRemindersDue()).toBe(1);
    expect(await sweeper().announceRemindersDue()).toBe(0);
    const first = await announced(sub.id);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      event: EVENT,
      occurredAt: clock.now().toISOString(),
      data: {
        credentialId: due.id,
        definitionId: due.definitionId,
        completionKey: 'lms-due',
        expiresOn: due.expiresOn,
        status: 'valid',
        revokedAt: null,
        reminderDays: 30,
        remindersUrl: 'https://badges.test/api/v1/notifications/reminders',
        assertionUrl: `https://badges.test/v1/issuers/${a.slug}/assertions/${due.id}`,
      },
    });
    expect(validData(first[0]?.data), JSON.stringify(validData.errors)).toBe(true);
    const text = JSON.stringify(first);
    for (const personal of ['Grace', 'Hopper', '@example.test']) expect(text).not.toContain(personal);

    // Ten days on, `edge` is 30 days and 1 ms from its expiry: not yet; 1 ms later it is due.
    clock.advance(10 * DAY_MS);
    expect(await sweeper().announceRemindersDue()).toBe(0);
    clock.advance(1);
    expect(await sweeper().announceRemindersDue()).toBe(1);
    expect((await announced(sub.id)).map((e) => e.data.credentialId)).toEqual([due.id, edge.id]);
    expect(await sweeper().announceRemindersDue()).toBe(0);

    const records = await t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'target_type', 'target_id', 'details'])
      .where('issuer_id', '=', a.id)
      .where('action', '=', EVENT)
      .orderBy('occurred_at')
      .execute();
    expect(records.map((r) => [r.actor, r.target_type, r.target_id])).toEqual([
      ['system', 'credential', due.id],
      ['system', 'credential', edge.id],
    ]);
    expect(JSON.parse(records[0]?.details ?? '{}')).toEqual({ reminderDays: 30 });
  });

  it('sends nothing for an issuer with reminders off, and starts when they are turned on', async () => {
    const b = await t.issuer();
    const sub = await subscribe(b);
    const soon = await issue(b, 'soon@example.test', 'off-soon', inDays(3));
    expect(await sweeper().announceRemindersDue()).toBe(0);
    await reminders(b, { expiryReminders: true, expiryReminderDays: 2 });
    expect(await sweeper().announceRemindersDue()).toBe(0);
    await reminders(b, { expiryReminders: false });
    clock.advance(2 * DAY_MS);
    expect(await sweeper().announceRemindersDue()).toBe(0);
    expect(await announced(sub.id)).toEqual([]);
    await reminders(b, { expiryReminders: true });
    // The sweeper's own pass announces it, beside credential.expired: the job the API process runs
    // with WEBHOOK_DISPATCH=inline and `accolade worker` runs.
    const job = createExpirySweeper(t.app.core, t.app.services, { intervalMs: 60_000 });
    job.start();
    try {
      await vi.waitFor(async () =>
        expect((await announced(sub.id)).map((e) => e.data.credentialId)).toEqual([soon.id]),
      );
    } finally {
      await job.stop();
    }
    expect(await sweeper().announceRemindersDue()).toBe(0);
  });

  it('lists the event in the catalogue with a documented sample', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks/catalog' });
    expect(res.statusCode).toBe(200);
    const entry = (res.json() as { events: { event: string; description: string; sample: Envelope }[] }).events.find(
      (e) => e.event === EVENT,
    );
    expect(entry?.description).toContain('completionKey');
    expect(entry?.sample.event).toBe(EVENT);
    expect(validData(entry?.sample.data), JSON.stringify(validData.errors)).toBe(true);
    expect(entry?.sample.data.remindersUrl).toBe('https://badges.test/api/v1/notifications/reminders');
    const openapi = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(openapi.body).toContain(EVENT);
  });

  it('works through more credentials than one batch holds in a single pass', async () => {
    const c = await t.issuer();
    await reminders(c, { expiryReminders: true, expiryReminderDays: 30 });
    const definition = await insertDefinition(t.database, c.id);
    for (let i = 0; i < 7; i++) await insertCredential(t.database, c.id, definition.id, { expires_on: inDays(20) });
    const small = createExpirySweeper(t.app.core, t.app.services, { batchSize: 3 });
    expect(await small.announceRemindersDue()).toBe(7);
    expect(await small.announceRemindersDue()).toBe(0);
  });

  it.runIf(dialect === 'postgres')('announces each credential once with two sweepers on separate pools', async () => {
    const d = await t.issuer();
    await reminders(d, { expiryReminders: true, expiryReminderDays: 30 });
    const sub = await subscribe(d);
    const definition = await insertDefinition(t.database, d.id);
    await insertCredentials(t.database, d.id, definition.id, 600, (i) => inDays(15, i));
    const [n1, n2] = await raceTwoSweepers(t, (sweeper) => sweeper.announceRemindersDue());
    expect(n1 + n2).toBe(600);
    expect(n1).toBeGreaterThan(0);
    expect(n2).toBeGreaterThan(0);
    const ids = (await announced(sub.id)).map((e) => e.data.credentialId);
    expect(ids).toHaveLength(600);
    expect(new Set(ids).size).toBe(600);
    const audited = await t.database.db
      .selectFrom('audit_log')
      .select('target_id')
      .where('issuer_id', '=', d.id)
      .where('action', '=', EVENT)
      .execute();
    expect(new Set(audited.map((r) => r.target_id)).size).toBe(600);
    expect(audited).toHaveLength(600);
  });

  it('lets an LMS email the reminder once: on the event it posts the address to remindersUrl', async () => {
    const lms = await t.issuer({ name: 'Harbour College' });
    await reminders(lms, { expiryReminders: true, expiryReminderDays: 30 });
    const receiver = await startReceiver();
    try {
      const sub = await subscribe(lms, receiver.url);
      // The LMS's own roster: its enrolment ids (the completion keys) and its learners' addresses.
      const roster = new Map([
        ['enrolment-1', 'Learner.One@example.test'],
        ['enrolment-2', 'learner.two@example.test'],
      ]);
      const one = await issue(lms, 'learner.one@example.test', 'enrolment-1', inDays(12));
      await issue(lms, 'learner.two@example.test', 'enrolment-2', inDays(90));

      /** What the LMS does with each delivery: check the signature, look the learner up, ask for the email. */
      const handle = async (raw: Buffer, signature: string | string[] | undefined) => {
        expect(signatureValid(sub.secret, raw, signature)).toBe(true);
        const envelope = JSON.parse(raw.toString('utf8')) as Envelope;
        expect(envelope.event).toBe(EVENT);
        const email = roster.get(envelope.data.completionKey as string);
        expect(email).toBeDefined();
        const url = new URL(envelope.data.remindersUrl as string);
        return t.app.inject({
          method: 'POST',
          url: url.pathname,
          headers: auth(lms.key),
          payload: { recipientEmails: [email] },
        });
      };

      const before = smtp.messages.length;
      expect(await sweeper().announceRemindersDue()).toBe(1);
      await t.app.services.webhooks.dispatcher.drain();
      expect(receiver.requests).toHaveLength(1);
      const delivery = receiver.requests[0];
      const asked = await handle(delivery?.raw ?? Buffer.alloc(0), delivery?.headers[SIGNATURE_HEADER.toLowerCase()]);
      expect(asked.statusCode, asked.body).toBe(200);
      expect(asked.json()).toMatchObject({ emailOff: false, recipients: 1, queued: 1, suppressed: 0, nothingDue: 0 });
      await t.app.services.notifications.drain();
      const sent = smtp.messages.slice(before);
      expect(sent.map((m) => m.to[0])).toEqual(['Learner.One@example.test']);
      expect(sent[0]?.decoded).toContain('Your badge expires soon');

      // A delivery received twice (at least once) asks again: the reminder's own claim sends nothing more.
      const again = await handle(delivery?.raw ?? Buffer.alloc(0), delivery?.headers[SIGNATURE_HEADER.toLowerCase()]);
      expect(again.json()).toMatchObject({ queued: 0, nothingDue: 1 });
      expect(await sweeper().announceRemindersDue()).toBe(0);
      await t.app.services.notifications.drain();
      expect(smtp.messages).toHaveLength(before + 1);
      const claim = await t.database.db
        .selectFrom('credential_reminders')
        .select(['credential_id', 'status'])
        .where('issuer_id', '=', lms.id)
        .execute();
      expect(claim).toEqual([{ credential_id: one.id, status: 'sent' }]);
    } finally {
      await receiver.close();
    }
  });
});
