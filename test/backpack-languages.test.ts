import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentPage, expiredPage } from '../src/modules/obapi/consent.page.js';
import { consentMessages } from '../src/modules/obapi/messages/index.js';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../src/modules/obapi/obapi.scopes.js';
import { earnerSession } from './backpack.support.js';
import { expectAccessible, watchProblems } from './console-browser.support.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, freePort, issue, launchChromium } from './verification.support.js';

const EMAIL = 'mila.sprachen@example.test';

/** What each language's backpack says, as a reader of that language expects it. */
const WORDS = {
  fr: {
    title: 'Votre sac à badges',
    issued: 'délivré le 21 novembre 2026',
    status: 'Statut\u00a0: valide',
    name: 'Littératie des données',
  },
  de: {
    title: 'Ihr Badge-Rucksack',
    issued: 'ausgestellt am 21. November 2026',
    status: 'Status: gültig',
    name: 'Datenkompetenz',
  },
  es: {
    title: 'Tu mochila de insignias',
    issued: 'emitida el 21 de noviembre de 2026',
    status: 'Estado: válida',
    name: 'Alfabetización de datos',
  },
  nl: {
    title: 'Je badgerugzak',
    issued: 'uitgereikt op 21 november 2026',
    status: 'Status: geldig',
    name: 'Datageletterdheid',
  },
} as const;
type Translated = keyof typeof WORDS;
const LANGUAGES = Object.keys(WORDS) as Translated[];

/**
 * The backpack in the earner's language (issue 45 §2): `?lang=`, else Accept-Language by q-value,
 * else English; `<html lang>`, the labels, the dates and the badge's translated name (one statement
 * for all the page's translations). And the OB 3.0 API's consent page in each language.
 */
