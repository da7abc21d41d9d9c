import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

const DAY_MS = 86_400_000;

describe.each(dialects)('console: telling earners, and expiry reminders (issue 39 §4, §5) on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let base: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const keyed = () => ({ authorization: `Bearer ${issuer.key}` });
  const drain = () => t.app.services.notifications.drain();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    ({ t, base } = await startConsoleApp(dialect, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test' } }));
    issuer = await t.issuer({ name: 'Notify Academy' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: keyed(),
      payload: { name: 'Safe Lifting', description: 'Manual handling' },
    });
    expect(created.statusCode, created.body).toBe(201);
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInByInvite(page, t.app, issuer.id, `owner-${dialect}@notify.example`, 'owner');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('sets the notification settings and previews the message', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await page.getByLabel('Email earners by default').check();
    await page.getByLabel('Sender name').fill('Notify Registry');
    await page.getByLabel('Reply-to address').fill('registry@notify.example');
    await page.getByLabel('Send expiry reminders').check();
    await page.getByLabel('Days before expiry').fill('40');
    await page.getByRole('button', { name: 'Save notification settings' }).click();
    await page.getByText('Notification settings saved.').waitFor();
    const saved = await t.app.inject({ method: 'GET', url: '/api/v1/notifications/settings', headers: keyed() });
    expect(saved.json()).toMatchObject({
      notifyByDefault: true,
      senderName: 'Notify Registry',
      replyTo: 'registry@notify.example',
      expiryReminders: true,
      expiryReminderDays: 40,
    });

    await page.getByRole('button', { name: 'Preview the message' }).click();
    await page.getByText('Subject: Notify Academy awarded you "Safe Lifting"').waitFor();
    await page.getByText(/Issued on \d{1,2} [A-Z][a-z]+ \d{4}/).waitFor();
    await page.getByRole('button', { name: 'Preview the reminder' }).click();
    await page.getByText(/Subject: Your badge "Safe Lifting" from Notify Academy expires on/).waitFor();
    await expectAccessible(page, 'settings with notifications and a preview');
  });

  it('emails the earner from single issue and from a CSV import with a notify column', async () => {
    await page.getByRole('link', { name: 'Issue', exact: true }).click();
    await page.getByRole('heading', { name: 'Issue', exact: true }).waitFor();
    const single = page.locator('#issue-notify');
    // Prefilled with the issuer's default (on, set above).
    await expect.poll(() => single.isChecked()).toBe(true);
    await page.getByLabel('Definition', { exact: true }).selectOption({ label: 'Safe Lifting' });
    await page.getByLabel('Recipient email').fill('single.earner@example.test');
    await page.getByRole('button', { name: 'Issue credential' }).click();
    await page.getByText(/Issued credential .* The earner will be emailed a link to it\./).waitFor();
    await drain();
    const first = smtp.messages.find((m) => m.to.includes('single.earner@example.test'));
    expect(first?.headers.from).toContain('Notify Registry');
    expect(first?.headers['reply-to']).toBe('registry@notify.example');

    await page.getByLabel('CSV file').setInputFiles({
      name: 'roster.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        [
          'email,name,definition,notify',
          'csv.yes@example.test,Yes Earner,safe-lifting,yes',
          'csv.no@example.test,No Earner,safe-lifting,no',
          'csv.default@example.test,Default Earner,safe-lifting,',
        ].join('\n'),
      ),
    });
    expect(await page.getByLabel('Email the earner (yes or no)').inputValue()).toBe('notify');
    // The run's choice is off; the rows' own cells decide where they say.
    await page.getByLabel('Email each new earner whose notify cell is empty').uncheck();
    await expectAccessible(page, 'issue with notify choices');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: /^Import 3 credentials$/ }).click();
    await page.getByText(/Imported: 3 issued.* 1 earner will be emailed\./).waitFor();
    await drain();
    const sentTo = smtp.messages.flatMap((m) => m.to);
    expect(sentTo).toContain('csv.yes@example.test');
    expect(sentTo).not.toContain('csv.no@example.test');
    expect(sentTo).not.toContain('csv.default@example.test');
  });

  it('sends the expiry reminder to the addresses given, once', async () => {
    const found = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials/search',
      headers: keyed(),
      payload: { recipientEmail: 'single.earner@example.test' },
    });
    const credentialId = found.json().items[0].id as string;
    await t.database.db
      .updateTable('credentials')
      .set({ expires_on: new Date(Date.now() + 10 * DAY_MS).toISOString() })
      .where('id', '=', credentialId)
      .execute();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText('1 credential is due a reminder now.', { exact: false }).waitFor();
    await page.getByLabel('Earner email addresses').fill('single.earner@example.test\nsomeone.else@example.test');
    await page.getByRole('button', { name: 'Send reminders' }).click();
    await page.getByText('1 reminder sent; 0 not sent (unsubscribed); 1 address had nothing due.').waitFor();
    await drain();
    const reminders = smtp.messages.filter((m) => m.decoded.includes('Your badge expires soon'));
    expect(reminders.map((m) => m.to)).toEqual([['single.earner@example.test']]);
    await page.getByText('0 credentials are due a reminder now.', { exact: false }).waitFor();
    await page.getByLabel('Earner email addresses').fill('single.earner@example.test');
    await page.getByRole('button', { name: 'Send reminders' }).click();
    await page.getByText('0 reminders sent; 0 not sent (unsubscribed); 1 address had nothing due.').waitFor();
    await expectAccessible(page, 'settings with expiry reminders sent');
    expect(problems).toEqual([]);
  });

  it('shows a viewer the settings read-only, with no way to send or issue', async () => {
    const viewer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInByInvite(viewer, t.app, issuer.id, `viewer-${dialect}@notify.example`, 'viewer');
    await viewer.goto(`${base}/console/settings`);
    await viewer.getByRole('heading', { name: 'Notifications' }).waitFor();
    await viewer.getByText('Only an owner can manage notification settings.', { exact: false }).waitFor();
    expect(await viewer.getByLabel('Sender name').isDisabled()).toBe(true);
    expect(await viewer.getByLabel('Send expiry reminders').isDisabled()).toBe(true);
    expect(await viewer.getByRole('button', { name: 'Save notification settings' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: 'Send reminders' }).count()).toBe(0);
    // The issuer profile above is the owner's too (PATCH /api/v1/issuer/me): read-only here.
    await viewer.getByText('Only an owner can manage the issuer profile.', { exact: false }).waitFor();
    expect(await viewer.getByLabel('Issuer name', { exact: true }).isDisabled()).toBe(true);
    expect(await viewer.getByRole('button', { name: 'Save profile' }).count()).toBe(0);
    await viewer.getByRole('button', { name: 'Preview the message' }).click();
    await viewer.getByText('Subject: Notify Academy awarded you "Safe Lifting"').waitFor();
    await expectAccessible(viewer, 'settings for a viewer');
    await viewer.goto(`${base}/console/issue`);
    await viewer.getByText('Your role can read credentials but not issue them.').waitFor();
    expect(await viewer.getByLabel('Email the earner').count()).toBe(0);
    // A second browser context and a sign-in: slow on a loaded 2-core host.
  }, 60_000);
});
