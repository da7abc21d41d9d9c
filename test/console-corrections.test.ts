import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { auth, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

/** Issue 46 §3 in a browser: "Correct the name", and the same badge to the same person named. */
const EARNER = 'anh.nguyen@college.example';

describe.each(dialects)('console name corrections on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let issuer: TestIssuer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer(() => 'accept');
    ({ t, base } = await startConsoleApp(dialect, {
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@college.example', NOTIFY_RATE_PER_MINUTE: '60000' },
    }));
    issuer = await t.issuer({ name: 'Riverside College' });
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Welding level 1', description: 'Welding' },
    });
    definitionId = made.json().id;
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signInByInvite(page, t.app, issuer.id, 'registrar@college.example', 'issuer');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('corrects a name: a linked replacement with the new name, the earner emailed', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId, recipientEmail: EARNER, completionKey: 'mis:1', recipientName: 'Anh Nguy?n' },
    });
    const original = res.json().credentialId as string;
    await page.goto(`${base}/console/credentials/${original}`);
    await page.getByRole('heading', { name: 'Correct the name' }).waitFor();
    await page.getByRole('button', { name: 'Correct the name' }).click();
    const dialog = page.getByRole('alertdialog', { name: "Correct the earner's name?" });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Correct name').inputValue()).toBe('Anh Nguy?n');
    expect(await dialog.getByRole('button', { name: 'Correct the name' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Correct name').fill('Anh Nguyễn');
    await dialog.getByLabel('Email the earner the corrected credential').check();
    await dialog.getByLabel("Earner's email").fill(EARNER);
    await expectAccessible(page, 'correct-name dialog');
    const sent = smtp.messages.length;
    await dialog.getByRole('button', { name: 'Correct the name' }).click();
    await page.getByText('Name corrected').waitFor();
    await page.getByText('(Replaced by a newer credential)').waitFor();
    await page.getByRole('link', { name: 'Open the corrected credential' }).click();
    await page.getByText('Anh Nguyễn', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'The earlier credential' }).waitFor();
    await expectAccessible(page, 'corrected credential');
    await t.app.services.notifications.drain();
    await expect.poll(() => smtp.messages.length, { timeout: 30_000 }).toBe(sent + 1);
    expect(smtp.messages.at(-1)?.to).toEqual([EARNER]);
    expect(problems).toEqual([]);
  });

  it('names the credential a person already holds before issuing the same badge again', async () => {
    await page.goto(`${base}/console/issue`);
    await page.getByRole('heading', { name: 'Issue one credential' }).waitFor();
    await page.getByLabel('Definition', { exact: true }).selectOption(definitionId);
    await page.getByLabel('Recipient email').fill(EARNER);
    await page.getByLabel('Recipient name').fill('Anh Nguyễn');
    await page.getByRole('button', { name: 'Issue credential' }).click();
    await page.getByText('This person already holds this badge').waitFor();
    const held = await page.getByRole('link', { name: 'open their credential' }).getAttribute('href');
    const corrected = await t.database.db
      .selectFrom('credentials')
      .select('id')
      .where('completion_key', '=', 'mis:1#name-1')
      .executeTakeFirstOrThrow();
    expect(held).toBe(`/console/credentials/${corrected.id}`);
    await expectAccessible(page, 'already held');
    const before = await t.database.db
      .selectFrom('credentials')
      .select('id')
      .where('issuer_id', '=', issuer.id)
      .execute();
    await page.getByRole('button', { name: 'Issue another anyway' }).click();
    await page.getByText(/^Issued credential/).waitFor();
    const after = await t.database.db
      .selectFrom('credentials')
      .select('id')
      .where('issuer_id', '=', issuer.id)
      .execute();
    expect(after.length).toBe(before.length + 1);
  });
});
