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
  });

  it('creates and edits a definition’s Open Badges 3.0 details, and aligns it with a typed target', async () => {
    await page.goto(`${base}/console/definitions`);
    await page.getByRole('button', { name: 'Create definition' }).click();
    const form = page.getByRole('form', { name: 'New definition' });
    await form.getByLabel('Name', { exact: true }).fill('Data Analysis');
    await form.getByLabel('Description').fill('Analyses data.');
    await form.getByLabel('Achievement type', { exact: true }).selectOption('MicroCredential');
    await form.getByLabel('Credits available').fill('2.5');
    await form.getByLabel('Field of study').fill('Technology');
    await form.getByLabel('Specialization').fill('Statistics');
    await form.getByLabel('Course code').fill('DA-101');
    await form.getByLabel('Your version').fill('2026.1');
    await expectAccessible(page, 'new definition with its details');
    await form.getByRole('button', { name: 'Save new definition' }).click();
    await page.getByRole('status').getByText('Created “Data Analysis”.').waitFor();
    const made = (await api('GET', '/api/v1/definitions')).find((d: { name: string }) => d.name === 'Data Analysis');
    expect(made).toMatchObject({
      language: 'en',
      achievementType: 'MicroCredential',
      creditsAvailable: 2.5,
      fieldOfStudy: 'Technology',
      specialization: 'Statistics',
      humanCode: 'DA-101',
      version: '2026.1',
      versionNumber: 1,
    });

    await page.getByRole('button', { name: 'Edit Data Analysis' }).click();
    const edit = page.getByRole('form', { name: 'Edit Data Analysis' });
    expect(await edit.getByLabel('Achievement type', { exact: true }).inputValue()).toBe('MicroCredential');
    expect(await edit.getByLabel('Language of the text').inputValue()).toBe('en');
    await edit.getByLabel('Achievement type', { exact: true }).selectOption('ext:');
    const term = edit.getByLabel('Achievement type: extension term');
    expect(await term.inputValue()).toBe('ext:');
    await term.fill('ext:bad term');
    await edit.getByRole('button', { name: 'Save definition' }).click();
    await edit.getByRole('alert').getByText('achievementType', { exact: false }).waitFor();
    await term.fill('ext:Apprenticeship');
    await edit.getByLabel('Field of study').fill('');
    await edit.getByRole('button', { name: 'Save definition' }).click();
    await page.getByRole('status').getByText('Saved “Data Analysis”.').waitFor();
    expect(await api('GET', `/api/v1/definitions/${made.id}`)).toMatchObject({
      achievementType: 'ext:Apprenticeship',
      fieldOfStudy: null,
      specialization: 'Statistics',
      creditsAvailable: 2.5,
    });

    await page.getByRole('button', { name: 'Edit Data Analysis' }).click();
    const alignments = page.getByRole('region', { name: 'Alignments' });
    await alignments.getByText('No alignments yet.').waitFor();
    await alignments.getByLabel('Target name').fill('Descriptive statistics');
    await alignments.getByLabel('Target URL').fill('https://case.example/uri/stats-1');
    await alignments.getByLabel('Code').fill('STATS.1');
    await alignments.getByLabel('Target type', { exact: true }).selectOption('CFItem');
    await expectAccessible(page, 'alignment form with a target type');
    await alignments.getByRole('button', { name: 'Add alignment' }).click();
    await alignments.getByRole('status').getByText('Added the alignment to “Descriptive statistics”.').waitFor();
    await alignments.getByText('type CFItem', { exact: false }).waitFor();
    expect(await alignments.getByLabel('Target type', { exact: true }).inputValue()).toBe('');
    expect(await api('GET', `/api/v1/definitions/${made.id}/alignments`)).toEqual([
      expect.objectContaining({ targetName: 'Descriptive statistics', targetCode: 'STATS.1', targetType: 'CFItem' }),
    ]);
  });

  it('translates a definition on its page, beside its own text: add, edit, refuse a bad tag, delete', async () => {
    await page.goto(`${base}/console/definitions`);
    await page.getByRole('link', { name: 'First Aid', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'First Aid' }).waitFor();
    const facts = page.locator('dl.facts');
    await facts.getByText('English (en)').waitFor();
    // A credential was issued above: a changed translation makes a new version (issue 45 §3).
    await facts.getByText('number 1 on this service').waitFor();
    const section = page.getByRole('region', { name: 'Translations' });
    const rows = section.locator('tbody tr');
    await expect.poll(() => rows.locator('th').allTextContents()).toEqual(['French (fr)']);
    await expectAccessible(page, 'definition page with its translations');

    await section.getByRole('button', { name: 'Edit the French (fr) translation' }).click();
    const form = section.getByRole('form', { name: 'Edit the French (fr) translation' });
    const description = form.getByLabel('Description (translation)');
    expect(await description.inputValue()).toBe('Connaît les premiers secours.');
    const own = page.locator(`#${await description.getAttribute('aria-describedby')}`);
    expect(await own.textContent()).toContain('Knows first aid.');
    expect(await page.locator('#translation-criteriaNarrative-own').textContent()).toContain('Passed the practical.');
    await form.getByLabel('Criteria (translation)').fill('A réussi la pratique.');
    await form.getByLabel('Certificate title (translation)').fill('Certificat de premiers secours');
    await expectAccessible(page, 'translation form beside the own text');
    await form.getByRole('button', { name: 'Save translation' }).click();
    await section.getByRole('status').getByText('Saved the French (fr) translation.').waitFor();
    expect(await api('GET', `/api/v1/definitions/${definition.id}/translations/fr`)).toMatchObject({
      name: 'Premiers secours',
      criteriaNarrative: 'A réussi la pratique.',
      certificateTitle: 'Certificat de premiers secours',
      certificateWording: null,
    });

    await section.getByRole('button', { name: 'Add a translation' }).click();
    const add = section.getByRole('form', { name: 'Add a translation' });
    await add.getByLabel('Language tag').fill('not a tag');
    await add.getByLabel('Name (translation)').fill('Erste Hilfe');
    await add.getByLabel('Description (translation)').fill('Kennt Erste Hilfe.');
    await add.getByRole('button', { name: 'Save translation' }).click();
    await add.getByRole('alert').getByText('Not a BCP 47 language tag', { exact: false }).waitFor();
    await add.getByLabel('Language tag').fill('en');
    await add.getByRole('button', { name: 'Save translation' }).click();
    await add.getByRole('alert').getByText("That is the definition's own language", { exact: false }).waitFor();
    await add.getByLabel('Language tag').fill('de-ch');
    await add.getByRole('button', { name: 'Save translation' }).click();
    await section
      .getByRole('status')
      .getByText(/^Saved the .*\(de-CH\) translation\.$/)
      .waitFor();
    await expect.poll(() => rows.count()).toBe(2);
    expect(
      (await api('GET', `/api/v1/definitions/${definition.id}/translations`)).map(
        (t: { language: string }) => t.language,
      ),
    ).toEqual(['de-CH', 'fr']);

    await section.getByRole('button', { name: 'Delete the French (fr) translation' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete the French (fr) translation of “First Aid”?' });
    await expectAccessible(page, 'delete translation dialog');
    await dialog.getByRole('button', { name: 'Delete translation' }).click();
    await section.getByRole('status').getByText('Deleted the French (fr) translation.').waitFor();
    expect(
      (await api('GET', `/api/v1/definitions/${definition.id}/translations`)).map(
        (t: { language: string }) => t.language,
      ),
    ).toEqual(['de-CH']);

    await page.reload();
    await page.locator('dl.facts').getByText('number 2 on this service').waitFor();
    expect(problems).toEqual([]);
  });

  it('shows a viewer the translations without the controls to change them', async () => {
    const viewer = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    await signInByInvite(viewer.page, t.app, issuer.id, 'viewer@languages.example', 'viewer');
    await viewer.page.goto(`${base}/console/definitions/${definition.id}`);
    const section = viewer.page.getByRole('region', { name: 'Translations' });
    await expect
      .poll(() => section.locator('tbody th').allTextContents())
      .toEqual([expect.stringContaining('(de-CH)')]);
    expect(await section.getByRole('button').count()).toBe(0);
    await expectAccessible(viewer.page, 'definition page as a viewer');
    await viewer.context.close();
  });

  it('fits the definition page and its translation form in 390 px', async () => {
    const phone = await openPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await signInByInvite(phone.page, t.app, issuer.id, 'phone@languages.example', 'issuer');
    await phone.page.goto(`${base}/console/definitions/${definition.id}`);
    const section = phone.page.getByRole('region', { name: 'Translations' });
    await section.getByRole('button', { name: /^Edit the .*\(de-CH\) translation$/ }).click();
    await section.getByLabel('Description (translation)').waitFor();
    const width = await phone.page.evaluate<{ scroll: number; client: number }>(`(() => {
      const root = document.scrollingElement ?? document.documentElement;
      return { scroll: root.scrollWidth, client: root.clientWidth };
    })()`);
    expect(width.scroll).toBeLessThanOrEqual(width.client);
    await expectAccessible(phone.page, 'translation form on a phone');
    expect(phone.problems).toEqual([]);
    await phone.context.close();
  });
});
