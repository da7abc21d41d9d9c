import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

/**
 * Issue 45 in the console, in Chromium against the running service: the issuer's default language
 * and LinkedIn organization id on Settings, and the language a credential is issued in, one by one
 * and from a CSV's Language column.
 */
describe.each(dialects)('console languages on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let definition: { id: string; slug: string };
  const keyed = () => ({ authorization: `Bearer ${issuer.key}` });
  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const res = await t.app.inject({ method, url, headers: keyed(), ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };
  const issuedLanguage = async (completionKey: string) =>
    (
      await t.database.db
        .selectFrom('credentials')
        .select('language')
        .where('issuer_id', '=', issuer.id)
        .where('completion_key', '=', completionKey)
        .executeTakeFirst()
    )?.language;

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect));
    issuer = await t.issuer({ name: 'Languages College' });
    definition = await api('POST', '/api/v1/definitions', {
      name: 'First Aid',
      description: 'Knows first aid.',
      criteriaNarrative: 'Passed the practical.',
    });
    await api('PUT', `/api/v1/definitions/${definition.id}/translations/fr`, {
      name: 'Premiers secours',
      description: 'Connaît les premiers secours.',
    });
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } }));
    await signInByInvite(page, t.app, issuer.id, 'owner@languages.example', 'owner');
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('sets the default language and the LinkedIn organization id on the issuer profile', async () => {
    await page.goto(`${base}/console/settings`);
    const profile = page.getByRole('form', { name: 'Issuer profile' });
    const language = profile.getByLabel('Default language');
    await expect.poll(() => language.inputValue()).toBe('en');
    const linkedin = profile.getByLabel('LinkedIn organization id');
    expect(await linkedin.getAttribute('aria-describedby')).toBe('profile-linkedin-hint');
    await profile.getByText('linkedin.com/company/<number>/admin', { exact: false }).waitFor();
    await expectAccessible(page, 'settings with language and LinkedIn id');

    await language.fill('not a tag');
    await profile.getByRole('button', { name: 'Save profile' }).click();
    await profile.getByRole('alert').getByText('language', { exact: false }).waitFor();
    expect((await api('GET', '/api/v1/issuer/me')).language).toBe('en');

    await language.fill('fr-CH');
    await linkedin.fill('12345678');
    await profile.getByRole('button', { name: 'Save profile' }).click();
    await profile.getByRole('status').getByText('Saved.').waitFor();
    expect(await api('GET', '/api/v1/issuer/me')).toMatchObject({
      language: 'fr-CH',
      linkedinOrganizationId: '12345678',
    });

    await page.reload();
    await expect.poll(() => page.getByLabel('LinkedIn organization id').inputValue()).toBe('12345678');
    await page.getByLabel('LinkedIn organization id').fill('');
    await page.getByLabel('Default language').fill('en');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('form', { name: 'Issuer profile' }).getByRole('status').getByText('Saved.').waitFor();
    expect(await api('GET', '/api/v1/issuer/me')).toMatchObject({ language: 'en', linkedinOrganizationId: null });
  });

  it('issues one credential in French, the translation the definition has', async () => {
    await page.goto(`${base}/console/issue`);
    const form = page.getByRole('form', { name: 'Issue one credential' });
    await form.getByLabel('Definition', { exact: true }).selectOption({ label: 'First Aid' });
    const language = form.getByLabel('Language', { exact: true });
    await language.locator('optgroup[label="Translated"]').waitFor({ state: 'attached' });
    expect(await language.locator('optgroup[label="Translated"] option').allTextContents()).toEqual(['French (fr)']);
    expect(await language.locator('optgroup').nth(1).locator('option').allTextContents()).toEqual([
      'German (de)',
      'Spanish (es)',
      'Dutch (nl)',
    ]);
    expect(await language.locator('option').first().textContent()).toBe("English (en), the definition's own");
    await expectAccessible(page, 'issue form with a language');
    await language.selectOption('fr');
    await form.getByLabel('Recipient email').fill('camille@example.test');
    await form.getByLabel('Completion key').fill('lang-fr-1');
    await form.getByRole('button', { name: 'Issue credential' }).click();
    await form.getByRole('status').getByText('Issued credential', { exact: false }).waitFor();
    expect(await issuedLanguage('lang-fr-1')).toBe('fr');

    await form.getByLabel('Definition', { exact: true }).selectOption({ label: 'First Aid' });
    await form.getByLabel('Recipient email').fill('ada@example.test');
    await form.getByLabel('Completion key').fill('lang-default-1');
    await form.getByRole('button', { name: 'Issue credential' }).click();
    // The first issue's notice is still shown: the stored credential says when this one is done.
    await expect.poll(() => issuedLanguage('lang-default-1')).toBeNull();
  });

  it('imports a CSV with a Language column, each row issued in its own language', async () => {
    await page.goto(`${base}/console/issue`);
    const csv = [
      'Email,Name,Completion Key,Language',
      'jan@example.test,Jan Peeters,lang-csv-1,nl',
      'marie@example.test,Marie Dubois,lang-csv-2,FR',
      'sam@example.test,Sam Smith,lang-csv-3,',
      'bad@example.test,Bad Tag,lang-csv-4,not a tag',
    ].join('\n');
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'languages.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await expect.poll(() => page.locator('#map-language').inputValue()).toBe('Language');
    await page.getByLabel('Definition for rows without one').selectOption({ label: 'First Aid' });
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Preview (nothing issued yet): 4 rows').waitFor();
    await expectAccessible(page, 'import preview with a Language column');
    await page.getByRole('button', { name: 'Import 3 credentials' }).click();
    await page.getByText('Imported: 3 issued', { exact: false }).waitFor();
    expect([
      await issuedLanguage('lang-csv-1'),
      await issuedLanguage('lang-csv-2'),
      await issuedLanguage('lang-csv-3'),
    ]).toEqual(['nl', 'fr', null]);
    expect(problems).toEqual([]);
  });
});
