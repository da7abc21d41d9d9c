import { mkdtempSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, freePort, type Issued, issue, launchChromium, revoke } from './verification.support.js';

const HOSTILE = '<img src=x onerror="window.__xss=1">';

/** A page on another origin, as an earner's portfolio site would be. */
async function hostSite(
  html: () => string,
  options: { headers?: Record<string, string>; css?: string } = {},
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.url === '/site.css' && options.css !== undefined) {
      response.writeHead(200, { 'content-type': 'text/css' }).end(options.css);
      return;
    }
    if (request.url !== '/') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...options.headers }).end(html());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('host site did not listen');
  return { server, url: `http://127.0.0.1:${address.port}/` };
}

describe.each(dialects)('embed script on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let host: { server: Server; url: string };
  let strictHost: { server: Server; url: string };
  let longName: Issued;
  let a: TestIssuer;
  let valid: Issued;
  let second: Issued;
  let revoked: Issued;
  let hostile: Issued;
  let profileUrl: string;
  const screenshots = mkdtempSync(join(tmpdir(), 'accolade-embed-'));

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    a = await t.issuer({ slug: `embed-a-${dialect}`, name: 'Northwind Academy' });
    const literacy = await createDefinition(t, a, { name: 'Data Literacy' });
    const sql = await createDefinition(t, a, { name: 'SQL Foundations' });
    const evil = await createDefinition(t, a, { name: HOSTILE });
    valid = await issue(t, a, literacy.id, { email: 'grace@example.test', name: 'Grace Brewster Hopper' });
    second = await issue(t, a, sql.id, { email: 'grace@example.test', name: 'Grace Brewster Hopper' });
    revoked = await issue(t, a, literacy.id, { email: 'alan@example.test', name: 'Alan Turing' });
    await revoke(t, a, revoked.credentialId, 'Issued in error');
    hostile = await issue(t, a, evil.id, { email: 'mallory@example.test', name: `${HOSTILE} Mallory` });
    const long = await createDefinition(t, a, { name: `Informationssicherheitsmanagement${'x'.repeat(60)}` });
    longName = await issue(t, a, long.id, { email: 'lin@example.test', name: 'Lin Wu' });
    const profile = await t.app.inject({
      method: 'POST',
      url: '/api/v1/profiles',
      headers: auth(a.key),
      payload: { recipientEmail: 'grace@example.test' },
    });
    profileUrl = profile.json().profileUrl;
    host = await hostSite(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Grace's portfolio</title></head><body>
<h1>Portfolio</h1>
<div id="credential" data-service-credential="${valid.assertionUrl}"></div>
<div id="revoked" data-service-credential="${revoked.assertionUrl}"></div>
<div id="unknown" data-service-credential="${base}/v1/issuers/${a.slug}/assertions/00000000-0000-4000-8000-000000000000"></div>
<div id="hostile" data-service-credential="${hostile.assertionUrl}"></div>
<div id="profile" data-service-profile="${profileUrl}"></div>
<script src="${base}/embed/v1.js" async></script>
</body></html>`,
    );
    // A site that forbids inline styles and styles every div its own way.
    strictHost = await hostSite(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Strict site</title>
<link rel="stylesheet" href="/site.css"></head><body>
<div id="long" data-service-credential="${longName.assertionUrl}"></div>
<div id="profile" data-service-profile="${profileUrl}"></div>
<div id="later"></div>
<script src="${base}/embed/v1.js" async></script>
</body></html>`,
      {
        headers: {
          'content-security-policy': `default-src 'none'; script-src ${base}; connect-src ${base}; img-src ${base}; style-src 'self'`,
        },
        css: 'div{color:red;font-size:30px;font-family:serif}',
      },
    );
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.server.close(resolve));
    await new Promise((resolve) => strictHost?.server.close(resolve));
    await t?.close();
  });

  const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

  it('serves a small, cacheable, open script', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/embed/v1.js', headers: { origin: 'https://site.example' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    // Its words in five languages are about 5 KB of it.
    expect(Buffer.byteLength(res.body)).toBeLessThan(16 * 1024);
    expect(res.body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('renders a credential and an earner wallet on another origin, sending no personal data', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 1100 } });
    const page = await context.newPage();
    const calls: Request[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(base)) calls.push(request);
    });
    await page.goto(host.url, { waitUntil: 'load' });
    await expect.poll(() => text(page, '#credential .st')).toBe('Verified');
    expect(await text(page, '#credential .nm')).toBe('Data Literacy');
    expect(await text(page, '#credential .is')).toBe('Issued by Northwind Academy');
    expect(await text(page, '#credential .rc')).toBe('Awarded to Grace H.');
    expect(await page.locator('#credential a.lk').getAttribute('href')).toBe(valid.verifyUrl);
    expect(await page.locator('#credential img').getAttribute('alt')).toBe('Data Literacy badge');
    await expect.poll(() => text(page, '#revoked .st')).toBe('Revoked');
    expect(await page.locator('#revoked .is').allTextContents()).toEqual([
      'Issued in error',
      'Issued by Northwind Academy',
    ]);
    await expect.poll(() => text(page, '#unknown .st')).toBe('Not verified');
    expect(await text(page, '#unknown .is')).toBe('No credential matches this link.');
    expect(await page.locator('#unknown a').count()).toBe(0);

    await expect.poll(() => text(page, '#profile .hd')).toBe('Credentials of Grace H.');
    expect(await page.locator('#profile .card').count()).toBe(2);
    expect(await page.locator('#profile .nm').allTextContents()).toEqual(['SQL Foundations', 'Data Literacy']);
    expect(await page.locator('#profile .st').allTextContents()).toEqual(['Verified', 'Verified']);
    expect(await page.locator('#profile a.lk').nth(0).getAttribute('href')).toBe(second.verifyUrl);

    const rendered = await page.evaluate(
      "[...document.querySelectorAll('div')].map((d) => d.shadowRoot ? d.shadowRoot.textContent : '').join(' ')",
    );
    expect(rendered).not.toContain('Hopper');
    expect(await page.evaluate("document.querySelector('#credential').innerHTML")).toBe('');

    const api = calls.filter((c) => c.url().includes('/api/v1/verify') && c.method() === 'POST');
    expect(api.map((c) => new URL(c.url()).pathname).sort()).toEqual([
      '/api/v1/verify',
      '/api/v1/verify',
      '/api/v1/verify',
      '/api/v1/verify',
      '/api/v1/verify/bulk',
    ]);
    for (const call of api) {
      const body = JSON.parse(call.postData() ?? '{}');
      // The ids, and the card's language to name the badge in (no personal data either).
      expect(Object.keys(body)).toEqual([new URL(call.url()).pathname.endsWith('bulk') ? 'ids' : 'id', 'lang']);
      expect(body.lang).toBe('en');
      const headers = await call.allHeaders();
      expect(headers.cookie).toBeUndefined();
      expect(headers.authorization).toBeUndefined();
      expect(headers.referer).toBeUndefined();
    }
    const shot = join(screenshots, `embed-${dialect}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(1000);
    await context.close();

    await t.app.services.verification.events.flush();
    const channels = await t.database.db
      .selectFrom('verification_events')
      .select(['channel', 'credential_id'])
      .where('credential_id', 'in', [valid.credentialId, second.credentialId])
      .execute();
    expect(channels.filter((r) => r.channel === 'api')).toHaveLength(1);
    expect(channels.filter((r) => r.channel === 'bulk')).toHaveLength(2);
  });

  it("speaks the div's data-lang, else the host page's language, else the browser's", async () => {
    const site = (lang: string) =>
      hostSite(
        () => `<!doctype html><html${lang}><head><meta charset="utf-8"><title>Portfolio</title></head><body>
<div id="page" data-service-credential="${valid.assertionUrl}"></div>
<div id="asked" data-lang="de-AT" data-service-credential="${valid.assertionUrl}"></div>
<div id="unknown" data-lang="xx" data-service-credential="${revoked.assertionUrl}"></div>
<script src="${base}/embed/v1.js" async></script></body></html>`,
      );
    const french = await site(' lang="fr"');
    const bare = await site('');
    try {
      const context = await browser.newContext({ locale: 'nl-BE' });
      const page = await context.newPage();
      await page.goto(french.url, { waitUntil: 'load' });
      await expect.poll(() => text(page, '#page .st')).toBe('Vérifié');
      expect(await text(page, '#page .is')).toBe('Délivré par Northwind Academy');
      expect(await text(page, '#page .rc')).toBe('Décerné à Grace H.');
      expect(await page.locator('#page .box').getAttribute('lang')).toBe('fr');
      await expect.poll(() => text(page, '#asked .st')).toBe('Geprüft');
      expect(await text(page, '#asked a.lk')).toBe('Prüfung ansehen');
      await expect.poll(() => text(page, '#unknown .st')).toBe('Révoqué');
      await page.goto(bare.url, { waitUntil: 'load' });
      await expect.poll(() => text(page, '#page .st')).toBe('Geverifieerd');
      expect(await text(page, '#page .is')).toBe('Uitgegeven door Northwind Academy');
      await context.close();
    } finally {
      await new Promise((resolve) => french.server.close(resolve));
      await new Promise((resolve) => bare.server.close(resolve));
    }
  });

  it('writes hostile names as text only', async () => {
    const page = await browser.newPage();
    page.on('dialog', (dialog) => void dialog.dismiss());
    await page.goto(host.url, { waitUntil: 'load' });
    await expect.poll(() => text(page, '#hostile .nm')).toBe(HOSTILE);
    expect(await text(page, '#hostile .rc')).toBe('Awarded to <img M.');
    await page.waitForTimeout(200);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('#hostile img').count()).toBe(1);
    await page.close();
  });

  it('picks up elements added later', async () => {
    const page = await browser.newPage();
    await page.goto(host.url, { waitUntil: 'load' });
    await expect.poll(() => text(page, '#credential .st')).toBe('Verified');
    await page.evaluate(`(() => {
      const wrapper = document.createElement('section');
      wrapper.innerHTML = '<div id="late" data-service-credential="${second.assertionUrl}"></div>';
      document.body.appendChild(wrapper);
    })()`);
    await expect.poll(() => text(page, '#late .st')).toBe('Verified');
    expect(await text(page, '#late .nm')).toBe('SQL Foundations');
    await page.close();
  });

  it('keeps its own look on a site that forbids inline styles and styles every div, on a phone', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(strictHost.url, { waitUntil: 'load' });
    await expect.poll(() => text(page, '#long .st')).toBe('Verified');
    await expect.poll(() => page.locator('#profile .card').count()).toBe(2);
    const style = (host: string, selector: string, property: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector(${JSON.stringify(host)}).shadowRoot.querySelector(${JSON.stringify(selector)})).getPropertyValue(${JSON.stringify(property)})`,
      );
    expect(await style('#long', 'img', 'width')).toBe('64px');
    expect(await style('#long', '.card', 'border-left-width')).toBe('4px');
    expect(await style('#long', '.nm', 'color')).toBe('rgb(27, 31, 36)');
    expect(await style('#long', '.is', 'font-size')).toBe('14px');
    expect(await style('#long', '.is', 'font-family')).not.toBe('serif');
    // A badge name with no break point wraps inside the card instead of widening the page.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(await text(page, '#long .nm')).toBe(`Informationssicherheitsmanagement${'x'.repeat(60)}`);

    // A div that is given the attribute after it was inserted is picked up too.
    await page.evaluate(
      `document.querySelector('#later').setAttribute('data-service-credential', '${valid.assertionUrl}')`,
    );
    await expect.poll(() => text(page, '#later .st')).toBe('Verified');
    // A page that reuses the div for another credential gets that credential's card.
    await page.evaluate(
      `document.querySelector('#later').setAttribute('data-service-credential', '${revoked.assertionUrl}')`,
    );
    await expect.poll(() => text(page, '#later .st')).toBe('Revoked');
    expect(violations).toEqual([]);
    await page.screenshot({ path: join(screenshots, `embed-strict-${dialect}.png`), fullPage: true });
    await context.close();
  });

  it('falls back to a <style> element where constructed stylesheets are missing', async () => {
    const page = await browser.newPage();
    await page.addInitScript('delete ShadowRoot.prototype.adoptedStyleSheets');
    await page.goto(host.url, { waitUntil: 'load' });
    await expect.poll(() => text(page, '#credential .st')).toBe('Verified');
    const image = await page.evaluate(
      "(() => { const root = document.querySelector('#credential').shadowRoot; return [root.adoptedStyleSheets === undefined, root.querySelectorAll('style').length, getComputedStyle(root.querySelector('img')).width]; })()",
    );
    expect(image).toEqual([true, 1, '64px']);
    await page.close();
  });

  it('shows a neutral state when the network fails', async () => {
    const page = await browser.newPage();
    await page.route(`${base}/api/v1/**`, (route) => route.abort('connectionrefused'));
    await page.goto(host.url, { waitUntil: 'load' });
    const service = new URL(base).host;
    await expect
      .poll(() => text(page, '#credential .card'))
      .toBe(`Could not reach ${service} to verify this credential.`);
    expect(await page.locator('#credential .st').count()).toBe(0);
    await page.close();
    const limited = await browser.newPage();
    await limited.route(`${base}/api/v1/**`, (route) =>
      route.fulfill({ status: 429, headers: { 'access-control-allow-origin': '*' }, body: '{}' }),
    );
    await limited.goto(host.url, { waitUntil: 'load' });
    await expect
      .poll(() => text(limited, '#credential .card'))
      .toBe('Too many verifications from this network right now. Try again in a minute.');
    await limited.close();
  });

  it('works whatever host name the page loads it by, and says what is wrong with a profile link', async () => {
    const other = `http://localhost:${new URL(base).port}`;
    const gone = await t.app.inject({
      method: 'POST',
      url: '/api/v1/profiles',
      headers: auth(a.key),
      payload: { recipientEmail: 'nobody-left@example.test' },
    });
    const goneUrl: string = gone.json().profileUrl;
    await t.app.inject({ method: 'DELETE', url: `/api/v1/profiles/${gone.json().id}`, headers: auth(a.key) });
    // The service's URLs say 127.0.0.1; this page loads the script as localhost.
    const site = await hostSite(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Elsewhere</title></head><body>
<div id="profile" data-service-profile="${profileUrl}"></div>
<div id="local-profile" data-service-profile="${profileUrl.replace(base, other)}"></div>
<div id="credential" data-service-credential="${valid.assertionUrl}"></div>
<div id="foreign" data-service-profile="https://elsewhere.example/v1/profiles/abc"></div>
<div id="gone" data-service-profile="${goneUrl}"></div>
<script src="${other}/embed/v1.js" async></script>
</body></html>`,
    );
    const page = await browser.newPage();
    const calls: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'fetch') calls.push(request.url());
    });
    await page.goto(site.url, { waitUntil: 'load' });
    for (const id of ['#profile', '#local-profile']) {
      await expect.poll(() => text(page, `${id} .hd`)).toBe('Credentials of Grace H.');
      expect(await page.locator(`${id} .st`).allTextContents()).toEqual(['Verified', 'Verified']);
      expect(await page.locator(`${id} a.lk`).nth(0).getAttribute('href')).toBe(second.verifyUrl);
    }
    await expect.poll(() => text(page, '#credential .st')).toBe('Verified');
    expect(await page.locator('#credential a.lk').getAttribute('href')).toBe(valid.verifyUrl);
    expect(await text(page, '#foreign .card')).toBe(
      `This is not an earner profile link of localhost:${new URL(base).port}.`,
    );
    await expect.poll(() => text(page, '#gone .card')).toBe('This profile link does not exist (any more).');
    // Every call went to the origin the script came from; none to the foreign host.
    expect(calls.length).toBeGreaterThan(3);
    expect(calls.filter((url) => !url.startsWith(`${other}/`))).toEqual([]);
    await page.close();
    await new Promise((resolve) => site.server.close(resolve));
  });
});
