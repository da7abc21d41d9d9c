import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneLine, readPdf } from './certificates.support.js';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

const TIMEOUT = 240_000;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

describe.each(dialects)('console certificate designer on %s', { timeout: TIMEOUT }, (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let definitionId: string;
  const keyed = () => ({ authorization: `Bearer ${issuer.key}` });

  /** The preview frame's current blob URL, once the service has drawn one. */
  async function previewUrl(target: Page): Promise<string> {
    const frame = target.getByTitle('Certificate preview (PDF)');
    await frame.waitFor();
    const src = await frame.getAttribute('src');
    expect(src).toMatch(/^blob:/);
    return src as string;
  }
  /** The text of the PDFs the designer asked the service for, newest last (the preview's own requests). */
  const previews: Promise<string>[] = [];
  async function watchPreviews(target: Page) {
    // Through the route, not the response event: Chromium keeps no body of a response read as a blob.
    await target.route('**/api/v1/certificates/preview', async (route) => {
      const response = await route.fetch();
      const body = await response.body();
      if (response.status() === 200) previews.push(readPdf(body).then(({ text }) => oneLine(text)));
      await route.fulfill({ response, body });
    });
  }
  const latestPreview = async () => (previews.length ? await previews[previews.length - 1] : '');

  beforeAll(async () => {
    ({ t } = await startConsoleApp(dialect));
    issuer = await t.issuer({ name: 'Certificate Academy' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: keyed(),
      payload: { name: 'Forklift Safety', description: 'Operates a forklift safely.' },
    });
    expect(created.statusCode, created.body).toBe(201);
    definitionId = created.json().id;
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, { viewport: DESKTOP, acceptDownloads: true }));
    await watchPreviews(page);
    await signInByInvite(page, t.app, issuer.id, 'owner@certificates.example', 'owner');
  }, TIMEOUT);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('designs a badge’s certificate with a live preview of the real PDF, and saves it', async () => {
    await page.getByRole('link', { name: 'Definitions' }).click();
    await page.getByRole('link', { name: 'Certificate of Forklift Safety' }).click();
    await page.getByRole('heading', { name: 'Certificate: Forklift Safety' }).waitFor();
    await page.getByText('This badge uses the built-in design').waitFor();
    const first = await previewUrl(page);
    expect(await latestPreview()).toContain('Forklift Safety');
    await expectAccessible(page, 'certificate designer at 1280 px');

    await page.getByLabel('Title').fill('Certificate of Safe Operation');
    await page.getByLabel('Wording').fill('{earnerName} operated a forklift safely at {issuerName}.');
    await page.getByRole('button', { name: 'Add signatory' }).click();
    await page.getByLabel('Name of signatory 1').fill('Siân O’Brien');
    await page.getByLabel('Role of signatory 1').fill('Site Manager');
    const signature = await QRCode.toBuffer('signature', { type: 'png', width: 200 });
    await page
      .getByLabel('Signature of signatory 1')
      .setInputFiles({ name: 'signature.png', mimeType: 'image/png', buffer: signature });
    await page.getByText('An image is set.').first().waitFor();
    await page.getByLabel('Border').selectOption('double');
    await page.getByLabel('Orientation').selectOption('portrait');
    await page.getByLabel('Paper size').selectOption('Letter');
    await page.getByLabel('Use the issuer’s brand colour').uncheck();
    await page.getByLabel('Colour', { exact: true }).fill('#8a1538');

    // The preview follows the unsaved design.
    await expect.poll(async () => (await previewUrl(page)) !== first, { timeout: 60_000 }).toBe(true);
    await expect.poll(latestPreview, { timeout: 60_000 }).toContain('Certificate of Safe Operation');
    await expect.poll(latestPreview, { timeout: 60_000 }).toContain('Siân O’Brien');
    const drawn = await latestPreview();
    expect(drawn).toContain('Alex Sample operated a forklift safely at Certificate Academy.');
    expect(drawn).toContain('Siân O’Brien');

    await page.getByRole('button', { name: 'Save certificate design' }).click();
    await page.getByRole('status').getByText('Saved the certificate design.').waitFor();
    const saved = await t.app.inject({
      method: 'GET',
      url: `/api/v1/definitions/${definitionId}/certificate`,
      headers: keyed(),
    });
    expect(saved.json()).toMatchObject({
      source: 'definition',
      title: 'Certificate of Safe Operation',
      borderStyle: 'double',
      orientation: 'portrait',
      size: 'Letter',
      color: '#8a1538',
      signatories: [{ name: 'Siân O’Brien', role: 'Site Manager', signatureImageId: expect.any(String) }],
    });
    await page.getByText('This badge has a design of its own.').waitFor();
    await expectAccessible(page, 'certificate designer after saving');
    expect(problems).toEqual([]);
  });

  it('the designer at phone width (390 px) is accessible', async () => {
    const phone = await openPage(browser, { viewport: PHONE });
    await signInByInvite(phone.page, t.app, issuer.id, 'phone@certificates.example', 'issuer');
    await phone.page.goto(`${new URL(phone.page.url()).origin}/console/definitions/${definitionId}/certificate`);
    await phone.page.getByRole('heading', { name: 'Certificate: Forklift Safety' }).waitFor();
    await previewUrl(phone.page);
    await expectAccessible(phone.page, 'certificate designer at 390 px');
    expect(phone.problems).toEqual([]);
    await phone.context.close();
  });

  it('sets the issuer default and country in Settings → Certificates', async () => {
    await page.goto(`${new URL(page.url()).origin}/console/settings`);
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Design the default certificate' }).click();
    await page.getByRole('heading', { name: 'Certificates', exact: true }).waitFor();
    await previewUrl(page);
    await expectAccessible(page, 'certificate settings at 1280 px');
    await page.getByLabel('Title').fill('Academy Certificate');
    await page.getByLabel('Country').fill('us');
    await page.getByRole('button', { name: 'Save certificate design' }).click();
    await page.getByRole('status').getByText('Saved the certificate design.').waitFor();
    const settings = await t.app.inject({ method: 'GET', url: '/api/v1/certificates/settings', headers: keyed() });
    expect(settings.json()).toMatchObject({ title: 'Academy Certificate', country: 'US', version: 1 });
    await page.setViewportSize(PHONE);
    await expectAccessible(page, 'certificate settings at 390 px');
    await page.setViewportSize(DESKTOP);
    expect(problems).toEqual([]);
  });

  it('the credential page downloads the certificate and shows, copies and withdraws the earner’s link', async () => {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: keyed(),
      payload: {
        definitionId,
        recipientEmail: 'zoe@certificates.example',
        recipientName: 'Zoë Ζωή Юлия',
        completionKey: 'cert-console-1',
      },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    const id = issued.json().credentialId as string;
    await page.goto(`${new URL(page.url()).origin}/console/credentials/${id}`);
    const section = page.getByRole('region', { name: 'Certificate' });
    await section.getByRole('link', { name: 'Download certificate' }).waitFor();
    await expectAccessible(page, 'credential page with its certificate');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: 'Download certificate' }).click(),
    ]);
    const pdf = readFileSync(await download.path());
    expect(oneLine((await readPdf(pdf)).text)).toContain('Zoë Ζωή Юлия');

    const link = (await section.locator('code').textContent()) as string;
    const staff = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${id}/certificate-link`,
      headers: keyed(),
    });
    expect(link).toBe(staff.json().url);
    const earnerPath = new URL(link).pathname;
    expect((await t.app.inject({ method: 'GET', url: earnerPath })).statusCode).toBe(200);

    await section.getByRole('button', { name: 'Withdraw the earner’s link' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Withdraw link' }).click();
    await section.getByRole('status').getByText('no longer opens the certificate').waitFor();
    expect((await t.app.inject({ method: 'GET', url: earnerPath })).statusCode).toBe(410);
    expect(await section.locator('code').textContent()).not.toBe(link);
    await page.setViewportSize(PHONE);
    await expectAccessible(page, 'credential page with its certificate at 390 px');
    await page.setViewportSize(DESKTOP);
    expect(problems).toEqual([]);
  });
});
