import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceivedMail, startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { NOTIFICATION_CATALOGUE } from '../src/modules/notifications/messages/index.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

const DAY_MS = 86_400_000;
type Lang = 'fr' | 'de' | 'es' | 'nl';

/**
 * Earner emails in the earner's language with the badge's translated text (issue 45 §2): the
 * credential's language first (a background job has no Accept-Language), then the issuer's; the
 * award, the reminder, a resend in the wording of the message it repeats (issue 46), and the
 * earner's certificate link when certificates are on (issue 44). Read from the SMTP sink.
 */
describe.each(dialects)('earner emails with translated badge text on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  const NAMES: Record<Lang, string> = {
    fr: 'Soudure niveau 2',
    de: 'Schweißen Stufe 2',
    es: 'Soldadura nivel 2',
    nl: 'Lassen niveau 2',
  };
  const words = (language: Lang) => NOTIFICATION_CATALOGUE[language];

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: object, key = a.key) =>
    t.app.inject({ method, url, headers: auth(key), ...(payload ? { payload } : {}) });
  const sentSince = async (before: number): Promise<ReceivedMail[]> => {
    await t.app.services.notifications.drain();
    return smtp.messages.slice(before);
  };
  async function issue(
    email: string,
    options: { language?: string; expiresInDays?: number; name?: string; issuer?: TestIssuer; definition?: string },
  ) {
    const issuer = options.issuer ?? a;
    const res = await call(
      'POST',
      '/api/v1/credentials',
      {
        definitionId: options.definition ?? definitionId,
        recipientEmail: email,
        recipientName: options.name ?? 'Zoé Lefèvre',
        completionKey: `k:${email.split('@')[0]}`,
        notify: true,
        ...(options.language ? { language: options.language } : {}),
      },
      issuer.key,
    );
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().credentialId as string;
    if (options.expiresInDays !== undefined) {
      const expires = new Date(clock.now().getTime() + options.expiresInDays * DAY_MS).toISOString();
      await t.database.db.updateTable('credentials').set({ expires_on: expires }).where('id', '=', id).execute();
    }
    return id;
  }
  /** Issues and answers the award email that went out for it. */
  async function award(email: string, options: Parameters<typeof issue>[1]) {
    const before = smtp.messages.length;
    const id = await issue(email, options);
    const [mail] = await sentSince(before);
    expect(mail, email).toBeDefined();
    return { id, mail: mail as ReceivedMail };
  }
  async function resend(id: string, email: string) {
    const before = smtp.messages.length;
    const res = await call('POST', `/api/v1/credentials/${id}/notification`, { recipientEmail: email });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().notification).toBe('queued');
    const [mail] = await sentSince(before);
    expect(mail, email).toBeDefined();
    return mail as ReceivedMail;
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, {
      clock,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60000' },
    });
    a = await t.issuer({ slug: `text-mail-${dialect}`, name: 'Atelier Lumière' });
    const definition = await call('POST', '/api/v1/definitions', {
      name: 'Welding Level 2',
      description: 'Welding workshop',
    });
    definitionId = definition.json().id;
    for (const [language, name] of Object.entries(NAMES)) {
      const res = await call('PUT', `/api/v1/definitions/${definitionId}/translations/${language}`, {
        name,
        description: `${name}: atelier`,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const settings = await call('PATCH', '/api/v1/notifications/settings', { language: 'en', expiryReminders: true });
    expect(settings.statusCode, settings.body).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it("writes the award in the credential's language with the translated badge name and the certificate link", async () => {
    for (const language of ['fr', 'de', 'es', 'nl'] as const) {
      const { mail } = await award(`award.${language}@example.test`, { language });
      expect(mail.decoded, language).toContain(`<html lang="${language}">`);
      expect(mail.decoded, language).toContain(words(language).heading);
      expect(mail.decoded, language).toContain(NAMES[language]);
      expect(mail.decoded, language).not.toContain('Welding Level 2');
      // The earner's own certificate (issue 44), labelled in the language, in both parts.
      expect(mail.decoded, language).toMatch(
        new RegExp(
          `<a href="[^"]+/certificate/[A-Za-z0-9_-]+"[^>]*>${words(language).yourCertificate.replace(/[()]/g, '\\$&')}</a>`,
        ),
      );
      const text = mail.decoded.split('Content-Type: text/html')[0] ?? '';
      expect(text, language).toMatch(
        new RegExp(`${words(language).yourCertificate.replace(/[()]/g, '\\$&')}: \\S+/certificate/`),
      );
    }
  });

  it('leaves the certificate link out when certificates are off for the badge', async () => {
    const off = await call('PUT', `/api/v1/definitions/${definitionId}/certificate`, { enabled: false });
    expect(off.statusCode, off.body).toBeLessThan(300);
    const { mail } = await award('nocert@example.test', { language: 'fr' });
    expect(mail.decoded).not.toContain('/certificate/');
    expect(mail.decoded).not.toContain(words('fr').yourCertificate);
    const on = await call('PUT', `/api/v1/definitions/${definitionId}/certificate`, { enabled: true });
    expect(on.statusCode, on.body).toBeLessThan(300);
  });

  it("falls back to the issuer's language, and to the definition's own text without a translation", async () => {
    const b = await t.issuer({ slug: `text-mail-b-${dialect}`, name: 'Werkstatt Nord' });
    const profile = await call('PATCH', '/api/v1/issuer/me', { language: 'de' }, b.key);
    expect(profile.statusCode, profile.body).toBe(200);
    const definition = await call(
      'POST',
      '/api/v1/definitions',
      { name: 'Brazing', description: 'Hard soldering' },
      b.key,
    );
    const { mail } = await award('brazing@example.test', { issuer: b, definition: definition.json().id });
    expect(mail.decoded).toContain('<html lang="de">');
    expect(mail.decoded).toContain(words('de').heading);
    expect(mail.decoded).toContain('Brazing');
    // A credential's own language still comes first.
    const { mail: french } = await award('brasage@example.test', {
      issuer: b,
      definition: definition.json().id,
      language: 'fr-BE',
    });
    expect(french.decoded).toContain('<html lang="fr">');
    expect(french.decoded).toContain(words('fr').heading);
  });

  it("writes the expiry reminder in the credential's language with the translated name", async () => {
    const email = 'rappel@example.test';
    await award(email, { language: 'es', expiresInDays: 10 });
    const before = smtp.messages.length;
    const res = await call('POST', '/api/v1/notifications/reminders', { recipientEmails: [email] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ queued: 1 });
    const [mail] = await sentSince(before);
    expect(mail?.decoded).toContain('<html lang="es">');
    expect(mail?.decoded).toContain(words('es').reminder.heading);
    expect(mail?.decoded).toContain(NAMES.es);

    // Resent, the reminder is what the earner got last: it is sent again as the reminder.
    const id = (await credentialOf(email)) as string;
    const again = await resend(id, email);
    expect(again.decoded).toContain(words('es').reminder.heading);
    expect(again.decoded).toContain(NAMES.es);
    // A subject access request's history names it a reminder too.
    const exported = await call('POST', '/api/v1/gdpr/export', { recipientEmail: email });
    expect(exported.statusCode, exported.body).toBe(200);
    const credential = exported.json().credentials.find((c: { id: string }) => c.id === id);
    expect(credential.notifications.map((m: { kind: string }) => m.kind)).toEqual(['award', 'reminder', 'reminder']);
  });

  async function credentialOf(email: string): Promise<string | undefined> {
    const row = await t.database.db
      .selectFrom('credentials')
      .select('id')
      .where('completion_key', '=', `k:${email.split('@')[0]}`)
      .executeTakeFirst();
    return row?.id;
  }

  it('resends an award, a renewal, a reissue and a name correction in their own wording and language', async () => {
    const email = 'renvoi@example.test';
    const { id: first } = await award(email, { language: 'nl' });
    const plain = await resend(first, email);
    expect(plain.decoded).toContain('<html lang="nl">');
    expect(plain.decoded).toContain(words('nl').heading);
    expect(plain.decoded).toContain(NAMES.nl);

    const live = 'verlengd@example.test';
    const { id: expiring } = await award(live, { language: 'nl', expiresInDays: 200 });
    const renewed = await call('POST', `/api/v1/credentials/${expiring}/reissue`, { notify: false });
    expect(renewed.statusCode, renewed.body).toBe(201);
    const renewal = await resend(renewed.json().credentialId, live);
    expect(renewal.decoded).toContain(words('nl').replacement.renewal.heading);
    expect(renewal.decoded).toContain(NAMES.nl);

    const corrected = await call('POST', `/api/v1/credentials/${renewed.json().credentialId}/correct-name`, {
      recipientName: 'Zoë de Vries',
      notify: false,
    });
    expect(corrected.statusCode, corrected.body).toBe(201);
    const correction = await resend(corrected.json().credentialId, live);
    expect(correction.decoded).toContain(words('nl').replacement.correction.heading);

    const revokedEmail = 'ingetrokken@example.test';
    const { id: revoked } = await award(revokedEmail, { language: 'de' });
    const revoke = await call('POST', `/api/v1/credentials/${revoked}/revoke`, { reason: 'irrtümlich' });
    expect(revoke.statusCode, revoke.body).toBeLessThan(300);
    const reissued = await call('POST', `/api/v1/credentials/${revoked}/reissue`, { notify: false });
    expect(reissued.statusCode, reissued.body).toBe(201);
    const reissue = await resend(reissued.json().credentialId, revokedEmail);
    expect(reissue.decoded).toContain('<html lang="de">');
    expect(reissue.decoded).toContain(words('de').replacement.reissue.heading);
    expect(reissue.decoded).toContain(NAMES.de);

    const audit = await call('GET', `/api/v1/audit?targetId=${reissued.json().credentialId}`);
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.body).toMatch(/"action":"credential.notification_resent"[^}]*"kind":"reissue"/);
  });

  it("opens the email's unsubscribe page in the credential's language without Accept-Language", async () => {
    const { mail } = await award('desabonner@example.test', { language: 'de' });
    const link = /List-Unsubscribe:\s*<([^>]+)>/i.exec(mail.raw)?.[1];
    expect(link).toBeDefined();
    const url = new URL(link as string);
    const page = await t.app.inject({ method: 'GET', url: url.pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="de">');
    expect(page.headers['content-language']).toBe('de');
    expect(page.headers.vary).toContain('Accept-Language');
    const asked = await t.app.inject({ method: 'GET', url: url.pathname, headers: { 'accept-language': 'es' } });
    expect(asked.body).toContain('<html lang="es">');
  });
});
