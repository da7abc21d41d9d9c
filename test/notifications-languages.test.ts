import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceivedMail, startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { en } from '../src/modules/notifications/messages/en.js';
import { NOTIFICATION_CATALOGUE } from '../src/modules/notifications/messages/index.js';
import { acceptedLanguages, firstLanguage } from '../src/modules/notifications/notifications.messages.js';
import { form } from './backpack.support.js';
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

/** Every string of a catalogue by its dotted key. */
function strings(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof child === 'string') out.set(path, child);
    else for (const [k, v] of strings(child, path)) out.set(k, v);
  }
  return out;
}
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('earner message catalogues (issue 45 §2)', () => {
  it('has en, fr, de, es and nl, each with every key and the same placeholders as English', () => {
    expect(Object.keys(NOTIFICATION_CATALOGUE).sort()).toEqual(['de', 'en', 'es', 'fr', 'nl']);
    const english = strings(en);
    for (const [language, catalogue] of Object.entries(NOTIFICATION_CATALOGUE)) {
      const theirs = strings(catalogue);
      expect([...theirs.keys()].sort(), language).toEqual([...english.keys()].sort());
      for (const [key, text] of english) {
        expect(text.trim(), `${language} ${key}`).not.toBe('');
        expect(placeholders(theirs.get(key) ?? ''), `${language} ${key}`).toEqual(placeholders(text));
      }
      // A date in the catalogue's locale is written in its language, not in English.
      const date = new Intl.DateTimeFormat(catalogue.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(
        new Date('2026-11-21T10:00:00Z'),
      );
      if (language !== 'en') expect(date).not.toBe('21 November 2026');
    }
  });

  it('reads Accept-Language by q-value and falls back along the candidates to English', () => {
    // `*` comes through (q-ordered, as the locale core reads it) and names no language, so it is passed over.
    expect(acceptedLanguages('de;q=0.5, nl-BE, fr;q=0.8, *;q=0.1, es;q=0')).toEqual(['nl-BE', 'fr', 'de', '*']);
    expect(firstLanguage(...acceptedLanguages('*, es;q=0'))).toBe('en');
    expect(acceptedLanguages(undefined)).toEqual([]);
    expect(firstLanguage('it', 'pt-BR', 'NL-be')).toBe('nl');
    expect(firstLanguage(undefined, null, 'xx')).toBe('en');
    expect(firstLanguage('constructor', 'toString')).toBe('en');
  });
});

describe.each(dialects)('earner emails in every language on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, {
      clock,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60000' },
    });
    a = await t.issuer({ slug: `lang-${dialect}`, name: 'Atelier Lumière' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Soudure', description: 'Atelier de soudure' },
    });
    definitionId = res.json().id;
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const settings = async (payload: Record<string, unknown>) => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      headers: auth(a.key),
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  /** What was sent since `before`, after the queue drained. */
  const sentSince = async (before: number): Promise<ReceivedMail[]> => {
    await t.app.services.notifications.drain();
    return smtp.messages.slice(before);
  };
  const issue = async (email: string, key: string, expiresInDays?: number) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: email, completionKey: key, notify: true },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().credentialId as string;
    if (expiresInDays !== undefined) {
      const expires = new Date(clock.now().getTime() + expiresInDays * DAY_MS).toISOString();
      await t.database.db.updateTable('credentials').set({ expires_on: expires }).where('id', '=', id).execute();
    }
    // Its own award is sent now, so that what a test sends next is all it reads.
    await t.app.services.notifications.drain();
    return id;
  };

  const AWARDS = {
    en: ['Atelier Lumière has awarded you the credential &quot;Soudure&quot;', 'Issued on 21 November 2026'],
    fr: ['Atelier Lumière vous a décerné le certificat « Soudure »', 'Délivré le 21 novembre 2026'],
    de: ['Atelier Lumière hat Ihnen den Nachweis „Soudure“ verliehen', 'Ausgestellt am 21. November 2026'],
    es: ['Atelier Lumière te ha otorgado la credencial «Soudure»', 'Emitida el 21 de noviembre de 2026'],
    nl: ['Atelier Lumière heeft je het certificaat „Soudure” toegekend', 'Uitgegeven op 21 november 2026'],
  } as const;

  it('writes the award in each language, with the date formatted for it, in both parts', async () => {
    for (const [language, [sentence, date]] of Object.entries(AWARDS)) {
      await settings({ language });
      const before = smtp.messages.length;
      await issue(`award.${language}@example.test`, `lang:award:${language}`);
      const [mail] = await sentSince(before);
      expect(mail?.decoded, language).toContain(`<html lang="${language}">`);
      expect(mail?.decoded, language).toContain(sentence);
      expect(mail?.decoded, language).toContain(date);
      // The plain-text part says the same, unescaped.
      const text = mail?.decoded.split('Content-Type: text/html')[0] ?? '';
      expect(text, language).toContain(date);
      expect(text, language).toContain(
        NOTIFICATION_CATALOGUE[language as keyof typeof NOTIFICATION_CATALOGUE].viewBadge,
      );
      expect(mail?.decoded, language).toContain(
        NOTIFICATION_CATALOGUE[language as keyof typeof NOTIFICATION_CATALOGUE].unsubscribe.replace(
          '{issuer}',
          'Atelier Lumière',
        ),
      );
    }
  });

  it('says a renewal, a reissue and a name correction are what they are, in the language', async () => {
    await settings({ language: 'fr' });
    const email = 'remplace@example.test';
    const first = await issue(email, 'lang:replace', 30);
    let before = smtp.messages.length;
    const renewed = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${first}/reissue`,
      headers: auth(a.key),
      payload: { notify: true, recipientEmail: email },
    });
    expect(renewed.statusCode, renewed.body).toBe(201);
    expect(renewed.json().notification).toBe('queued');
    const [renewal] = await sentSince(before);
    expect(renewal?.decoded).toContain('Votre badge a été renouvelé');
    expect(renewal?.decoded).toContain('Atelier Lumière a renouvelé votre certificat « Soudure »');

    before = smtp.messages.length;
    const corrected = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${renewed.json().credentialId}/correct-name`,
      headers: auth(a.key),
      payload: { recipientName: 'Zoé Lefèvre', notify: true, recipientEmail: email },
    });
    expect(corrected.statusCode, corrected.body).toBe(201);
    const [correction] = await sentSince(before);
    expect(correction?.decoded).toContain('Votre badge a été corrigé');

    // A revoked credential replaced is a reissue, not a renewal.
    const revokedId = await issue('revoque@example.test', 'lang:revoked');
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${revokedId}/revoke`,
      headers: auth(a.key),
      payload: { reason: 'émis par erreur' },
    });
    before = smtp.messages.length;
    const reissued = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${revokedId}/reissue`,
      headers: auth(a.key),
      payload: { notify: true, recipientEmail: 'revoque@example.test' },
    });
    expect(reissued.statusCode, reissued.body).toBe(201);
    const [reissue] = await sentSince(before);
    expect(reissue?.decoded).toContain('Votre badge a été réémis');
  });

  it('tells earners of a CSV renewal with an email column when the issuer notifies by default', async () => {
    await settings({ language: 'de', notifyByDefault: true });
    const email = 'erneuern@example.test';
    await issue(email, 'lang:renew-csv', 20);
    await issue('other@example.test', 'lang:renew-wrong', 20);
    const before = smtp.messages.length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials/renewals',
      headers: auth(a.key),
      payload: { csv: `completionKey,Email Address\nlang:renew-csv,${email}\nlang:renew-wrong,${email}\n` },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ renewed: 1, errors: 1 });
    expect(res.json().rows[1].message).toContain("not this credential's recipient");
    expect(res.body).not.toContain(email);
    const sent = await sentSince(before);
    expect(sent.map((m) => m.to[0])).toEqual([email]);
    expect(sent[0]?.decoded).toContain('Ihr Abzeichen wurde erneuert');
    await settings({ notifyByDefault: false });
  });

  it("carries the issuer's own text and renewal link in the reminder; refuses an http link", async () => {
    expectErrorBody(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/notifications/settings',
        headers: auth(a.key),
        payload: { reminderLink: 'http://example.test/renew' },
      }),
      400,
      'validation_failed',
    );
    expectErrorBody(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/notifications/settings',
        headers: auth(a.key),
        payload: { reminderLink: 'javascript:alert(1)' },
      }),
      400,
      'validation_failed',
    );
    const saved = await settings({
      language: 'es',
      expiryReminders: true,
      reminderNote: 'Inscríbete en el curso de <repaso>\nantes de marzo.',
      reminderLink: 'https://atelier.example/renovar?curso=soudure',
    });
    expect(saved).toMatchObject({
      reminderNote: 'Inscríbete en el curso de <repaso>\nantes de marzo.',
      reminderLink: 'https://atelier.example/renovar?curso=soudure',
    });
    const email = 'recordatorio@example.test';
    await issue(email, 'lang:remind', 10);
    const before = smtp.messages.length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/notifications/reminders',
      headers: auth(a.key),
      payload: { recipientEmails: [email] },
    });
    expect(res.json()).toMatchObject({ queued: 1 });
    const [mail] = await sentSince(before);
    const html = mail?.decoded ?? '';
    expect(html).toContain('Tu insignia caduca pronto');
    expect(html).toContain('Caduca el 1 de diciembre de 2026');
    expect(html).toContain('Un mensaje de Atelier Lumière:');
    expect(html).toContain('Inscríbete en el curso de &lt;repaso&gt;<br>antes de marzo.');
    expect(html).toContain('href="https://atelier.example/renovar?curso=soudure"');
    expect(html).toContain('Renovar tu insignia');
    // With a link the message no longer tells the earner to ask how to renew.
    expect(html).not.toContain('Pregunta a');
    expect(html).toContain('Renovar tu insignia: https://atelier.example/renovar?curso=soudure');

    const cleared = await settings({ reminderNote: '  ', reminderLink: null, expiryReminders: false });
    expect(cleared).toMatchObject({ reminderNote: null, reminderLink: null });
  });

  it('previews the message with a sample badge before the issuer has any', async () => {
    const fresh = await t.issuer({ slug: `lang-empty-${dialect}`, name: 'Nieuwe School' });
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/notifications/settings',
      headers: auth(fresh.key),
      payload: { language: 'nl' },
    });
    const award = await t.app.inject({ method: 'GET', url: '/api/v1/notifications/preview', headers: auth(fresh.key) });
    expect(award.statusCode, award.body).toBe(200);
    expect(award.json().subject).toBe('Nieuwe School heeft je „Sample badge” toegekend');
    expect(award.json().html).toContain('src="data:image/svg+xml,');
    const reminder = await t.app.inject({
      method: 'GET',
      url: '/api/v1/notifications/preview?kind=reminder',
      headers: auth(fresh.key),
    });
    expect(reminder.json().text).toContain('Je badge verloopt binnenkort');
    expectErrorBody(
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/notifications/preview?definitionId=nope',
        headers: auth(fresh.key),
      }),
      404,
      'not_found',
    );
  });

  it('shows the unsubscribe page in the language asked for, else the message language', async () => {
    await settings({ language: 'de' });
    const before = smtp.messages.length;
    await issue('abmelden@example.test', 'lang:unsubscribe');
    const [mail] = await sentSince(before);
    const url = new URL(/^<(.+)>$/.exec(mail?.headers['list-unsubscribe'] ?? '')?.[1] ?? '');
    const open = (query: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url: `${url.pathname}${query}`, headers });
    const german = await open('');
    expect(german.body).toContain('<html lang="de">');
    expect(german.body).toContain('Keine E-Mails zu Abzeichen von Atelier Lumière mehr erhalten?');
    const byHeader = await open('', { 'accept-language': 'nl-BE,nl;q=0.9,en;q=0.5' });
    expect(byHeader.body).toContain('<html lang="nl">');
    expect(byHeader.headers.vary).toContain('Accept-Language');
    const byQuery = await open('?lang=es', { 'accept-language': 'nl' });
    expect(byQuery.body).toContain('¿Dejar de recibir correos sobre insignias de Atelier Lumière?');
    const done = await t.app.inject({ method: 'POST', url: `${url.pathname}?lang=fr` });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Vous êtes désabonné : Atelier Lumière ne vous enverra plus d’e-mails de badges.');
    expect(done.body).toContain('contactez Atelier Lumière');
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/notifications/unsubscribe/not-a-token',
      headers: { 'accept-language': 'es' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('Este enlace para darse de baja no es válido.');
  });

  it("writes the backpack sign-in email in the sign-in request's language", async () => {
    const ask = (email: string, headers: Record<string, string>, extra = '') =>
      t.app.inject({
        method: 'POST',
        url: `/backpack/sign-in${extra}`,
        headers: { ...form, ...headers },
        payload: `email=${encodeURIComponent(email)}`,
      });
    const cases: [string, Record<string, string>, string, string][] = [
      ['sac@example.test', { 'accept-language': 'fr-CA,fr;q=0.9' }, '', 'Se connecter à votre sac à badges'],
      ['rucksack@example.test', { 'accept-language': 'en;q=0.4, de' }, '', 'Der Link gilt einmal, 15 Minuten lang.'],
      ['mochila@example.test', { 'accept-language': 'de' }, '?lang=es', 'Acceder a tu mochila'],
      ['rugzak@example.test', {}, '?lang=nl', 'Aanmelden bij je rugzak'],
      ['backpack@example.test', { 'accept-language': 'ja' }, '', 'Sign in to your backpack'],
    ];
    for (const [email, headers, query, expected] of cases) {
      const before = smtp.messages.length;
      expect((await ask(email, headers, query)).statusCode).toBe(200);
      const mail = smtp.messages.slice(before).find((m) => m.to.includes(email));
      expect(mail?.decoded, email).toContain(expected);
    }
  });
});
