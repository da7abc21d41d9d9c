import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { NOTIFICATION_CATALOGUE } from '../src/modules/notifications/messages/index.js';
import { expectAccessible, watchProblems } from './console-browser.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { freePort, launchChromium } from './verification.support.js';

/**
 * The unsubscribe page of an email, in Chromium with axe (issue 45 §2: 0 serious or critical on the
 * translated pages): in the credential's language when the browser asks for none we have, asking
 * first and unsubscribing on the button, with no CSP problem.
 */
describe.each(dialects)('unsubscribe page in Chromium on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let a: TestIssuer;
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, {
      env: {
        PUBLIC_BASE_URL: base,
        SMTP_URL: smtp.url,
        MAIL_FROM: 'badges@accolade.test',
        NOTIFY_RATE_PER_MINUTE: '60000',
      },
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    a = await t.issuer({ slug: `unsub-${dialect}`, name: 'Atelier Lumière' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Soudure', description: 'Atelier de soudure' },
    });
    definitionId = definition.json().id;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  for (const language of ['fr', 'de', 'es', 'nl'] as const) {
    it(`asks and confirms in ${language}, passing axe`, async () => {
      const before = smtp.messages.length;
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(a.key),
        payload: {
          definitionId,
          recipientEmail: `unsub.${language}@example.test`,
          completionKey: `unsub:${language}`,
          notify: true,
          language,
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      await t.app.services.notifications.drain();
      const raw = smtp.messages.slice(before)[0]?.raw ?? '';
      const link = /List-Unsubscribe:\s*<([^>]+)>/i.exec(raw)?.[1];
      expect(link, raw.slice(0, 400)).toBeDefined();
      const words = NOTIFICATION_CATALOGUE[language].unsubscribePage;

      // Chromium asks for Japanese, which has no words here: the credential's language answers.
      const context = await browser.newContext({ locale: 'ja', viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      const problems = watchProblems(page);
      await page.goto(link as string, { waitUntil: 'load' });
      expect(await page.getAttribute('html', 'lang')).toBe(language);
      expect(await page.textContent('h1')).toBe(words.title);
      await expectAccessible(page, `${language} confirm`);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type="submit"]')]);
      expect(await page.textContent('main')).toContain(words.done.replace('{issuer}', 'Atelier Lumière'));
      await expectAccessible(page, `${language} done`);
      expect(problems, language).toEqual([]);
      await context.close();
    });
  }
});
