import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, watchProblems } from './console-browser.support.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, freePort, launchChromium } from './verification.support.js';

/**
 * The verification page shows the badge's translated text (issue 45 §2), chosen in the page's
 * order: `?lang=`, Accept-Language, the credential's language, the issuer's, English; the text of
 * the version the credential was issued under (issue 45 §3); and a translation saved after a page
 * was shown shows at once (the cached page row is dropped).
 */
describe.each(dialects)('verification page with translated badge text on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let a: TestIssuer;
  let definitionId: string;
  let views = 0;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  const TEXT = {
    fr: {
      name: 'Culture des données',
      description: 'Lire et juger des données.',
      criteria: 'Réussir les six modules.',
    },
    de: { name: 'Datenkompetenz', description: 'Daten lesen und beurteilen.', criteria: 'Alle sechs Module bestehen.' },
    es: { name: 'Alfabetización de datos', description: 'Leer y juzgar datos.', criteria: 'Aprobar los seis módulos.' },
    nl: { name: 'Datageletterdheid', description: 'Data lezen en beoordelen.', criteria: 'Alle zes modules halen.' },
  } as const;

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: url.replace(base, ''), headers, remoteAddress: `10.45.0.${++views % 256}` });
  const h1 = (body: string) => /<h1 id="badge-name"( lang="[^"]+")?>([^<]*)<\/h1>/.exec(body);

  async function issueIn(language: string | null, email: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: {
        definitionId,
        recipientEmail: email,
        recipientName: 'Grace Hopper',
        completionKey: `k-${email.split('@')[0]}`,
        ...(language ? { language } : {}),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { credentialId: string; verifyUrl: string };
  }
  async function translate(language: string, text: { name: string; description: string; criteria: string }) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/definitions/${definitionId}/translations/${language}`,
      headers: auth(a.key),
      payload: { name: text.name, description: text.description, criteriaNarrative: text.criteria },
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { clock, env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    a = await t.issuer({ slug: `text-${dialect}`, name: 'Académie Nordwind' });
    const definition = await createDefinition(t, a, {
      name: 'Data Literacy',
      description: 'Read and judge data.',
      criteriaNarrative: 'Complete all six modules.',
    });
    definitionId = definition.id;
    for (const [language, text] of Object.entries(TEXT)) await translate(language, text);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the translation of the ?lang= language: name, description, criteria, title', async () => {
    const issued = await issueIn(null, 'query@example.test');
    for (const [language, text] of Object.entries(TEXT)) {
      const res = await get(`${issued.verifyUrl}?lang=${language}`);
      expect(res.statusCode, language).toBe(200);
      expect(res.body, language).toContain(`<html lang="${language}">`);
      expect(h1(res.body)?.[2], language).toBe(text.name);
      expect(h1(res.body)?.[1], language).toBeUndefined();
      expect(res.body, language).toContain(`<p class="prose">${text.description}</p>`);
      expect(res.body, language).toContain(`<p class="prose">${text.criteria}</p>`);
      expect(res.body, language).toMatch(new RegExp(`<title>[^<]*${text.name}`));
      expect(res.body, language).not.toContain('Data Literacy');
    }
  });

  it("follows Accept-Language, then the credential's language, then the issuer's, then English", async () => {
    const inGerman = await issueIn('de', 'german@example.test');
    const plain = await issueIn(null, 'plain@example.test');
    const shown = async (url: string, headers: Record<string, string> = {}) => {
      const res = await get(url, headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers.vary).toContain('Accept-Language');
      return { lang: /<html lang="([a-z]+)">/.exec(res.body)?.[1], name: h1(res.body)?.[2] };
    };
    expect(await shown(inGerman.verifyUrl, { 'accept-language': 'es;q=0.9, en;q=0.1' })).toEqual({
      lang: 'es',
      name: TEXT.es.name,
    });
    expect(await shown(inGerman.verifyUrl)).toEqual({ lang: 'de', name: TEXT.de.name });
    expect(await shown(inGerman.verifyUrl, { 'accept-language': 'pt-BR' })).toEqual({ lang: 'de', name: TEXT.de.name });
    expect(await shown(plain.verifyUrl)).toEqual({ lang: 'en', name: 'Data Literacy' });

    const issuer = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/issuer/me',
      headers: auth(a.key),
      payload: { language: 'nl' },
    });
    expect(issuer.statusCode, issuer.body).toBe(200);
    expect(await shown(plain.verifyUrl)).toEqual({ lang: 'nl', name: TEXT.nl.name });
    expect(await shown(inGerman.verifyUrl)).toEqual({ lang: 'de', name: TEXT.de.name });
    const reset = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/issuer/me',
      headers: auth(a.key),
      payload: { language: 'en' },
    });
    expect(reset.statusCode, reset.body).toBe(200);
  });

  it('prefers a regional translation the credential was issued in, and marks a fallback text with its language', async () => {
    await translate('fr-CA', {
      name: 'Littératie des données',
      description: 'Lire des données.',
      criteria: 'Six modules.',
    });
    const canadian = await issueIn('fr-CA', 'quebec@example.test');
    const res = await get(canadian.verifyUrl);
    expect(res.body).toContain('<html lang="fr">');
    expect(h1(res.body)?.[2]).toBe('Littératie des données');
    expect(h1(res.body)?.[1]).toBe(' lang="fr-CA"');
    expect((await get(`${canadian.verifyUrl}?lang=fr`)).body).toContain(`>${TEXT.fr.name}</h1>`);

    const untranslated = await createDefinition(t, a, { name: 'Spreadsheets', description: 'Tables and sums.' });
    const sheet = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId: untranslated.id, recipientEmail: 'sheet@example.test', completionKey: 'k-sheet' },
    });
    expect(sheet.statusCode, sheet.body).toBe(201);
    const german = await get(`${sheet.json().verifyUrl}?lang=de`);
    expect(german.body).toContain('<html lang="de">');
    expect(german.body).toContain('<h1 id="badge-name" lang="en">Spreadsheets</h1>');
    expect(german.body).toContain('<p class="prose" lang="en">Tables and sums.</p>');
  });

  it('shows a translation saved after the page was shown, and keeps the text of the version issued under', async () => {
    const before = await issueIn('es', 'before@example.test');
    expect(h1((await get(before.verifyUrl)).body)?.[2]).toBe(TEXT.es.name);
    clock.advance(60_000);
    await translate('es', { ...TEXT.es, name: 'Competencia en datos' });
    const after = await issueIn('es', 'after@example.test');
    // The earlier credential keeps the text it was issued with; the later one shows the new text.
    expect(h1((await get(before.verifyUrl)).body)?.[2]).toBe(TEXT.es.name);
    expect(h1((await get(after.verifyUrl)).body)?.[2]).toBe('Competencia en datos');

    clock.advance(60_000);
    const edit = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/definitions/${definitionId}`,
      headers: auth(a.key),
      payload: { name: 'Data Literacy II', description: 'Read, judge and present data.' },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const english = await get(`${after.verifyUrl}?lang=en`);
    expect(h1(english.body)?.[2]).toBe('Data Literacy');
    expect(english.body).toContain('<p class="prose">Read and judge data.</p>');
    expect(h1((await get(after.verifyUrl)).body)?.[2]).toBe('Competencia en datos');
    const latest = await issueIn(null, 'latest@example.test');
    expect(h1((await get(latest.verifyUrl)).body)?.[2]).toBe('Data Literacy II');
    await translate('es', TEXT.es);
  });

  it('writes dates for the language with the translated text', async () => {
    const issued = await issueIn('nl', 'dates@example.test');
    const res = await get(issued.verifyUrl);
    expect(res.body).toMatch(/<dt>Uitgegeven op<\/dt><dd><time datetime="[^"]+">\d{1,2} november 2026<\/time><\/dd>/);
    expect(res.headers['content-language']).toBe('nl');
  });

  it("writes the badge's credits with the language's number format", async () => {
    const credited = await createDefinition(t, a, { name: 'Metrology', creditsAvailable: 1250.5 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId: credited.id, recipientEmail: 'credits@example.test', completionKey: 'k-credits' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const url = res.json().verifyUrl as string;
    for (const [language, label, number] of [
      ['en', 'Credits', '1,250.5'],
      ['de', 'Leistungspunkte', '1.250,5'],
      ['fr', 'Crédits', '1\u202f250,5'],
      ['nl', 'Studiepunten', '1.250,5'],
    ]) {
      const page = await get(`${url}?lang=${language}`);
      expect(page.body, language).toContain(`<dt>${label}</dt><dd>${JSON.parse(`"${number}"`)}</dd>`);
    }
    const uncredited = await issueIn(null, 'nocredits@example.test');
    expect((await get(uncredited.verifyUrl)).body).not.toContain('<dt>Credits</dt>');
  });

  for (const language of ['fr', 'de', 'es', 'nl'] as const) {
    it(`passes axe in Chromium in ${language} with the translated text`, async () => {
      const issued = await issueIn(language, `axe-${language}@example.test`);
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      const problems = watchProblems(page);
      // No Accept-Language preference of Chromium's wins over the credential's language here.
      await page.goto(`${issued.verifyUrl}?lang=${language}`, { waitUntil: 'load' });
      expect(await page.getAttribute('html', 'lang')).toBe(language);
      expect(await page.textContent('#badge-name')).toBe(TEXT[language].name);
      await expectAccessible(page, `${language} translated`);
      expect(problems, language).toEqual([]);
      await context.close();
    });
  }
});
