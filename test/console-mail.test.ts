import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

/**
 * Issue 46's email items in the console, in Chromium: the preview before any badge exists, the
 * reminder's own text and renewal link, "Resend the email" on a credential, and team invitations
 * emailed with the link to copy either way; axe at 1280 and 390 px.
 */
describe.each(dialects)('console: earner and team emails (issue 46) on %s', (dialect) => {
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
    issuer = await t.issuer({ name: 'Mail Academy' });
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInByInvite(page, t.app, issuer.id, `owner-${dialect}@mail.example`, 'owner');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('previews the message with a sample badge before any exists, and saves the reminder extras', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await page.getByRole('button', { name: 'Preview the message' }).click();
    await page.getByText('Subject: Mail Academy awarded you "Sample badge"').waitFor();

    await page.getByLabel('Send expiry reminders').check();
    await page.getByLabel('Renewal or re-enrolment link').fill('http://mail.example/renew');
    await page.getByLabel('Your own text in the reminder').fill('Book the refresher course.');
    await page.getByRole('button', { name: 'Save notification settings' }).click();
    await page.getByText('reminderLink must be an https:// address').waitFor();
    await page.getByLabel('Renewal or re-enrolment link').fill('https://mail.example/renew');
    await page.getByRole('button', { name: 'Save notification settings' }).click();
    await page.getByText('Notification settings saved.').waitFor();
    await page.getByRole('button', { name: 'Preview the reminder' }).click();
    await page.getByText('Renew your badge: https://mail.example/renew').waitFor();
    await page.getByText('Book the refresher course.', { exact: false }).first().waitFor();
    await expectAccessible(page, 'notification settings with the reminder extras');
    const saved = await t.app.inject({ method: 'GET', url: '/api/v1/notifications/settings', headers: keyed() });
    expect(saved.json()).toMatchObject({
      reminderLink: 'https://mail.example/renew',
      reminderNote: 'Book the refresher course.',
    });
  });

  it("resends the award email from the credential's page to the address typed", async () => {
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: keyed(),
      payload: { name: 'Ladder Safety', description: 'Working at height' },
    });
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: keyed(),
      payload: { definitionId: definition.json().id, recipientEmail: 'lost.mail@example.test', completionKey: 'cm:1' },
    });
    const id = issued.json().credentialId as string;
    await page.goto(`${base}/console/credentials/${id}`);
    await page.getByRole('heading', { name: 'Resend the email' }).waitFor();
    await page.getByRole('button', { name: 'Resend the email' }).click();
    await page.getByLabel("Earner's email").fill('someone.else@example.test');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Resend the email' }).click();
    await page.getByText("recipientEmail is not this credential's recipient.").waitFor();
    await page.getByRole('button', { name: 'Resend the email' }).click();
    await page.getByLabel("Earner's email").fill('lost.mail@example.test');
    await expectAccessible(page, 'resend dialog');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Resend the email' }).click();
    await page.getByText('The email is on its way').waitFor();
    await drain();
    const sent = smtp.messages.filter((m) => m.to.includes('lost.mail@example.test'));
    expect(sent).toHaveLength(1);
    expect(sent[0]?.decoded).toContain('Mail Academy has awarded you the credential &quot;Ladder Safety&quot;');
    await page.reload();
    await page.getByText('Sent', { exact: false }).first().waitFor();
    await expectAccessible(page, 'credential with a resent email');

    const narrow = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signInByInvite(narrow, t.app, issuer.id, `narrow-${dialect}@mail.example`, 'owner');
    await narrow.goto(`${base}/console/credentials/${id}`);
    await narrow.getByRole('heading', { name: 'Resend the email' }).waitFor();
    await expectAccessible(narrow, 'credential with resend at 390 px');
    await narrow.goto(`${base}/console/settings`);
    await narrow.getByLabel('Your own text in the reminder').waitFor();
    await expectAccessible(narrow, 'notification settings at 390 px');
    await narrow.context().close();
  }, 60_000);

  it('emails a team invitation when SMTP is set, and offers the link to copy', async () => {
    await page.goto(`${base}/console/team`);
    await page.getByLabel('Email', { exact: true }).fill('new.colleague@mail.example');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('heading', { name: 'Invitation emailed to new.colleague@mail.example' }).waitFor();
    await page.getByRole('button', { name: 'Copy the link' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    await expectAccessible(page, 'team with an emailed invitation');
    const mail = smtp.messages.find((m) => m.to.includes('new.colleague@mail.example'));
    expect(mail?.headers.subject).toContain('invited you to their badge console');
    const link = /href="([^"]+\/console\/invite\/[\w-]+)"/.exec(mail?.decoded ?? '')?.[1];
    expect(link).toBeDefined();
    expect(await page.locator('code.key').textContent()).toBe(link);
    expect(mail?.decoded).toContain('Mail Academy invited you to their badge console as an issuer.');
    expect(problems).toEqual([]);
  });
});
