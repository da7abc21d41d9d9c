import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { buildApp } from '../src/app.js';
import { createDatabase } from '../src/db/database.js';
import { notificationReason } from '../src/modules/notifications/notifications.service.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const DAY_MS = 86_400_000;

describe.each(dialects)('notifications from the console (issue 39) on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const env = () => ({ SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60000' });

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, { clock, env: env() });
    a = await t.issuer({ slug: `notify-console-${dialect}`, name: 'Harbour College' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'First Aid', description: 'Emergency first aid at work' },
    });
    definitionId = res.json().id;
    // The newer definition, by its creation time (the preview's default).
    clock.advance(1);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Fire Safety', description: 'Fire safety at work' },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const issue = async (email: string, key: string, extra: { notify?: boolean; expiresInDays?: number } = {}) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: {
        definitionId,
        recipientEmail: email,
        completionKey: key,
        ...(extra.notify === undefined ? {} : { notify: extra.notify }),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const issued = res.json() as { credentialId: string; notification?: string };
    if (extra.expiresInDays !== undefined) {
      const expires = new Date(clock.now().getTime() + extra.expiresInDays * DAY_MS).toISOString();
      await t.database.db
        .updateTable('credentials')
        .set({ expires_on: expires })
        .where('id', '=', issued.credentialId)
        .execute();
    }
    return issued;
  };
  const detail = async (credentialId: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${credentialId}`, headers: auth(a.key) })).json();
  const settings = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PATCH', url: '/api/v1/notifications/settings', headers: auth(a.key), payload });
  const audits = (action: string) =>
    t.database.db
      .selectFrom('audit_log')
      .select(['actor', 'target_type', 'target_id', 'details'])
      .where('issuer_id', '=', a.id)
      .where('action', '=', action)
      .execute();
  const unsubscribe = async (mailIndex: number) => {
    const link = /<https:\/\/badges\.test(\/notifications\/unsubscribe\/[\w-]+)>/.exec(
      smtp.messages[mailIndex]?.headers['list-unsubscribe'] ?? '',
    )?.[1];
    expect(link).toBeDefined();
    const res = await t.app.inject({ method: 'POST', url: link ?? '' });
    expect(res.statusCode).toBe(200);
  };

  it('shows the badge image and writes dates as the verification page does', async () => {
    const before = smtp.messages.length;
    const { credentialId } = await issue('image.earner@example.test', 'console:image', { notify: true });
    await t.app.services.notifications.drain();
    const mail = smtp.messages[before];
    const image = `https://badges.test/v1/issuers/${a.slug}/badges/first-aid/image.svg`;
    expect(mail?.decoded).toContain(`<img src="${image}" alt="First Aid" width="120" height="120"`);
    // The image shown is never the per-credential one: loading it would tell who opened the message.
    expect(mail?.decoded).not.toContain(`<img src="https://badges.test/v1/issuers/${a.slug}/assertions/`);
    // en-GB, long, UTC, as the verification page: "21 November 2026", not "November 21, 2026".
    expect(mail?.decoded).toContain('Issued on 21 November 2026');
    expect(mail?.decoded).not.toContain('November 21, 2026');
    const page = await t.app.inject({ method: 'GET', url: `/verify/${a.slug}/${credentialId}` });
    expect(page.body).toContain('21 November 2026');
    expect(page.body).toContain(image);
  });

  it('answers suppressed at once for an earner who unsubscribed, with the reason on the credential', async () => {
    const before = smtp.messages.length;
    await issue('gone.earner@example.test', 'console:gone-1', { notify: true });
    await t.app.services.notifications.drain();
    await unsubscribe(before);

    const later = await issue('Gone.Earner@example.test', 'console:gone-2', { notify: true });
    expect(later.notification).toBe('suppressed');
    const csv = ['email,name,course,notify', 'gone.earner@example.test,Gone Earner,Fire Safety,yes'].join('\n');
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: auth(a.key),
      payload: { csv, notify: false },
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json().rows[0]).toMatchObject({ outcome: 'issued', notification: 'suppressed' });
    const connector = await t.app.inject({
      method: 'POST',
      url: '/api/v1/connectors/generic/completions',
      headers: auth(a.key),
      payload: {
        records: [{ email: 'gone.earner@example.test', definitionRef: 'Fire Safety', completionKey: 'lms:gone' }],
        options: { notify: true },
      },
    });
    expect(connector.json().records[0]).toMatchObject({ outcome: 'issued', notification: 'suppressed' });

    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(before + 1);
    expect((await detail(later.credentialId)).notification).toMatchObject({
      status: 'suppressed',
      detail: 'unsubscribed',
      reason: "The earner unsubscribed from this issuer's emails; nothing was sent.",
    });
    const sent = await issue('kept.earner@example.test', 'console:kept', { notify: true });
    expect(sent.notification).toBe('queued');
    await t.app.services.notifications.drain();
    expect((await detail(sent.credentialId)).notification).toMatchObject({ status: 'sent', reason: null });
  });

  it('explains each stored failure code in a sentence', () => {
    expect(notificationReason('sent', null)).toBeNull();
    expect(notificationReason('failed', 'smtp 550')).toContain('refused the message (SMTP 550)');
    expect(notificationReason('failed', 'smtp 451')).toContain('deferring the message (SMTP 451)');
    expect(notificationReason('failed', 'econnrefused')).toBe('The mail server could not be reached (econnrefused).');
    expect(notificationReason('failed', 'not_sent_before_shutdown')).toContain('the address is not kept');
  });

  it('keeps reminder settings beside the others, bounded and audited', async () => {
    const initial = await t.app.inject({ method: 'GET', url: '/api/v1/notifications/settings', headers: auth(a.key) });
    expect(initial.json()).toMatchObject({ expiryReminders: false, expiryReminderDays: 30, notifyByDefault: false });
    expectErrorBody(await settings({ expiryReminderDays: 0 }), 400, 'validation_failed');
    expectErrorBody(await settings({ expiryReminderDays: 366 }), 400, 'validation_failed');
    expectErrorBody(await settings({ expiryReminders: 'yes' }), 400, 'validation_failed');
    const changed = await settings({ expiryReminders: true, expiryReminderDays: 45, senderName: 'Harbour Registry' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      expiryReminders: true,
      expiryReminderDays: 45,
      senderName: 'Harbour Registry',
    });
    const records = await audits('notifications.settings_updated');
    expect(JSON.parse(records.at(-1)?.details ?? '{}')).toMatchObject({
      changed: ['expiryReminderDays', 'expiryReminders', 'senderName'],
    });
    await settings({ expiryReminders: false, expiryReminderDays: 30, senderName: null });
  });

  it('previews the message read-only, for the award and the reminder', async () => {
    const preview = (query: string) =>
      t.app.inject({ method: 'GET', url: `/api/v1/notifications/preview${query}`, headers: auth(a.key) });
    const award = await preview('');
    expect(award.statusCode, award.body).toBe(200);
    // Without a definition, the issuer's newest.
    expect(award.json().subject).toBe('Harbour College awarded you "Fire Safety"');
    expect(award.json().html).toContain('alt="Fire Safety"');
    expect(award.json().text).toContain('Issued on 21 November 2026');
    await settings({ language: 'de' });
    const reminder = await preview(`?kind=reminder&definitionId=${definitionId}`);
    expect(reminder.json().subject).toBe('Ihr Abzeichen „First Aid“ von Harbour College läuft am 21. Dezember 2026 ab');
    await settings({ language: 'en' });
    expectErrorBody(await preview('?kind=other'), 400, 'validation_failed');
    expectErrorBody(await preview('?colour=red'), 400, 'validation_failed');
    expectErrorBody(await preview('?definitionId=nope'), 404, 'not_found');
  });

  it("never lets one issuer's preview read or hide another issuer's definition", async () => {
    const b = await t.issuer({ slug: `notify-console-b-${dialect}`, name: 'Quayside Institute' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(b.key),
      payload: { name: 'Crane Operation', description: 'Operating a tower crane' },
    });
    const theirs = created.json().id as string;
    const preview = (key: string) =>
      t.app.inject({ method: 'GET', url: `/api/v1/notifications/preview?definitionId=${theirs}`, headers: auth(key) });

    // A's miss on B's id is not kept: B's message sent right after still finds its definition.
    expectErrorBody(await preview(a.key), 404, 'not_found');
    const before = smtp.messages.length;
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(b.key),
      payload: {
        definitionId: theirs,
        recipientEmail: 'crane.earner@example.test',
        completionKey: 'b:1',
        notify: true,
      },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    await t.app.services.notifications.drain();
    expect(smtp.messages[before]?.decoded).toContain('Crane Operation');
    const status = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${issued.json().credentialId}`,
      headers: auth(b.key),
    });
    expect(status.json().notification).toMatchObject({ status: 'sent', detail: null });

    // B's definition is cached now; A still gets no sight of it.
    expect((await preview(b.key)).json().subject).toBe('Quayside Institute awarded you "Crane Operation"');
    const denied = await preview(a.key);
    expectErrorBody(denied, 404, 'not_found');
    expect(denied.body).not.toContain('Crane Operation');
  });

  it('sends one expiry reminder per due credential to the addresses given, honouring unsubscribes', async () => {
    const due = await issue('due.earner@example.test', 'remind:due', { expiresInDays: 10 });
    const dueTwo = await issue('due.earner@example.test', 'remind:due-2', { expiresInDays: 20 });
    await issue('due.earner@example.test', 'remind:later', { expiresInDays: 60 });
    const revoked = await issue('due.earner@example.test', 'remind:revoked', { expiresInDays: 5 });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${revoked.credentialId}/revoke`,
      headers: auth(a.key),
      payload: { reason: 'test' },
    });
    const gone = await issue('gone.earner@example.test', 'remind:gone', { expiresInDays: 10 });
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/notifications/reminders',
        headers: auth(a.key),
        payload: { recipientEmails: ['Due.Earner@example.test', 'gone.earner@example.test', 'nobody@example.test'] },
      });

    const off = await send();
    expectErrorBody(off, 400, 'validation_failed');
    expect(off.body).toContain('reminders are off');
    await settings({ expiryReminders: true });
    const count = await t.app.inject({ method: 'GET', url: '/api/v1/notifications/reminders', headers: auth(a.key) });
    expect(count.json()).toEqual({ on: true, withinDays: 30, due: 3 });

    const before = smtp.messages.length;
    const first = await send();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ emailOff: false, recipients: 3, queued: 2, suppressed: 1, nothingDue: 1 });
    expect(first.body.toLowerCase()).not.toContain('due.earner');
    await t.app.services.notifications.drain();
    const reminders = smtp.messages.slice(before);
    expect(reminders.map((m) => m.to[0])).toEqual(['Due.Earner@example.test', 'Due.Earner@example.test']);
    const texts = reminders.map((m) => m.decoded);
    expect(
      texts.some((text) =>
        text.includes('Your badge &quot;First Aid&quot; from Harbour College expires on 1 December 2026'),
      ),
    ).toBe(true);
    expect(texts.some((text) => text.includes('Expires on 11 December 2026'))).toBe(true);
    expect(texts.every((text) => text.includes('Your badge expires soon'))).toBe(true);
    expect(reminders[0]?.headers['list-unsubscribe']).toMatch(/notifications\/unsubscribe\//);

    const again = await send();
    expect(again.json()).toEqual({ emailOff: false, recipients: 3, queued: 0, suppressed: 0, nothingDue: 3 });
    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(before + 2);

    const rows = await t.database.db
      .selectFrom('credential_reminders')
      .select(['credential_id', 'status', 'detail'])
      .where('issuer_id', '=', a.id)
      .execute();
    expect(new Map(rows.map((r) => [r.credential_id, r.status]))).toEqual(
      new Map([
        [due.credentialId, 'sent'],
        [dueTwo.credentialId, 'sent'],
        [gone.credentialId, 'suppressed'],
      ]),
    );
    const sentAudits = await audits('notifications.reminder_sent');
    expect(sentAudits.map((r) => [r.actor, r.target_id]).sort()).toEqual(
      [
        ['system', due.credentialId],
        ['system', dueTwo.credentialId],
      ].sort(),
    );
    expect((await audits('notifications.reminders_requested')).length).toBe(2);

    // A reminder's own unsubscribe link works as the award's does.
    await unsubscribe(before);
    const suppressions = await t.database.db
      .selectFrom('notification_suppressions')
      .select('recipient_hash')
      .where('issuer_id', '=', a.id)
      .execute();
    expect(suppressions).toHaveLength(2);
    await settings({ expiryReminders: false });
  });

  it('reminds once per credential when two replicas are asked at once', async () => {
    const database = createDatabase(t.config.database);
    const replica = await buildApp({ config: t.config, database, clock, logger: false, redis: null });
    await replica.ready();
    try {
      await settings({ expiryReminders: true });
      const emails = Array.from({ length: 12 }, (_, i) => `race.${i}@example.test`);
      for (const [i, email] of emails.entries()) {
        await issue(email, `race:${i}`, { expiresInDays: 7 });
      }
      const before = smtp.messages.length;
      const call = (app: typeof replica) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/notifications/reminders',
          headers: auth(a.key),
          payload: { recipientEmails: emails },
        });
      const answers = await Promise.all([call(t.app), call(replica), call(t.app), call(replica)]);
      for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
      expect(answers.reduce((sum, answer) => sum + answer.json().queued, 0)).toBe(12);
      await Promise.all([t.app.services.notifications.drain(), replica.services.notifications.drain()]);
      const sent = smtp.messages.slice(before).map((m) => m.to[0]);
      expect(sent.sort()).toEqual([...emails].sort());
    } finally {
      await settings({ expiryReminders: false });
      await replica.close();
      await database.close();
    }
  });
});
