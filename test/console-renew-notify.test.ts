import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { auth, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

/**
 * Issue 46 in a browser: renewing (a row of Expiring soon, a credential's page) can email the earner,
 * from the address typed in the dialog (the service stores none and checks it by hash).
 */
describe.each(dialects)('console renewals that email the earner on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let issuer: TestIssuer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  async function issueExpiring(email: string, name: string, completionKey: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: {
        definitionId,
        recipientEmail: email,
        recipientName: name,
        completionKey,
        notify: false,
        expiresOn: new Date(Date.now() + 10 * 86_400_000).toISOString(),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId;
  }

  /** Every queued email handed to the sink: the messages it then holds. */
  async function delivered(count: number) {
    await t.app.services.notifications.drain();
    await expect.poll(() => smtp.messages.length, { timeout: 30_000 }).toBe(count);
    return smtp.messages;
  }

  beforeAll(async () => {
    smtp = await startSmtpServer(() => 'accept');
    ({ t, base } = await startConsoleApp(dialect, {
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@college.example', NOTIFY_RATE_PER_MINUTE: '60000' },
    }));
    issuer = await t.issuer({ name: 'Renewal College' });
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Forklift licence', description: 'Drives a forklift.', validForMonths: 12 },
    });
    definitionId = made.json().id;
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInByInvite(page, t.app, issuer.id, 'registrar@renewal.example', 'issuer');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('renews a row of Expiring soon and emails the earner at the address typed, refusing another', async () => {
    await issueExpiring('sam.okafor@renewal.example', 'Sam Okafor', 'renew-row-1');
    const before = smtp.messages.length;
    await page.goto(`${base}/console/expiring`);
    await page.getByRole('button', { name: 'Renew Sam Okafor' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Renew the credential of Sam Okafor?' });
    await dialog.getByLabel('Email the earner the renewed credential').check();
    const confirm = dialog.getByRole('button', { name: 'Renew credential' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Earner's email").fill('someone.else@renewal.example');
    await expectAccessible(page, 'renew dialog with the earner email');
    await confirm.click();
    await page.getByRole('alert').getByText("recipientEmail is not this credential's recipient.").waitFor();
    const stillOne = await t.app.inject({ method: 'GET', url: '/api/v1/credentials', headers: auth(issuer.key) });
    expect(stillOne.json().total).toBe(1);

    await page.getByRole('button', { name: 'Renew Sam Okafor' }).click();
    expect(await dialog.getByLabel('Email the earner the renewed credential').isChecked()).toBe(false);
    await dialog.getByLabel('Email the earner the renewed credential').check();
    await dialog.getByLabel("Earner's email").fill('sam.okafor@renewal.example');
    await dialog.getByRole('button', { name: 'Renew credential' }).click();
    await page
      .getByRole('status')
      .getByText('Renewed the credential of Sam Okafor. The earner will be emailed the new credential.')
      .waitFor();
    const messages = await delivered(before + 1);
    expect(messages.at(-1)?.to).toEqual(['sam.okafor@renewal.example']);
    expect(problems).toEqual([]);
  });

  it('renews from a credential’s page with the earner emailed, and without an email when not ticked', async () => {
    const first = await issueExpiring('lee.chan@renewal.example', 'Lee Chan', 'renew-page-1');
    const before = smtp.messages.length;
    await page.goto(`${base}/console/credentials/${first}`);
    await page.getByRole('button', { name: 'Renew', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Forklift licence for Lee Chan' });
    await dialog.getByLabel('Email the earner the renewed credential').check();
    await dialog.getByLabel("Earner's email").fill('lee.chan@renewal.example');
    await expectAccessible(page, 'credential renew dialog with the earner email');
    await dialog.getByRole('button', { name: 'Renew credential' }).click();
    await page.getByText('Renewed. The earner will be emailed the new credential.').waitFor();
    expect((await delivered(before + 1)).at(-1)?.to).toEqual(['lee.chan@renewal.example']);

    const second = await issueExpiring('kim.ode@renewal.example', 'Kim Ode', 'renew-page-2');
    await page.goto(`${base}/console/credentials/${second}`);
    await page.getByRole('button', { name: 'Renew', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Renew credential' }).click();
    await page.getByRole('link', { name: 'Open the new credential' }).waitFor();
    const replaced = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${second}`,
      headers: auth(issuer.key),
    });
    expect(replaced.json().replacedBy).toEqual(expect.any(String));
    await t.app.services.notifications.drain();
    expect(smtp.messages.flatMap((message) => message.to)).not.toContain('kim.ode@renewal.example');
    expect(problems).toEqual([]);
  });
});
