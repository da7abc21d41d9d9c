import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from './console.support.js';
import { signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

/** Every route the console declares, read from its router so a new page cannot be left out. */
const ROUTES = [
  ...readFileSync(new URL('../console/src/main.tsx', import.meta.url), 'utf8').matchAll(/path="([^"]+)"/g),
]
  .map((match) => match[1] ?? '')
  .filter((path) => path !== '');

const PHONE = { width: 390, height: 844 };

/** The elements wider than the viewport, to name what scrolls sideways when the check fails. */
const overflow = (page: Page) =>
  page.evaluate<{ scrollWidth: number; clientWidth: number; wide: string[] }>(`(() => {
    const root = document.scrollingElement ?? document.documentElement;
    const wide = [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > root.clientWidth + 0.5)
      .slice(0, 5)
      .map((element) => element.tagName.toLowerCase() + '.' + element.className + ' ' + element.textContent.slice(0, 40));
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
  })()`);

describe.each(dialects)('console at phone width (390 px) on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let base: string;
  let browser: Browser;
  let credentialId: string;
  const keyed = () => ({ authorization: `Bearer ${issuer.key}` });
  const post = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers: keyed(), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect));
    issuer = await t.issuer({ name: 'The Rather Long Named Institute of Phone Width Testing' });
    const definition = await post('/api/v1/definitions', {
      name: 'Advanced Certificate in Exceptionally Long Badge Names',
      description: 'A definition whose name and description are long enough to wrap on a phone.',
    });
    const credential = await post('/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: 'a.very.long.email.address.for.testing@subdomain.example.org',
      recipientName: 'Maximiliana Konstantinopoulou-Wetherington',
      completionKey: 'phone-width-completion-key-with-many-characters-0001',
    });
    credentialId = credential.id;
    const hook = await post('/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/a/long/receiver/path/for/webhook/deliveries/that/needs/to/wrap',
      events: ['credential.issued', 'credential.revoked'],
    });
    await post(`/api/v1/webhooks/${hook.id}/test`, {});
    const pathway = await post('/api/v1/pathways', { name: 'Responder pathway', description: 'Stages.' });
    await post(`/api/v1/pathways/${pathway.id}/stages`, { definitionId: definition.id, stepOrder: 1 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('reads the routes from the router', () => {
    expect(ROUTES).toEqual(expect.arrayContaining(['/console/login', '/console', '/console/connectors/:provider']));
  });

  it('no page scrolls sideways, signed out or in as an owner', async () => {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const { inviteUrl } = await t.app.services.accounts.invite(issuer.id, 'owner@phone.example', 'owner', 'system');
    const token = inviteUrl.split('/').pop() ?? '';
    const urls = ROUTES.flatMap((route) => {
      if (route.includes(':provider')) {
        return ['moodle', 'canvas', 'axcelerate', 'generic'].map((p) => route.replace(':provider', p));
      }
      const filled = route.replace(':token', token).replace(':id', credentialId);
      if (filled.includes(':')) throw new Error(`no value for the parameter of ${route}`);
      return [filled];
    });
    const signedOut = urls.filter((url) => url === '/console/login' || url.startsWith('/console/invite/'));
    const signedIn = urls.filter((url) => !signedOut.includes(url));
    const failures: string[] = [];
    async function check(url: string) {
      await page.goto(`${base}${url}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      const measured = await overflow(page);
      if (measured.scrollWidth > measured.clientWidth) failures.push(`${url}: ${JSON.stringify(measured)}`);
    }
    for (const url of signedOut.filter((item) => item === '/console/login')) await check(url);
    for (const url of signedOut.filter((item) => item !== '/console/login')) await check(url);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    for (const url of signedIn) await check(url);
    await check('/console/no-such-page');
    expect(failures).toEqual([]);
    expect(signedIn.length).toBeGreaterThanOrEqual(16);
    await context.close();
  });

  it('tables with class "cards" become one card per row, each cell named by its column', async () => {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await signInByInvite(page, t.app, issuer.id, 'cards@phone.example', 'owner');
    await page.goto(`${base}/console/team`);
    await page.locator('table.cards tbody tr').first().waitFor();
    const style = (selector: string, pseudo = '') =>
      page.evaluate<string>(
        `(() => { const s = getComputedStyle(document.querySelector(${JSON.stringify(selector)}), ${JSON.stringify(pseudo || null)}); return s.display + ' ' + s.content; })()`,
      );
    expect(await style('table.cards tbody tr')).toMatch(/^block /);
    expect(await style('table.cards tbody td[data-label="Status"]', '::before')).toBe('inline "Status: "');
    expect(await page.locator('table.cards thead').boundingBox()).toMatchObject({ width: 1, height: 1 });
    await context.close();
  });
});
