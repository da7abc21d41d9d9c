import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { RESENDS_PER_DAY } from '../src/modules/notifications/notifications.service.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const EMAIL = 'Resend.Earner@example.test';

describe.each(dialects)('"Resend the email" (issue 46) on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, {
      clock,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60000' },
    });
    a = await t.issuer({ slug: `resend-a-${dialect}`, name: 'Resend College' });
    b = await t.issuer({ slug: `resend-b-${dialect}`, name: 'Other College' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Forklift', description: 'Forklift truck operation' },
    });
    definitionId = res.json().id;
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const issue = async (key: string, email = EMAIL) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: email, completionKey: key },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId as string;
  };
  const resend = (id: string, recipientEmail: string, key = a.key) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/notification`,
      headers: auth(key),
      payload: { recipientEmail },
    });
  const audits = async (id: string) =>
    t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'details'])
      .where('issuer_id', '=', a.id)
      .where('target_id', '=', id)
      .where('action', '=', 'credential.notification_resent')
      .execute();

  it("emails the credential's own recipient again, with a working unsubscribe link, audited", async () => {
    const id = await issue('resend:one');
    const before = smtp.messages.length;
    const res = await resend(id, ' resend.earner@EXAMPLE.test ');
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ credentialId: id, notification: 'queued' });
    expect(res.body.toLowerCase()).not.toContain('resend.earner');
    await t.app.services.notifications.drain();
    const sent = smtp.messages.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.decoded).toContain('Resend College has awarded you the credential &quot;Forklift&quot;');
    expect(sent[0]?.decoded).toContain(`https://badges.test/verify/${a.slug}/${id}`);

    const detail = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${id}`, headers: auth(a.key) });
    expect(detail.json().notification).toMatchObject({ status: 'sent', detail: null });
    const records = await audits(id);
    expect(records).toHaveLength(1);
    expect(JSON.stringify(records)).not.toContain('example.test');

    // The resend's own unsubscribe link works.
    const link = new URL(/^<(.+)>$/.exec(sent[0]?.headers['list-unsubscribe'] ?? '')?.[1] ?? '');
    const page = await t.app.inject({ method: 'GET', url: link.pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Resend College');
    // Nothing of the address is stored.
    const rows = await t.database.db.selectFrom('credential_resends').selectAll().execute();
    expect(JSON.stringify(rows).toLowerCase()).not.toContain('resend.earner');
  });

  it('refuses another address, a revoked credential, another issuer and more than the daily limit', async () => {
    const id = await issue('resend:limits');
    expectErrorBody(await resend(id, 'someone.else@example.test'), 400, 'validation_failed');
    expectErrorBody(await resend(id, EMAIL, b.key), 404, 'not_found');
    expectErrorBody(await resend('no-such-credential', EMAIL), 404, 'not_found');
    expectErrorBody(await resend(id, 'not an address'), 400, 'validation_failed');
    for (let i = 0; i < RESENDS_PER_DAY; i++) expect((await resend(id, EMAIL)).statusCode).toBe(202);
    const limited = expectErrorBody(await resend(id, EMAIL), 429, 'rate_limited');
    expect(limited.message).toContain('24 hours');
    clock.advance(24 * 3_600_000 + 1);
    expect((await resend(id, EMAIL)).statusCode).toBe(202);
    await t.app.services.notifications.drain();

    await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/revoke`,
      headers: auth(a.key),
      payload: { reason: 'issued in error' },
    });
    expectErrorBody(await resend(id, EMAIL), 409, 'credential_revoked');
    expect(await audits(id)).toHaveLength(RESENDS_PER_DAY + 1);
  });

  it('sends nothing to an earner who unsubscribed, and says so', async () => {
    const email = 'resend.gone@example.test';
    const id = await issue('resend:gone', email);
    const first = await resend(id, email);
    expect(first.json().notification).toBe('queued');
    await t.app.services.notifications.drain();
    const mail = smtp.messages.find((m) => m.to.includes(email));
    const link = new URL(/^<(.+)>$/.exec(mail?.headers['list-unsubscribe'] ?? '')?.[1] ?? '');
    expect((await t.app.inject({ method: 'POST', url: link.pathname })).statusCode).toBe(200);
    clock.advance(1);
    const before = smtp.messages.length;
    const again = await resend(id, email);
    expect(again.json()).toEqual({ credentialId: id, notification: 'suppressed' });
    await t.app.services.notifications.drain();
    expect(smtp.messages).toHaveLength(before);
    const detail = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${id}`, headers: auth(a.key) });
    expect(detail.json().notification).toMatchObject({ status: 'suppressed' });
  });
});

describe.each(dialects)('"Resend the email" without an SMTP server on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => t.close());

  it('answers off and sends nothing', async () => {
    const a = await t.issuer({ slug: `resend-off-${dialect}` });
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
      payload: { definitionId: definition.json().id, recipientEmail: EMAIL, completionKey: 'off:1' },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${issued.json().credentialId}/notification`,
      headers: auth(a.key),
      payload: { recipientEmail: EMAIL },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().notification).toBe('off');
  });
});
