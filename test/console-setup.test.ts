import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from './console.support.js';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { auth, dialects, type TestApp } from './helpers.js';
import { launchChromium } from './verification.support.js';

/** Issue 46 §1 in a browser: the first start's set-up, and the slug under its rule. */
const SETUP_MODE = { BOOTSTRAP_ISSUER: undefined } as unknown as Record<string, string>;
const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#0a7d5a"/></svg>';

describe('console set-up on sqlite', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let link: string;

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp('sqlite', { env: SETUP_MODE }));
    link = (await t.app.services.setup.open())?.match(/(http\S+\/console\/setup\/\S+)/)?.[1] ?? '';
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('leads the first owner through their own organisation: slug and URL, logo upload, colour, signed in', async () => {
    expect(link.startsWith(`${base}/console/setup/`)).toBe(true);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set up your organisation' }).waitFor();
    await page.getByLabel('Organisation name').fill('Riverside College');
    await expect.poll(() => page.getByLabel('Web address (slug)').inputValue()).toBe('riverside-college');
    await page.getByText(`${base}/v1/issuers/riverside-college/`, { exact: false }).waitFor();
    await page.getByLabel('Web address (slug)').fill('riverside');
    await page.getByText(`${base}/verify/riverside/`, { exact: false }).waitFor();
    await page.getByLabel('Contact email').fill('registry@riverside.example');
    await page.getByLabel('Website').fill('https://riverside.example');
    await page
      .getByLabel('Logo')
      .setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from(LOGO) });
    await page.getByLabel('Brand colour').fill('#0a7d5a');
    await page.getByLabel('Your email').fill('registrar@riverside.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await expectAccessible(page, 'set-up');
    await page.getByRole('button', { name: 'Create my organisation' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const issuers = await t.app.services.issuers.listIssuers();
    expect(issuers.map((issuer) => issuer.slug)).toEqual(['riverside']);
    expect(issuers[0]).toMatchObject({ name: 'Riverside College', brand_primary_color: '#0a7d5a' });
    await expect.poll(async () => (await t.app.services.issuers.listIssuers())[0]?.image_url).toMatch(/\/v1\/images\//);
    await page.goto(link);
    await page.getByText('This set-up link is unknown or already used').waitFor();

    await page.goto(`${base}/console/settings`);
    await page.getByRole('heading', { name: 'Web address' }).waitFor();
    await page.getByText('It can change until the first credential is issued').waitFor();
    await page.getByLabel('Slug', { exact: true }).fill('riverside-fe');
    await page.getByRole('button', { name: 'Save the web address' }).click();
    await page.getByText('Saved: the new web address is in use.').waitFor();
    expect((await t.app.services.issuers.listIssuers())[0]?.slug).toBe('riverside-fe');
    await expectAccessible(page, 'settings with the slug open');
    expect(problems).toEqual([]);
  });
});

describe.each(dialects)('console slug once a credential exists on %s', (dialect) => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    ({ t } = await startConsoleApp(dialect));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the slug locked and says why', async () => {
    const issuer = await t.issuer({ name: 'Locked College' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'First aid', description: 'd' },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId: definition.json().id, recipientEmail: 'a@locked.example', completionKey: 'k' },
    });
    const { page } = await openPage(browser, { viewport: { width: 1280, height: 900 } });
    await signInByInvite(page, t.app, issuer.id, 'owner@locked.example', 'owner');
    await page.getByRole('link', { name: 'Settings' }).first().click();
    await page.getByText('It can no longer change: a credential has been issued').waitFor();
    expect(await page.getByLabel('Slug', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Slug', { exact: true }).inputValue()).toBe(issuer.slug);
    await expectAccessible(page, 'settings with the slug locked');
  });
});
