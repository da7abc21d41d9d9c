import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

const SECRET = { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' };

/** The pathway progress view: an earner who completed the pathway gets a CLR 2.0 from there. */
describe.each(dialects)('console: a CLR from the pathway progress view on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let base: string;
  let browser: Browser;
  const keyed = () => ({ authorization: `Bearer ${issuer.key}` });

  async function created(url: string, payload: object) {
    const res = await t.app.inject({ method: 'POST', url, headers: keyed(), payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  }

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect, { env: dialect === 'postgres' ? SECRET : {} }));
    issuer = await t.issuer({ name: 'Record Academy' });
    const first = await created('/api/v1/definitions', { name: 'Safety', description: 'Works safely.' });
    const second = await created('/api/v1/definitions', { name: 'Rigging', description: 'Rigs loads.' });
    const pathway = await created('/api/v1/pathways', { name: 'Crane Operator', description: 'Safety, then rigging.' });
    await created(`/api/v1/pathways/${pathway.id}/stages`, { definitionId: first.id, stepOrder: 1 });
    await created(`/api/v1/pathways/${pathway.id}/stages`, { definitionId: second.id, stepOrder: 2 });
    for (const [definition, key] of [
      [first, 'safety'],
      [second, 'rigging'],
    ] as const) {
      await created('/api/v1/credentials', {
        definitionId: definition.id,
        recipientEmail: 'done@record.example',
        completionKey: key,
      });
    }
    await created('/api/v1/credentials', {
      definitionId: first.id,
      recipientEmail: 'halfway@record.example',
      completionKey: 'halfway',
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function progressOf(page: Page, email: string) {
    await page.goto(`${base}/console/pathways`);
    await page.getByRole('heading', { name: 'Pathways', level: 1 }).waitFor();
    const section = page.getByRole('region', { name: 'Crane Operator' });
    await section.getByLabel('Earner email').fill(email);
    await section.getByRole('button', { name: 'Show progress' }).click();
    return section;
  }

  for (const width of [1280, 390]) {
    it(`issues the CLR of a completed pathway and links to it, and offers none otherwise (${width} px)`, async () => {
      const { page, problems, context } = await openPage(browser, { viewport: { width, height: 900 } });
      page.setDefaultTimeout(8_000);
      await signInByInvite(page, t.app, issuer.id, `owner-${width}@record.example`, 'owner');

      const halfway = await progressOf(page, 'halfway@record.example');
      await halfway.getByText('1 of 2 stages earned.').waitFor();
      expect(await halfway.getByRole('button', { name: 'Issue CLR' }).count()).toBe(0);

      const done = await progressOf(page, 'done@record.example');
      await done.getByText('2 of 2 stages earned: pathway complete.').waitFor();
      await done.getByRole('button', { name: 'Issue CLR' }).click();
      const link = done.getByRole('link', { name: 'Open the CLR (JSON-LD)' });
      await link.waitFor();
      const href = (await link.getAttribute('href')) ?? '';
      const hosted = await t.app.inject({ method: 'GET', url: new URL(href).pathname });
      expect(hosted.statusCode).toBe(200);
      expect(hosted.json().type).toEqual(['VerifiableCredential', 'ClrCredential']);
      await expectAccessible(page, `pathway CLR issued at ${width} px`);
      expect(problems).toEqual([]);
      await context.close();
    });
  }

  it('shows a viewer the progress but no CLR button', async () => {
    const { page, context } = await openPage(browser, { viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(8_000);
    await signInByInvite(page, t.app, issuer.id, 'viewer@record.example', 'viewer');
    const done = await progressOf(page, 'done@record.example');
    await done.getByText('2 of 2 stages earned: pathway complete.').waitFor();
    expect(await done.getByRole('button', { name: 'Issue CLR' }).count()).toBe(0);
    await context.close();
  });
});
