import { existsSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RcptBehaviour, startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { RETRY_DELAYS_MS } from '../src/modules/notifications/notifications.sender.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const EMAIL = 'Nora.Notify+Canary@Example.TEST';

describe.each(dialects)('earner notifications on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let behaviour: RcptBehaviour = () => 'accept';
  const logs: string[] = [];
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    smtp = await startSmtpServer((i) => behaviour(i));
    const stream = new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    });
    t = await createTestApp(dialect, {
      clock,
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'badges@accolade.test',
        LOG_LEVEL: 'info',
        NOTIFY_RATE_PER_MINUTE: '60000',
      },
      logger: { level: 'info', stream },
    });
    a = await t.issuer({ slug: `notify-a-${dialect}`, name: 'Northwind Academy' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Safe Lifting', description: 'Manual handling course' },
    });
    definitionId = res.json().id;
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  afterEach(() => {
    behaviour = () => 'accept';
  });

  /** Issues a credential through the API, asking for the earner's notification. */
  async function issueAndNotify(email: string, key: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: email, completionKey: key, notify: true },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.body.toLowerCase()).not.toContain(email.trim().toLowerCase());
    return { credentialId: res.json().credentialId as string, outcome: res.json().notification as string };
  }

  /** The notification as the credential detail shows it. */
  async function statusOf(credentialId: string) {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${credentialId}`, headers: auth(a.key) });
    expect(res.statusCode).toBe(200);
    return res.json().notification;
  }

  it('sends a branded message with the links, the unsubscribe headers and no tracking', async () => {
    const { credentialId, outcome } = await issueAndNotify(EMAIL, 'notify:first');
    expect(outcome).toBe('queued');
    await t.app.services.notifications.drain();

    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    // The domain is case-insensitive; nodemailer writes it in lower case.
    expect(mail?.to).toEqual(['Nora.Notify+Canary@example.test']);
    expect(mail?.from).toBe('badges@accolade.test');
    expect(mail?.headers.from).toContain('Northwind Academy');
    expect(mail?.headers['reply-to']).toBe(`contact@${a.slug}.example`);
    const verify = `https://badges.test/verify/${a.slug}/${credentialId}`;
    expect(mail?.headers['list-unsubscribe']).toMatch(/^<https:\/\/badges\.test\/notifications\/unsubscribe\/[\w-]+>$/);
    expect(mail?.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(mail?.raw).toContain('Content-Type: text/plain');
    expect(mail?.raw).toContain('Content-Type: text/html');
    expect(mail?.decoded).toContain('Northwind Academy has awarded you the credential &quot;Safe Lifting&quot;');
    expect(mail?.decoded).toContain(`href="${verify}"`);
    expect(mail?.decoded).toContain(`href="${verify}/share/linkedin"`);
    expect(mail?.decoded).toContain(`https://badges.test/v1/issuers/${a.slug}/assertions/${credentialId}/image.svg`);
    expect(mail?.decoded).toContain('background:#123456');
    expect(mail?.decoded).toContain(`href="https://badges.test/v1/issuers/${a.slug}/credentials/${credentialId}"`);
    expect(mail?.decoded).toContain('Download (Open Badges 3.0)');
    // No image is loaded from anywhere that could tell who opened the message: the wallet QR code is
    // inline, the badge image is the definition's (the same for every earner, as on the verification page).
    expect(mail?.decoded).not.toMatch(
      /<img (?!src="data:image\/png;base64,|src="https:\/\/badges\.test\/v1\/issuers\/[\w-]+\/badges\/)/,
    );
    expect(mail?.decoded).toContain(
      `<img src="https://badges.test/v1/issuers/${a.slug}/badges/safe-lifting/image.svg"`,
    );

    expect(await statusOf(credentialId)).toMatchObject({ status: 'sent', detail: null });
  });

  it("writes in the issuer's language, from its sender name and reply-to", async () => {
    const patch = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      headers: auth(a.key),
      payload: { language: 'de', senderName: 'Akademie Nordwind', replyTo: 'kurse@northwind.example' },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    expect(patch.json()).toMatchObject({ enabled: true, language: 'de', senderName: 'Akademie Nordwind' });
    const before = smtp.messages.length;
    await issueAndNotify('de.earner@example.test', 'notify:de');
    await t.app.services.notifications.drain();

    const mail = smtp.messages[before];
    expect(mail?.headers.from).toContain('Akademie Nordwind');
    expect(mail?.headers['reply-to']).toBe('kurse@northwind.example');
    expect(mail?.decoded).toContain('Sie haben ein Abzeichen erhalten');
    expect(mail?.decoded).toContain('Zu LinkedIn hinzufügen');
    expect(mail?.decoded).toContain('<html lang="de">');
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      headers: auth(a.key),
      payload: { language: 'en', senderName: null, replyTo: null },
    });
  });

  it('refuses settings it cannot honour', async () => {
    for (const payload of [{ language: 'xx' }, { senderName: 'Evil\r\nBcc: x@y.z' }, { replyTo: 'nope' }, {}]) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/notifications/settings',
        headers: auth(a.key),
        payload,
      });
      expectErrorBody(res, 400, 'validation_failed');
    }
  });

  it("needs a key for the settings, and one issuer's settings never reach another's", async () => {
    await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/notifications/settings' });
    await expectKeyRequired(t.app, {
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      payload: { language: 'fr' },
    });
    const b = await t.issuer({ slug: `notify-b-${dialect}` });
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      headers: auth(b.key),
      payload: { language: 'fr', senderName: 'Other Issuer' },
    });
    const mine = await t.app.inject({ method: 'GET', url: '/api/v1/notifications/settings', headers: auth(a.key) });
    expect(mine.json()).toMatchObject({ language: 'en', senderName: null });
  });

  it('retries a temporary SMTP failure and records a permanent one', async () => {
    const first = smtp.attempts();
    behaviour = (i) => (i === first ? 451 : 'accept');
    const temporary = await issueAndNotify('retry.earner@example.test', 'notify:retry');
    await t.app.services.notifications.drain();
    expect(await statusOf(temporary.credentialId)).toMatchObject({ status: 'queued' });

    clock.advance((RETRY_DELAYS_MS[0] ?? 0) + 1);
    await t.app.services.notifications.drain();
    expect(await statusOf(temporary.credentialId)).toMatchObject({ status: 'sent' });
    expect(smtp.attempts()).toBe(first + 2);

    behaviour = () => 550;
    const permanent = await issueAndNotify('gone.earner@example.test', 'notify:permanent');
    await t.app.services.notifications.drain();
    expect(await statusOf(permanent.credentialId)).toMatchObject({ status: 'failed', detail: 'smtp 550' });
  });

  it('unsubscribes in one click and suppresses later messages to that person', async () => {
    const before = smtp.messages.length;
    await issueAndNotify('leaving.earner@example.test', 'notify:leave-1');
    await t.app.services.notifications.drain();
    const link = /<https:\/\/badges\.test(\/notifications\/unsubscribe\/[\w-]+)>/.exec(
      smtp.messages[before]?.headers['list-unsubscribe'] ?? '',
    )?.[1];
    expect(link).toBeDefined();

    const page = await t.app.inject({ method: 'GET', url: link ?? '' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Stop receiving emails about badges from Northwind Academy?');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    const oneClick = await t.app.inject({
      method: 'POST',
      url: link ?? '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    expect(oneClick.body).toContain('You are unsubscribed: Northwind Academy will send you no more badge emails.');

    const later = await issueAndNotify('Leaving.Earner@example.test ', 'notify:leave-2');
    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(before + 1);
    expect(await statusOf(later.credentialId)).toMatchObject({ status: 'suppressed' });

    const unknown = await t.app.inject({ method: 'POST', url: '/notifications/unsubscribe/not-a-token' });
    expect(unknown.statusCode).toBe(404);
  });

  it('never notifies a replay, and follows the issuer default when the call does not say', async () => {
    const first = await issueAndNotify('replay.earner@example.test', 'notify:replay');
    await t.app.services.notifications.drain();
    const sent = smtp.messages.length;
    const replay = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: {
        definitionId,
        recipientEmail: 'replay.earner@example.test',
        completionKey: 'notify:replay',
        notify: true,
      },
    });
    expect(replay.statusCode).toBe(200);
    expect(replay.json().notification).toBeUndefined();
    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(sent);
    expect(await statusOf(first.credentialId)).toMatchObject({ status: 'sent' });

    const silent = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: 'quiet.earner@example.test', completionKey: 'notify:quiet' },
    });
    expect(silent.json().notification).toBeUndefined();
    expect(await statusOf(silent.json().credentialId)).toBeUndefined();

    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      headers: auth(a.key),
      payload: { notifyByDefault: true },
    });
    const byDefault = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: 'default.earner@example.test', completionKey: 'notify:default' },
    });
    expect(byDefault.json().notification).toBe('queued');
    const optedOut = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: 'out.earner@example.test', completionKey: 'notify:out', notify: false },
    });
    expect(optedOut.json().notification).toBeUndefined();
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      headers: auth(a.key),
      payload: { notifyByDefault: false },
    });
    await t.app.services.notifications.drain();
    expect(smtp.messages.map((m) => m.to[0])).toContain('default.earner@example.test');
    expect(smtp.messages.map((m) => m.to[0])).not.toContain('out.earner@example.test');
  });

  it("reissues with a notification only to the credential's own recipient", async () => {
    const { credentialId } = await issueAndNotify('moved.earner@example.test', 'notify:reissue');
    await t.app.services.notifications.drain();
    const reissue = (payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/credentials/${credentialId}/reissue`,
        headers: auth(a.key),
        payload,
      });
    expectErrorBody(await reissue({ notify: true }), 400, 'validation_failed');
    const wrong = await reissue({ notify: true, recipientEmail: 'someone.else@example.test' });
    expectErrorBody(wrong, 400, 'validation_failed');
    expect(wrong.body).not.toContain('someone.else');

    const before = smtp.messages.length;
    const ok = await reissue({ notify: true, recipientEmail: 'Moved.Earner@example.test' });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().notification).toBe('queued');
    await t.app.services.notifications.drain();
    expect(smtp.messages.slice(before).map((m) => m.to[0])).toEqual(['Moved.Earner@example.test']);
    expect(await statusOf(ok.json().credentialId)).toMatchObject({ status: 'sent' });
  });

  it('suppresses notifications to a recipient the issuer erased', async () => {
    const erase = await t.app.inject({
      method: 'POST',
      url: '/api/v1/gdpr/erase',
      headers: auth(a.key),
      payload: { recipientEmail: 'erased.earner@example.test' },
    });
    expect(erase.statusCode).toBe(200);
    const before = smtp.messages.length;
    const { credentialId } = await issueAndNotify('erased.earner@example.test', 'notify:after-erase');
    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(before);
    expect(await statusOf(credentialId)).toMatchObject({ status: 'suppressed' });
  });

  it('notifies from CSV imports, single completions and connectors, never from a dry run', async () => {
    const before = smtp.messages.length;
    const csv = [
      'email,name,course,notify',
      'csv.one@example.test,Csv One,Safe Lifting,',
      'csv.two@example.test,Csv Two,Safe Lifting,no',
      'csv.three@example.test,Csv Three,Safe Lifting,perhaps',
    ].join('\n');
    const dry = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: auth(a.key),
      payload: { csv, notify: true, dryRun: true },
    });
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().rows.every((r: { notification?: string }) => r.notification === undefined)).toBe(true);

    const real = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: auth(a.key),
      payload: { csv, notify: true },
    });
    expect(real.statusCode, real.body).toBe(200);
    const rows = real.json().rows;
    expect(rows.map((r: { outcome: string; notification?: string }) => [r.outcome, r.notification])).toEqual([
      ['issued', 'queued'],
      ['issued', undefined],
      ['error', undefined],
    ]);
    expect(rows[2].message).toContain('notify is not one of yes, no');
    expect(real.body).not.toContain('csv.one@');

    const single = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/completions',
      headers: auth(a.key),
      payload: { recipientEmail: 'ingest.one@example.test', definitionRef: 'Safe Lifting', notify: true },
    });
    expect(single.statusCode, single.body).toBe(201);
    expect(single.json().notification).toBe('queued');

    const connector = await t.app.inject({
      method: 'POST',
      url: '/api/v1/connectors/generic/completions',
      headers: auth(a.key),
      payload: {
        records: [{ email: 'connector.one@example.test', definitionRef: 'Safe Lifting', completionKey: 'lms:1' }],
        options: { notify: true },
      },
    });
    expect(connector.statusCode, connector.body).toBe(200);
    expect(connector.json().records[0]).toMatchObject({ outcome: 'issued', notification: 'queued' });

    await t.app.services.notifications.drain();
    const sentTo = smtp.messages.slice(before).flatMap((m) => m.to);
    expect(sentTo.sort()).toEqual(['connector.one@example.test', 'csv.one@example.test', 'ingest.one@example.test']);
  });

  it('keeps the address nowhere: not in the database, the logs or any response', async () => {
    const dump: string[] = [];
    const tables = await t.database.db.introspection.getTables();
    for (const table of tables.filter((tb) => t.testDb.schema === null || tb.schema === t.testDb.schema)) {
      const rows = await t.database.db
        .selectFrom(table.name as 'credentials')
        .selectAll()
        .execute();
      dump.push(JSON.stringify(rows));
    }
    // The database files byte for byte too (SQLite): a freed page or the WAL would show an address.
    for (const suffix of ['', '-wal']) {
      if (t.testDb.file && existsSync(`${t.testDb.file}${suffix}`)) {
        dump.push(readFileSync(`${t.testDb.file}${suffix}`).toString('latin1'));
      }
    }
    const text = `${dump.join('\n')}\n${logs.join('\n')}`.toLowerCase();
    expect(logs.length).toBeGreaterThan(0);
    for (const address of [
      EMAIL,
      'de.earner@example.test',
      'retry.earner@example.test',
      'leaving.earner',
      'moved.earner',
      'erased.earner',
    ]) {
      expect(text).not.toContain(address.toLowerCase());
    }
  });
});

describe.each(dialects)('notifications without an SMTP server on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer({ slug: `notify-off-${dialect}` });
  });
  afterAll(async () => t.close());

  it('says notifications are off rather than dropping them silently', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/notifications/settings', headers: auth(a.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      enabled: false,
      notifyByDefault: false,
      senderName: null,
      replyTo: null,
      language: 'en',
      languages: ['en', 'de', 'fr', 'es', 'nl'],
      expiryReminders: false,
      expiryReminderDays: 30,
      reminderNote: null,
      reminderLink: null,
    });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Quiet', description: 'No mail here' },
    });
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: {
        definitionId: definition.json().id,
        recipientEmail: 'x@example.test',
        completionKey: 'k',
        notify: true,
      },
    });
    expect(issued.statusCode).toBe(201);
    const outcome = issued.json().notification;
    expect(outcome).toBe('off');
  });
});

describe.each(dialects)('notification sending rate on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, {
      clock,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60' },
    });
    a = await t.issuer({ slug: `notify-rate-${dialect}` });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it("sends behind the import at the issuer's rate, not all at once", async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Paced', description: 'One a second' },
    });
    const csv = ['email,course', 'p1@example.test,Paced', 'p2@example.test,Paced', 'p3@example.test,Paced'].join('\n');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: auth(a.key),
      payload: { csv, notify: true },
    });
    expect(res.json().issued).toBe(3);
    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(1);
    clock.advance(1_000);
    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(2);
    clock.advance(1_000);
    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(3);
  });
});

describe.each(dialects)('notification sending throughput on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, {
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60000' },
    });
    a = await t.issuer({ slug: `notify-fast-${dialect}` });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('keeps sending as sends finish, over a few reused SMTP connections, and records every outcome', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Many', description: 'Forty earners at once' },
    });
    const emails = Array.from({ length: 40 }, (_, i) => `fast${i}@example.test`);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: auth(a.key),
      payload: { csv: ['email,course', ...emails.map((e) => `${e},Many`)].join('\n'), notify: true },
    });
    expect(res.json().issued).toBe(40);
    // One pass starts what the rate allows; each finished send starts the next, without a timer tick.
    await t.app.services.notifications.drain();
    expect(smtp.messages.flatMap((m) => m.to).sort()).toEqual([...emails].sort());
    expect(smtp.connections()).toBeLessThanOrEqual(4);
    const statuses = await t.database.db
      .selectFrom('credential_notifications')
      .select(['status', 'attempts'])
      .where('issuer_id', '=', a.id)
      .execute();
    expect(statuses).toHaveLength(40);
    expect(statuses.every((row) => row.status === 'sent' && Number(row.attempts) === 1)).toBe(true);
  });
});