describe.each(dialects)('backpack languages on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let a: TestIssuer;
  let session: Awaited<ReturnType<typeof earnerSession>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { clock, env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    a = await t.issuer({ slug: `bp-lang-${dialect}`, name: 'Académie Nordwind' });
    const definition = await createDefinition(t, a, { name: 'Data Literacy' });
    for (const language of LANGUAGES) {
      const saved = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/definitions/${definition.id}/translations/${language}`,
        headers: auth(a.key),
        payload: { name: WORDS[language].name, description: `${WORDS[language].name} (${language})` },
      });
      expect(saved.statusCode, saved.body).toBe(200);
    }
    await issue(t, a, definition.id, { email: EMAIL, name: 'Mila Sprachen' });
    session = await earnerSession(t.app, EMAIL);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const backpack = (query: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/backpack${query}`, headers: { cookie: session.cookie, ...headers } });

  it('stays English with no language asked, with the badge’s own name', async () => {
    const page = await backpack('');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('<h1>Your backpack</h1>');
    expect(page.body).toContain('issued 21 November 2026');
    expect(page.body).toContain('Status: valid');
    expect(page.body).toContain('<h2>Data Literacy</h2>');
    expect(page.headers['content-language']).toBe('en');
    expect(page.headers.vary).toContain('Accept-Language');
  });

  for (const language of LANGUAGES) {
    it(`speaks ${language} by ?lang= and by Accept-Language, badge name translated`, async () => {
      for (const page of [
        await backpack(`?lang=${language}`, { 'accept-language': 'en' }),
        await backpack('', { 'accept-language': `da, ${language}-BE;q=0.8, en;q=0.5` }),
      ]) {
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain(`<html lang="${language}">`);
        expect(page.body).toContain(`<h1>${WORDS[language].title}</h1>`);
        expect(page.body).toContain(WORDS[language].issued);
        expect(page.body).toContain(WORDS[language].status);
        // The translation is in the page's language: no `lang` of its own on the heading.
        expect(page.body).toContain(`<h2>${WORDS[language].name}</h2>`);
        expect(page.body).not.toContain('Your backpack');
        expect(page.headers['content-language']).toBe(language);
      }
    });
  }

  it('passes over q=0 and languages without words here, to English', async () => {
    const page = await backpack('', { 'accept-language': 'fr;q=0, ja, pt-BR' });
    expect(page.body).toContain('<html lang="en">');
    const italian = await backpack('?lang=it');
    expect(italian.body).toContain('<html lang="en">');
  });

  it('writes the sign-in form and its answers in the language asked, and keeps ?lang= for the email', async () => {
    const form = await t.app.inject({ method: 'GET', url: '/backpack?lang=de' });
    expect(form.body).toContain('<html lang="de">');
    expect(form.body).toContain('Anmeldelink senden');
    expect(form.body).toContain('<input type="hidden" name="lang" value="de">');
    const chosen = await t.app.inject({ method: 'GET', url: '/backpack', headers: { 'accept-language': 'es' } });
    expect(chosen.body).toContain('<html lang="es">');
    expect(chosen.body).not.toContain('name="lang"');
    const refused = await t.app.inject({
      method: 'POST',
      url: '/backpack/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: 'not an address', lang: 'nl' }).toString(),
    });
    expect(refused.body).toContain('<html lang="nl">');
    // No SMTP here: the refusal says so in the form's language.
    expect(refused.body).toMatch(/Vul een e-mailadres in|Aanmelden per e-mail is op deze dienst niet ingesteld/);
    const unusable = await t.app.inject({
      method: 'POST',
      url: '/backpack/sign-in/not-a-link?lang=fr',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'binding=x',
    });
    expect(unusable.statusCode).toBe(403);
    expect(unusable.body).toContain('<html lang="fr">');
    expect(unusable.body).toContain('Rouvrez le lien reçu par e-mail');
  });

  it('writes the import page, the deletion page and the wallet offer in the language asked', async () => {
    const importing = await t.app.inject({
      method: 'GET',
      url: '/backpack/import?lang=es',
      headers: { cookie: session.cookie },
    });
    expect(importing.body).toContain('<html lang="es">');
    expect(importing.body).toContain('Importar una insignia de otra plataforma');
    const deleting = await t.app.inject({
      method: 'GET',
      url: '/backpack/account/delete',
      headers: { cookie: session.cookie, 'accept-language': 'fr-CH' },
    });
    expect(deleting.body).toContain('<html lang="fr">');
    expect(deleting.body).toContain('son lien vers 1 badge');
  });

  it('words the consent page in every language, the scopes as OB 3.0 §6.1 describes them in English', async () => {
    const input = {
      action: '/confirm',
      csrf: 'c',
      clientName: 'Portfolio Example',
      clientUri: 'https://portfolio.example',
      redirectHost: 'portfolio.example',
      scopes: Object.values(SCOPES),
    };
    const english = consentPage('n', input);
    expect(english).toContain('<html lang="en">');
    for (const scope of Object.values(SCOPES)) expect(english).toContain(SCOPE_DESCRIPTIONS[scope]);
    expect(english).toContain('<strong>Portfolio Example</strong> (https://portfolio.example) will be sent back to');
    for (const language of LANGUAGES) {
      const page = consentPage('n', input, language);
      expect(page).toContain(`<html lang="${language}">`);
      expect(page).toContain(consentMessages(language).scopes['credential.upsert']);
      expect(page).toContain('<strong>portfolio.example</strong>');
      expect(expiredPage('n', language)).toContain(consentMessages(language).expired.heading);
    }
  });

  for (const language of LANGUAGES) {
    it(`passes axe in ${language}: the backpack, the sign-in form and the consent page, with no CSP problem`, async () => {
      const context = await browser.newContext({ locale: language });
      await context.addCookies(
        session.cookie.split('; ').map((pair) => {
          const at = pair.indexOf('=');
          return { name: pair.slice(0, at), value: pair.slice(at + 1), url: base };
        }),
      );
      const page = await context.newPage();
      const problems = watchProblems(page);
      // No ?lang=: Chromium's own Accept-Language (its locale) chooses the language.
      await page.goto(`${base}/backpack`, { waitUntil: 'load' });
      expect(await page.getAttribute('html', 'lang')).toBe(language);
      expect(await page.textContent('h1')).toBe(WORDS[language].title);
      await expectAccessible(page, `${language} backpack`);
      await page.goto(`${base}/backpack/import`, { waitUntil: 'load' });
      await expectAccessible(page, `${language} import`);
      const signedOut = await browser.newContext();
      const form = await signedOut.newPage();
      await form.goto(`${base}/backpack?lang=${language}`, { waitUntil: 'load' });
      expect(await form.getAttribute('html', 'lang')).toBe(language);
      await expectAccessible(form, `${language} sign-in`);
      await form.setContent(
        consentPage(
          'n',
          {
            action: '/confirm',
            csrf: 'c',
            clientName: 'Portfolio Example',
            clientUri: null,
            redirectHost: 'portfolio.example',
            scopes: Object.values(SCOPES),
          },
          language,
        ),
      );
      await expectAccessible(form, `${language} consent`);
      expect(problems, language).toEqual([]);
      await signedOut.close();
      await context.close();
    });
  }
});
