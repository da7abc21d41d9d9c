import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, freePort, type Issued, issue, launchChromium, revoke } from './verification.support.js';

const XSS_IMG = '<img src=x onerror="window.__xss=1">';
const XSS_SCRIPT = '</script><script>window.__xss=1</script>';
const XSS_RECIPIENT = '<svg/onload=window.__xss=1> Hopper';

describe.each(dialects)('verification page on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let a: TestIssuer;
  let evil: TestIssuer;
  let valid: Issued;
  let expired: Issued;
  let revoked: Issued;
  let hostile: Issued;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const screenshots = mkdtempSync(join(tmpdir(), 'accolade-page-'));

  // Each view from its own client address: one client's repeats within the window are coalesced.
  let views = 0;
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: url.replace(base, ''), headers, remoteAddress: `10.3.0.${++views % 256}` });
  const flushed = async <T>(read: () => Promise<T>) => {
    await t.app.services.verification.events.flush();
    return read();
  };

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { clock, env: { PUBLIC_BASE_URL: base, GEO_COUNTRY_HEADER: 'x-country' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    a = await t.issuer({ slug: `page-a-${dialect}`, name: 'Northwind Academy' });
    evil = await t.issuer({ slug: `page-evil-${dialect}`, name: XSS_IMG });
    const definition = await createDefinition(t, a, {
      name: 'Data Literacy',
      criteriaNarrative: 'Complete all six modules.\nPass the final assessment.',
      criteriaUrl: 'https://northwind.example/criteria',
      skills: ['Statistics', 'SQL'],
      tags: ['data'],
    });
    const induction = await createDefinition(t, a, { name: 'Safety Induction', expiresAfterDays: 1 });
    clock.set('2025-01-10T09:00:00.000Z');
    expired = await issue(t, a, induction.id, { email: 'ada@example.test', name: 'Ada Lovelace' });
    clock.set('2026-11-21T10:00:00.000Z');
    valid = await issue(t, a, definition.id, { email: 'grace@example.test', name: 'Grace Brewster Hopper' });
    revoked = await issue(t, a, definition.id, { email: 'alan@example.test', name: 'Alan Turing' });
    await revoke(t, a, revoked.credentialId, 'Assessment <b>withdrawn</b>');
    const evilDefinition = await createDefinition(t, evil, {
      name: XSS_SCRIPT,
      description: XSS_IMG,
      tags: [XSS_SCRIPT],
    });
    hostile = await issue(t, evil, evilDefinition.id, { email: 'mallory@example.test', name: XSS_RECIPIENT });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders the page: status, partial name, QR, OpenGraph, alternate JSON-LD link, strict CSP', async () => {
    const res = await get(valid.verifyUrl);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-cache');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("img-src 'self' https: http: data:");
    const nonce = /'nonce-([A-Za-z0-9_-]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(res.body).toContain(
      `<style nonce="${nonce}">:root{--brand:#123456;--on-brand:#ffffff;--brand-line:#123456}</style>`,
    );
    const scripts = res.body.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts).toEqual([expect.stringMatching(/^<script src="\/verify\/assets\/page\.js\?v=[0-9a-f]+" defer>$/)]);
    expect(res.body).toMatch(/<html lang="en">/);
    expect(res.body).toContain('✓ Verified');
    expect(res.body).toContain('<strong>Grace H.</strong>');
    expect(res.body).toContain(`<a class="issuer-name" href="https://${a.slug}.example/">Northwind Academy</a>`);
    expect(res.body).not.toContain('Hopper');
    expect(res.body).not.toContain('Brewster');
    expect(res.body).toMatch(/<figure class="qr"><div role="img" aria-label="[^"]+"><svg [^>]*viewBox/);
    // The code encodes the page's own URL, the same when it comes from the cache on a later view.
    const qr = await QRCode.toString(valid.verifyUrl, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
    expect(res.body).toContain(`<div role="img" aria-label="QR code linking to this verification page">${qr}</div>`);
    expect((await get(valid.verifyUrl)).body).toContain(qr);
    expect(res.body).toContain(`<meta property="og:url" content="${valid.verifyUrl}">`);
    expect(res.body).toContain('<meta property="og:title" content="Data Literacy · Northwind Academy">');
    expect(res.body).toContain(`<link rel="alternate" type="application/ld+json" href="${valid.assertionUrl}">`);
    expect(res.body).toContain(`alt="Data Literacy badge"`);
    expect(res.body).toContain('Complete all six modules.\nPass the final assessment.');
    expect(res.body).toContain('<a class="criteria" href="https://northwind.example/criteria">Full criteria</a>');
    expect(res.body).toContain('<li>Statistics</li><li>SQL</li>');
    expect(res.body).toContain('<li>data</li>');
    expect(res.body).toContain(`href="${new URL(valid.verifyUrl).pathname}/share/linkedin"`);
    expect(res.body).toContain('Copy link');
    expect(res.body).not.toContain('wallet');
  });

  it('shows a revoked credential with its reason and no share buttons', async () => {
    const res = await get(revoked.verifyUrl);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('class="status status-revoked"');
    expect(res.body).toContain('Reason: Assessment &lt;b&gt;withdrawn&lt;/b&gt;.');
    expect(res.body).toContain(
      '<dt>Revoked on</dt><dd><time datetime="2026-11-21T10:00:00.000Z">21 November 2026</time></dd>',
    );
    expect(res.body).not.toContain('/share/');
  });

  it('shows an expired credential as expired', async () => {
    const res = await get(expired.verifyUrl);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('class="status status-expired"');
    expect(res.body).toContain('<dt>Expired on</dt>');
  });

  it('sends the check mark as UTF-8 once, and a name holding its character reference as that text', async () => {
    const reference = '&#x2713;';
    const definition = await createDefinition(t, a, { name: `Tick ${reference}`, description: `${reference} ✓` });
    const ticked = await issue(t, a, definition.id, { email: 'tick@example.test', name: `Tick ${reference}` });
    const res = await get(ticked.verifyUrl);
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.rawPayload.equals(Buffer.from(res.body, 'utf8'))).toBe(true);
    expect(res.body.match(/✓ Verified/g)).toHaveLength(1);
    expect(res.body).toContain('<h1 id="badge-name">Tick &amp;#x2713;</h1>');
    expect(res.body).toContain('<p class="prose">&amp;#x2713; ✓</p>');
    expect(res.body).not.toContain(reference);
  });

  describe('what the documents hold', () => {
    let rich: Issued;
    let richDefinition: { id: string; slug: string };
    const keyed = () => ({ authorization: `Bearer ${a.key}` });

    beforeAll(async () => {
      richDefinition = await createDefinition(t, a, {
        name: 'Cloud Security',
        criteriaUrl: 'https://northwind.example/cloud/criteria',
      });
      const alignment = await t.app.inject({
        method: 'POST',
        url: `/api/v1/definitions/${richDefinition.id}/alignments`,
        headers: keyed(),
        payload: {
          targetName: 'Secure configuration <b>',
          targetUrl: 'https://framework.example/skills/secure-config',
          targetFramework: 'SFIA 9',
          targetCode: 'SCTY-4',
          targetDescription: 'Configures systems securely.',
        },
      });
      expect(alignment.statusCode, alignment.body).toBe(201);
      const endorsedBadge = await t.app.inject({
        method: 'POST',
        url: `/api/v1/definitions/${richDefinition.id}/endorsements`,
        headers: keyed(),
        payload: { endorserName: 'Cloud Guild', endorserUrl: 'https://guild.example/', claim: 'Rigorous and current.' },
      });
      expect(endorsedBadge.statusCode, endorsedBadge.body).toBe(201);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: keyed(),
        payload: {
          definitionId: richDefinition.id,
          recipientEmail: 'rich@example.test',
          recipientName: 'Radia Perlman',
          completionKey: 'rich-1',
          evidenceUrl: 'https://portfolio.example/radia/cloud',
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      rich = res.json();
      const endorsedCredential = await t.app.inject({
        method: 'POST',
        url: `/api/v1/credentials/${rich.credentialId}/endorsements`,
        headers: keyed(),
        payload: { endorserName: 'Team Lead', claim: 'Led our migration.' },
      });
      expect(endorsedCredential.statusCode, endorsedCredential.body).toBe(201);
    });

    it('shows alignments with framework and code, evidence, the criteria link and endorsements', async () => {
      const res = await get(rich.verifyUrl);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<h2>Aligned to</h2>');
      expect(res.body).toContain(
        '<a href="https://framework.example/skills/secure-config">Secure configuration &lt;b&gt;</a> <span class="muted">(SFIA 9 · SCTY-4)</span>',
      );
      expect(res.body).toContain('Configures systems securely.');
      expect(res.body).toContain(
        '<a class="evidence" href="https://portfolio.example/radia/cloud">View the evidence</a>',
      );
      expect(res.body).toContain(
        '<a class="criteria" href="https://northwind.example/cloud/criteria">Full criteria</a>',
      );
      expect(res.body).toContain('<h2>Endorsements</h2>');
      expect(res.body).toContain('Rigorous and current.');
      expect(res.body).toContain('<a href="https://guild.example/">Cloud Guild</a>, endorsing this badge');
      expect(res.body).toContain('Led our migration.');
      expect(res.body).toContain('Team Lead, endorsing this credential');
      expect(res.body).not.toContain('class="badge-frame inactive"');
    });

    it('renders them readably on a phone and a desktop', async () => {
      for (const [name, width, height] of [
        ['phone', 375, 812],
        ['desktop', 1280, 900],
      ] as const) {
        const context = await browser.newContext({ viewport: { width, height } });
        const page = await context.newPage();
        await page.goto(rich.verifyUrl, { waitUntil: 'load' });
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
        expect(await page.getByText('SFIA 9 · SCTY-4').isVisible()).toBe(true);
        expect(await page.getByText('Led our migration.').isVisible()).toBe(true);
        await page.screenshot({ path: join(screenshots, `rich-${name}-${dialect}.png`), fullPage: true });
        await page.goto(revoked.verifyUrl, { waitUntil: 'load' });
        expect(await page.evaluate("getComputedStyle(document.querySelector('img.badge')).filter")).toBe(
          'grayscale(1)',
        );
        expect(await page.locator('.badge-frame .stamp').isVisible()).toBe(true);
        await page.locator('.credential').screenshot({ path: join(screenshots, `revoked-${name}-${dialect}.png`) });
        await context.close();
      }
    });
  });

  it('greys the badge of a revoked or expired credential with its status on it, and offers no LinkedIn once expired', async () => {
    const revokedPage = await get(revoked.verifyUrl);
    expect(revokedPage.body).toContain('<div class="badge-frame inactive"><img class="badge"');
    expect(revokedPage.body).toContain('<span class="stamp" aria-hidden="true">Revoked</span>');
    expect(revokedPage.body).not.toContain('og:image');
    const expiredPage = await get(expired.verifyUrl);
    expect(expiredPage.body).toContain('<span class="stamp" aria-hidden="true">Expired</span>');
    expect(expiredPage.body).not.toContain('Add to LinkedIn');
    expect(expiredPage.body).not.toContain('/share/linkedin');
    expect(expiredPage.body).toContain('Copy link');
    expect(expiredPage.body).not.toContain('og:image');
    const validPage = await get(valid.verifyUrl);
    expect(validPage.body).not.toContain('badge-frame');
    expect(validPage.body).toContain('og:image');
    // The redirect itself refuses too: back to the page, nothing recorded.
    const engagements = async () => {
      await t.app.services.verification.events.flush();
      return (
        await t.database.db
          .selectFrom('engagement_events')
          .select('id')
          .where('credential_id', '=', expired.credentialId)
          .execute()
      ).length;
    };
    const before = await engagements();
    const share = await get(`${new URL(expired.verifyUrl).pathname}/share/linkedin`);
    expect(share.statusCode).toBe(302);
    expect(share.headers.location).toBe(expired.verifyUrl);
    expect(await engagements()).toBe(before);
  });

  it("answers an HTML 404 for unknown ids and another issuer's slug", async () => {
    for (const path of [
      `/verify/${a.slug}/00000000-0000-4000-8000-000000000000`,
      `/verify/${evil.slug}/${valid.credentialId}`,
      `/verify/nobody/${valid.credentialId}`,
    ]) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.body).toContain('<h1 class="label">Credential not found</h1>');
      expect(res.body).not.toContain('Northwind');
    }
  });

  it('records a page verification per view, with the country', async () => {
    const count = () =>
      t.database.db
        .selectFrom('verification_events')
        .select(['channel', 'country'])
        .where('credential_id', '=', valid.credentialId)
        .where('channel', '=', 'page')
        .execute();
    const before = (await flushed(count)).length;
    await get(valid.verifyUrl, { 'x-country': 'nz' });
    await get(`/verify/${evil.slug}/${valid.credentialId}`);
    const after = await flushed(count);
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)).toEqual({ channel: 'page', country: 'NZ' });
  });

  it('records nothing for a HEAD request (link checkers), for the page or a share', async () => {
    const events = async () => {
      await t.app.services.verification.events.flush();
      const [v, e] = await Promise.all([
        t.database.db
          .selectFrom('verification_events')
          .select('id')
          .where('credential_id', '=', valid.credentialId)
          .execute(),
        t.database.db
          .selectFrom('engagement_events')
          .select('id')
          .where('credential_id', '=', valid.credentialId)
          .execute(),
      ]);
      return v.length + e.length;
    };
    const before = await events();
    const page = await t.app.inject({ method: 'HEAD', url: new URL(valid.verifyUrl).pathname });
    expect(page.statusCode).toBe(200);
    const share = await t.app.inject({ method: 'HEAD', url: `${new URL(valid.verifyUrl).pathname}/share/linkedin` });
    expect(share.statusCode).toBe(302);
    expect(await events()).toBe(before);
  });

  it('serves the page assets with long-lived caching', async () => {
    const css = await get('/verify/assets/page.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('@media print');
    const js = await get('/verify/assets/page.js');
    expect(js.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
  });

  describe('share redirects', () => {
    const page = () => new URL(valid.verifyUrl).pathname;
    const engagements = () =>
      flushed(() =>
        t.database.db
          .selectFrom('engagement_events')
          .select(['credential_id', 'action', 'country'])
          .orderBy('id')
          .execute(),
      );

    it('sends linkedin to the add-to-profile form built on the server', async () => {
      const res = await get(`${page()}/share/linkedin?url=https://evil.example&certUrl=https://evil.example`);
      expect(res.statusCode).toBe(302);
      expect(res.headers['cache-control']).toBe('no-store');
      const target = new URL(String(res.headers.location));
      expect(`${target.origin}${target.pathname}`).toBe('https://www.linkedin.com/profile/add');
      expect(Object.fromEntries(target.searchParams)).toEqual({
        startTask: 'CERTIFICATION_NAME',
        name: 'Data Literacy',
        organizationName: 'Northwind Academy',
        issueYear: '2026',
        issueMonth: '11',
        certUrl: valid.verifyUrl,
        certId: valid.credentialId,
      });
    });

    it('names the issuer by its LinkedIn organization id once the profile has one (issue 45 §3)', async () => {
      const set = (linkedinOrganizationId: string | null) =>
        t.app.inject({
          method: 'PATCH',
          url: '/api/v1/issuer/me',
          headers: { authorization: `Bearer ${a.key}` },
          payload: { linkedinOrganizationId },
        });
      expect((await set('1337')).statusCode).toBe(200);
      try {
        // A HEAD, so the engagement counts below see only their own shares.
        const res = await t.app.inject({ method: 'HEAD', url: `${page()}/share/linkedin` });
        const params = new URL(String(res.headers.location)).searchParams;
        expect(params.get('organizationId')).toBe('1337');
        expect(params.has('organizationName')).toBe(false);
      } finally {
        expect((await set(null)).statusCode).toBe(200);
      }
    });

    it('sends share_link to the verification page itself; wallets, not configured here, are 404', async () => {
      const res = await get(`${page()}/share/share_link?next=https://evil.example`, { 'x-country': 'fr' });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(valid.verifyUrl);
      for (const action of ['wallet_apple', 'wallet_google']) {
        const wallet = await get(`${page()}/share/${action}`, { 'x-country': 'fr' });
        expect(wallet.statusCode, action).toBe(404);
        expect(wallet.headers.location, action).toBeUndefined();
      }
    });

    it('records each share as an append-only engagement event', async () => {
      const rows = (await engagements()).filter((r) => r.credential_id === valid.credentialId);
      expect(rows.map((r) => [r.action, r.country])).toEqual([
        ['linkedin', 'ZZ'],
        ['share_link', 'FR'],
      ]);
      await expect(t.database.db.deleteFrom('engagement_events').execute()).rejects.toThrow(/append-only/);
    });

    it("answers 404 for an unknown action, id or another issuer's slug; revoked goes to its page unrecorded", async () => {
      const before = (await engagements()).length;
      for (const path of [
        `${page()}/share/facebook`,
        `${page()}/share/LINKEDIN`,
        `/verify/${a.slug}/missing/share/linkedin`,
        `/verify/${evil.slug}/${valid.credentialId}/share/linkedin`,
      ]) {
        const res = await get(path);
        expect(res.statusCode, path).toBe(404);
        expect(res.headers.location).toBeUndefined();
        expect(res.body).toContain('Credential not found');
      }
      const gone = await get(`${new URL(revoked.verifyUrl).pathname}/share/linkedin`);
      expect(gone.statusCode).toBe(302);
      expect(gone.headers.location).toBe(revoked.verifyUrl);
      expect(await engagements()).toHaveLength(before);
    });
  });

  describe('in Chromium', () => {
    it('never executes hostile badge, issuer or recipient names', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      page.on('dialog', (dialog) => void dialog.dismiss());
      const response = await page.goto(hostile.verifyUrl, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      await page.waitForTimeout(300);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      expect(await page.locator('h1').textContent()).toBe(XSS_SCRIPT);
      expect(await page.locator('.issuer-name').textContent()).toBe(XSS_IMG);
      expect(await page.locator('.lead strong').first().textContent()).toBe('<svg/onload=window.__xss=1> H.');
      expect(await page.locator('.chips li').first().textContent()).toBe(XSS_SCRIPT);
      expect(await page.locator('img').count()).toBe(1);
      expect(await page.locator('figure.qr svg').count()).toBe(1);
      expect(await page.content()).not.toContain('Hopper');
      expect(violations).toEqual([]);
      await page.screenshot({ path: join(screenshots, `hostile-${dialect}.png`), fullPage: true });
      await context.close();
    });

    it('applies the stylesheet and brand colour under the CSP, copies the link and records it', async () => {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      const page = await context.newPage();
      await page.goto(valid.verifyUrl, { waitUntil: 'load' });
      expect(await page.evaluate("getComputedStyle(document.querySelector('.issuer-bar')).backgroundColor")).toBe(
        'rgb(18, 52, 86)',
      );
      expect(await page.locator('main').count()).toBe(1);
      expect(await page.locator('.lead strong').first().textContent()).toBe('Grace H.');
      const before = (
        await flushed(() =>
          t.database.db
            .selectFrom('engagement_events')
            .select('id')
            .where('action', '=', 'share_link')
            .where('credential_id', '=', valid.credentialId)
            .execute(),
        )
      ).length;
      await page.getByText('Copy link').click();
      await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Link copied.');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(valid.verifyUrl);
      expect(page.url()).toBe(valid.verifyUrl);
      await expect
        .poll(
          async () =>
            (
              await flushed(() =>
                t.database.db
                  .selectFrom('engagement_events')
                  .select('id')
                  .where('action', '=', 'share_link')
                  .where('credential_id', '=', valid.credentialId)
                  .execute(),
              )
            ).length,
        )
        .toBe(before + 1);
      await page.screenshot({ path: join(screenshots, `valid-${dialect}.png`), fullPage: true });
      await context.close();
    });

    it('keeps outlines visible on a pale brand colour and copies the link from the keyboard', async () => {
      const pale = await t.issuer({
        slug: `page-pale-${dialect}`,
        name: 'Sunny College',
        brandPrimaryColor: '#ffff00',
      });
      const definition = await createDefinition(t, pale, { name: 'First Aid' });
      const credential = await issue(t, pale, definition.id, { email: 'lin@example.test', name: 'Lin Wu' });
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      const page = await context.newPage();
      await page.goto(credential.verifyUrl, { waitUntil: 'load' });
      const style = (selector: string, property: string) =>
        page.evaluate(
          `getComputedStyle(document.querySelector(${JSON.stringify(selector)}))[${JSON.stringify(property)}]`,
        );
      expect(await style('.issuer-bar', 'color')).toBe('rgb(0, 0, 0)');
      // Yellow on white is 1.07:1: the copy button is outlined in ink instead.
      expect(await style('a[data-copy]', 'borderTopColor')).toBe('rgb(27, 31, 36)');
      await page.locator('.issuer-name').focus();
      expect(await style('.issuer-name', 'outlineStyle')).toBe('solid');
      expect(await style('.issuer-name', 'outlineWidth')).toBe('3px');
      expect(await style('.issuer-name', 'outlineColor')).toBe('rgb(0, 0, 0)');
      await page.locator('a[data-copy]').focus();
      await page.keyboard.press(' ');
      await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Link copied.');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(credential.verifyUrl);
      expect(page.url()).toBe(credential.verifyUrl);
      await context.close();
    });

    it('stacks the columns on a tablet', async () => {
      const context = await browser.newContext({ viewport: { width: 768, height: 1024 } });
      const page = await context.newPage();
      await page.goto(valid.verifyUrl, { waitUntil: 'load' });
      const columns = await page.evaluate("getComputedStyle(document.querySelector('.layout')).gridTemplateColumns");
      expect(String(columns).split(' ')).toHaveLength(1);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(768);
      await context.close();
    });

    it('fits a phone screen and prints without the share buttons', async () => {
      const long = await createDefinition(t, a, { name: `Informationssicherheitsmanagement${'x'.repeat(40)}` });
      const longName = await issue(t, a, long.id, { email: 'lin@example.test', name: 'Lin Wu' });
      const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
      const page = await context.newPage();
      // A badge name with no break point wraps instead of widening the page.
      await page.goto(longName.verifyUrl, { waitUntil: 'load' });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      await page.goto(valid.verifyUrl, { waitUntil: 'load' });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      await page.emulateMedia({ media: 'print' });
      expect(await page.getByText('Add to LinkedIn').isVisible()).toBe(false);
      expect(await page.locator('figure.qr svg').isVisible()).toBe(true);
      expect(await page.locator('.page-url').isVisible()).toBe(true);
      await context.close();
    });
  });
});
