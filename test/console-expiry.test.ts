import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

const OWNER = 'owner@expiry.example';
const VIEWER = 'viewer@expiry.example';

/** The ISO day that many months back from today, then `days` on: a 24-month credential issued then expires `days` from now. */
function issuedAgo(months: number, days: number): string {
  const date = new Date();
  date.setUTCMonth(date.getUTCMonth() - months);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

describe.each(dialects)('console expiry, renewal and archive confirmation on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let base: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let definitionId: string;
  const keyed = () => ({ authorization: `Bearer ${issuer.key}` });

  async function credentialByKey(completionKey: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials/search',
      headers: keyed(),
      payload: { completionKey },
    });
    const [item] = res.json().items;
    return item as { id: string; status: string; verifyUrl: string };
  }

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect));
    issuer = await t.issuer({ name: 'Expiry Academy' });
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInByInvite(page, t.app, issuer.id, OWNER, 'owner');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('sets a definition’s validity in months, and its credentials expire that many months on', async () => {
    await page.getByRole('link', { name: 'Definitions' }).click();
    await page.getByRole('heading', { name: 'Definitions' }).waitFor();
    await page.getByRole('button', { name: 'Create definition' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Forklift Safety');
    await page.getByLabel('Description', { exact: true }).fill('Renewed every two years.');
    await page.getByLabel('Valid for').fill('24');
    expect(await page.getByLabel('Unit').inputValue()).toBe('months');
    await page.getByRole('radio', { name: 'Image URL' }).check();
    await expectAccessible(page, 'definition form with validity');
    await page.getByRole('button', { name: 'Save new definition' }).click();
    await page.getByText('Created “Forklift Safety”.').waitFor();
    const row = page.getByRole('row', { name: /Forklift Safety/ });
    await row.getByRole('cell', { name: '24 months' }).waitFor();
    const definitions = await t.app.inject({ method: 'GET', url: '/api/v1/definitions', headers: keyed() });
    const definition = definitions.json().find((d: { name: string }) => d.name === 'Forklift Safety');
    expect(definition).toMatchObject({ validForMonths: 24, expiresAfterDays: null });
    definitionId = definition.id;

    // A roster of completions from two years ago: expiring in about 20 and 45 days.
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: keyed(),
      payload: {
        csv: [
          'email,name,completion_key,definition_id,issued_on',
          `ada@example.test,Ada Lovelace,exp-1,${definitionId},${issuedAgo(24, 20)}`,
          `alan@example.test,Alan Turing,exp-2,${definitionId},${issuedAgo(24, 45)}`,
          `grace@example.test,Grace Hopper,exp-3,${definitionId},${issuedAgo(12, 0)}`,
        ].join('\n'),
      },
    });
    expect(imported.json()).toMatchObject({ issued: 3 });
    const ada = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${(await credentialByKey('exp-1')).id}`,
      headers: keyed(),
    });
    const inDays = (Date.parse(ada.json().expiresOn) - Date.now()) / 86_400_000;
    expect(inDays).toBeGreaterThan(18);
    expect(inDays).toBeLessThan(21);
  });

  it('lists what expires within 30 or 60 days, exports it without emails, and renews a row after a confirmation', async () => {
    await page.getByRole('link', { name: 'Expiring soon' }).click();
    await page.getByRole('heading', { name: 'Expiring soon' }).waitFor();
    await page.getByText('1 credential expiring within 30 days').waitFor();
    await page.getByLabel('Expiring within').selectOption('60');
    await page.getByText('2 credentials expiring within 60 days').waitFor();
    expect(await page.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(['Ada Lovelace', 'Alan Turing']);
    await expectAccessible(page, 'expiring soon');

    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(href).toBe('/api/v1/credentials/expiring.csv?withinDays=60');
    const exported = await page.evaluate(async (url) => {
      const response = await fetch(url);
      return { type: response.headers.get('content-type'), body: await response.text() };
    }, href ?? '');
    expect(exported.type).toContain('text/csv');
    expect(exported.body).toContain('Ada Lovelace');
    expect(exported.body).toContain('exp-2');
    expect(exported.body).not.toContain('@example.test');

    await page.getByRole('button', { name: 'Renew Ada Lovelace' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Renew the credential of Ada Lovelace?' });
    await dialog.waitFor();
    await expectAccessible(page, 'renew row dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await credentialByKey('exp-1')).status).toBe('valid');
    expect(await credentialByKey('exp-1#reissue-1')).toBeUndefined();
    await page.getByRole('button', { name: 'Renew Ada Lovelace' }).click();
    await dialog.getByRole('button', { name: 'Renew credential' }).click();
    await page.getByText('Renewed the credential of Ada Lovelace.').waitFor();
    await page.getByText('1 credential expiring within 60 days').waitFor();
    expect((await credentialByKey('exp-1')).status).toBe('revoked');
    const renewed = await credentialByKey('exp-1#reissue-1');
    expect(renewed.status).toBe('valid');
    await page.getByRole('link', { name: 'Open the new credential' }).click();
    await page.getByText('exp-1#reissue-1', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Forklift Safety for Ada Lovelace' }).waitFor();
    await page.getByRole('link', { name: 'The earlier credential' }).click();
    await page.getByText('exp-1', { exact: true }).waitFor();
    await page.getByText('(Replaced by a newer credential)').waitFor();
    await page.getByRole('link', { name: 'The newer credential' }).waitFor();
    expect(await page.getByRole('button', { name: 'Renew' }).count()).toBe(0);
    await expectAccessible(page, 'replaced credential');
    const old = await credentialByKey('exp-1');
    const verification = await t.app.inject({ method: 'GET', url: new URL(old.verifyUrl).pathname });
    expect(verification.body).toContain('Replaced by a newer credential');
  });

  it('renews from an uploaded CSV of completion keys with a per-line report', async () => {
    await page.getByRole('link', { name: 'Expiring soon' }).click();
    await page.getByRole('heading', { name: 'Expiring soon' }).waitFor();
    await page.getByLabel('CSV of completion keys').setInputFiles({
      name: 'renew.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('completionKey\nexp-2\nno-such-key\nexp-1\n'),
    });
    await page.getByRole('button', { name: 'Renew these credentials' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Renew the credentials of 3 completion keys?' });
    await dialog.waitFor();
    await expectAccessible(page, 'renew CSV dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await credentialByKey('exp-2')).status).toBe('valid');
    expect(await page.getByRole('table', { name: /renewed/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Renew these credentials' }).click();
    await dialog.getByRole('button', { name: 'Renew credentials' }).click();
    await page.getByText('1 renewed, 1 already renewed, 1 not renewed').waitFor();
    await page.getByText('Not renewed: No credential has this completion key.').waitFor();
    await page.getByText('Nothing expires in the next 30 days.').waitFor();
    await expectAccessible(page, 'renewal report');
    expect((await credentialByKey('exp-2#reissue-1')).status).toBe('valid');
  });

  it('renews from the credential page after a confirmation, shows the delivery status and names the actor', async () => {
    const grace = await credentialByKey('exp-3');
    await page.goto(`${base}/console/credentials/${grace.id}`);
    await page.getByRole('heading', { name: 'Forklift Safety for Grace Hopper' }).waitFor();
    await page.getByText('exp-3', { exact: true }).waitFor();
    await page.getByText('No email was sent to the earner.').waitFor();
    await page.getByRole('button', { name: 'Renew' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Renew Forklift Safety for Grace Hopper?' });
    await dialog.waitFor();
    await expectAccessible(page, 'renew dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await credentialByKey('exp-3')).status).toBe('valid');
    await page.getByRole('button', { name: 'Renew' }).click();
    await dialog.getByRole('button', { name: 'Renew credential' }).click();
    await page.getByText('Renewed.').waitFor();
    await page.getByRole('link', { name: 'The newer credential' }).click();
    await page.getByText('exp-3#reissue-1', { exact: true }).waitFor();
    await expect
      .poll(() => page.locator('.timeline li').allTextContents())
      .toEqual([expect.stringContaining(`credential.reissued by ${OWNER}`)]);
    const fresh = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${(await credentialByKey('exp-3#reissue-1')).id}`,
      headers: keyed(),
    });
    // Renewed today for 24 months.
    const inTwoYears = new Date();
    inTwoYears.setUTCFullYear(inTwoYears.getUTCFullYear() + 2);
    expect(fresh.json().expiresOn.slice(0, 7)).toBe(inTwoYears.toISOString().slice(0, 7));
  });

  it('asks before archiving a definition', async () => {
    await page.getByRole('link', { name: 'Definitions' }).click();
    await page.getByRole('heading', { name: 'Definitions' }).waitFor();
    await page.getByRole('button', { name: 'Archive Forklift Safety' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Archive definition “Forklift Safety”?' });
    await dialog.waitFor();
    await expectAccessible(page, 'archive dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const still = await t.app.inject({ method: 'GET', url: `/api/v1/definitions/${definitionId}`, headers: keyed() });
    expect(still.json().status).toBe('active');
    await page.getByRole('button', { name: 'Archive Forklift Safety' }).click();
    await dialog.getByRole('button', { name: 'Archive definition' }).click();
    await page.getByText('Archived “Forklift Safety”.').waitFor();
    const archived = await t.app.inject({
      method: 'GET',
      url: `/api/v1/definitions/${definitionId}`,
      headers: keyed(),
    });
    expect(archived.json().status).toBe('archived');
    expect(problems).toEqual([]);
  });

  it('gives a viewer on a phone the views without renew, upload or archive controls', async () => {
    const viewerContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const viewer = await viewerContext.newPage();
    await signInByInvite(viewer, t.app, issuer.id, VIEWER, 'viewer');
    await viewer.goto(`${base}/console/expiring`);
    await viewer.getByRole('heading', { name: 'Expiring soon' }).waitFor();
    await viewer.getByLabel('Expiring within').selectOption('90');
    await viewer.getByRole('link', { name: 'Export CSV' }).waitFor();
    expect(await viewer.getByRole('button', { name: /Renew/ }).count()).toBe(0);
    expect(await viewer.getByLabel('CSV of completion keys').count()).toBe(0);
    await viewer.getByText('Nothing expires in the next 90 days.').waitFor();
    await expectAccessible(viewer, 'expiring soon (viewer, phone)');
    // A phone never scrolls the page sideways.
    expect(await viewer.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const fresh = await credentialByKey('exp-3#reissue-1');
    await viewer.goto(`${base}/console/credentials/${fresh.id}`);
    await viewer.getByText('exp-3#reissue-1', { exact: true }).waitFor();
    await viewer.getByRole('heading', { name: 'Forklift Safety for Grace Hopper' }).waitFor();
    expect(await viewer.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await viewer.getByRole('button', { name: /Renew|Reissue/ }).count()).toBe(0);
    await viewer.goto(`${base}/console/definitions`);
    await viewer.getByRole('heading', { name: 'Definitions' }).waitFor();
    await viewer.getByRole('cell', { name: '24 months' }).waitFor();
    expect(await viewer.getByRole('button', { name: /Archive/ }).count()).toBe(0);
    await viewerContext.close();
  });
});
