import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, watchProblems } from './console-browser.support.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, freePort, type Issued, issue, launchChromium } from './verification.support.js';

/**
 * The verification page in the earner's language (issue 45 §2): `?lang=`, else Accept-Language by
 * q-value, else English here (the credential's and issuer's languages come with translated
 * definitions); every label, the dates, `<html lang>`, and the caching headers that keep languages
 * apart. And issue 46's page items: the issuer's logo and a download that saves a file.
 */
describe.each(dialects)('verification page languages on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let a: TestIssuer;
  let valid: Issued;
  let replaced: Issued;
  let views = 0;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: url.replace(base, ''), headers, remoteAddress: `10.9.0.${++views % 256}` });

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { clock, env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    a = await t.issuer({ slug: `lang-${dialect}`, name: 'Académie Nordwind' });
    const logo = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/issuer/me',
      headers: auth(a.key),
      payload: { imageUrl: `${base}/logo.png` },
    });
    expect(logo.statusCode, logo.body).toBe(200);
    const definition = await createDefinition(t, a, {
      name: 'Data Literacy',
      criteriaNarrative: 'Complete all six modules.',
      skills: ['Statistics'],
    });
    valid = await issue(t, a, definition.id, { email: 'grace@example.test', name: 'Grace Hopper' });
    replaced = await issue(t, a, definition.id, { email: 'alan@example.test', name: 'Alan Turing' });
    const reissue = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${replaced.credentialId}/reissue`,
      headers: auth(a.key),
    });
    expect(reissue.statusCode, reissue.body).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const WORDS = {
    fr: { verified: 'Vérifié', issuedOn: 'Délivré le', date: '21 novembre 2026', about: 'À propos de ce certificat' },
    de: { verified: 'Geprüft', issuedOn: 'Ausgestellt am', date: '21. November 2026', about: 'Über diesen Nachweis' },
    es: {
      verified: 'Verificado',
      issuedOn: 'Emitida el',
      date: '21 de noviembre de 2026',
      about: 'Sobre esta credencial',
    },
    nl: { verified: 'Geverifieerd', issuedOn: 'Uitgegeven op', date: '21 november 2026', about: 'Over dit bewijs' },
  } as const;

  it('writes the page in the ?lang= language: <html lang>, labels, dates; Content-Language and Vary say so', async () => {
    for (const [language, words] of Object.entries(WORDS)) {
      const res = await get(`${valid.verifyUrl}?lang=${language}`);
      expect(res.statusCode, language).toBe(200);
      expect(res.body, language).toContain(`<html lang="${language}">`);
      expect(res.body, language).toContain(`✓ ${words.verified}</p>`);
      expect(res.body, language).toContain(
        `<dt>${words.issuedOn}</dt><dd><time datetime="2026-11-21T10:00:00.000Z">${words.date}</time></dd>`,
      );
      expect(res.body, language).toContain(`<h2 id="about">${words.about}</h2>`);
      expect(res.body, language).not.toContain('Share and verify');
      expect(res.headers['content-language'], language).toBe(language);
      expect(res.headers.vary, language).toContain('Accept-Language');
      expect(res.headers['cache-control'], language).toBe('no-cache');
      expect(res.headers.etag, language).toBeUndefined();
    }
  });

  it('follows Accept-Language by q-value when there is no ?lang=, and ?lang= over it', async () => {
    const chosen = async (headers: Record<string, string>, query = '') => {
      const res = await get(`${valid.verifyUrl}${query}`, headers);
      expect(res.statusCode).toBe(200);
      return /<html lang="([a-z]+)">/.exec(res.body)?.[1];
    };
    expect(await chosen({ 'accept-language': 'en;q=0.2, de;q=0.9, fr;q=0.5' })).toBe('de');
    expect(await chosen({ 'accept-language': 'fr;q=0, es;q=0.4' })).toBe('es');
    expect(await chosen({ 'accept-language': 'da, nl-BE;q=0.8' })).toBe('nl');
    expect(await chosen({ 'accept-language': 'pt-BR, ja;q=0.8' })).toBe('en');
    expect(await chosen({})).toBe('en');
    expect(await chosen({ 'accept-language': 'de' }, '?lang=es')).toBe('es');
    expect(await chosen({ 'accept-language': 'de' }, '?lang=fr-CA')).toBe('fr');
  });

  it('ignores a lang it cannot use (never an error, never written back raw)', async () => {
    for (const query of [
      '?lang=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      '?lang=%22%3E%3Cimg%20src%3Dx%3E',
      '?lang=',
      '?lang=xx-YY',
      `?lang=${'a'.repeat(4000)}`,
      '?lang=nl&lang=de',
    ]) {
      const res = await get(`${valid.verifyUrl}${query}`, { 'accept-language': 'es' });
      expect(res.statusCode, query).toBe(200);
      expect(res.body, query).not.toContain('<script>alert');
      expect(res.body, query).not.toContain('<img src=x>');
      expect(res.body, query).toMatch(query.includes('nl&') ? /<html lang="nl">/ : /<html lang="es">/);
    }
  });

  it('offers the page in each other language, each link marked with its language', async () => {
    const res = await get(`${valid.verifyUrl}?lang=de`);
    const path = new URL(valid.verifyUrl).pathname;
    expect(res.body).toContain('<nav class="languages" aria-label="Sprache">');
    expect(res.body).toContain(`<a href="${path}?lang=fr" lang="fr" hreflang="fr">Français</a>`);
    expect(res.body).toContain('<span aria-current="true">Deutsch</span>');
  });

  it('answers the 404 page in the negotiated language', async () => {
    const res = await get(`/verify/${a.slug}/00000000-0000-4000-8000-000000000000`, { 'accept-language': 'es' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('<html lang="es">');
    expect(res.body).toContain('<h1 class="label">Credencial no encontrada</h1>');
    expect(res.headers.vary).toContain('Accept-Language');
    expect(res.headers['content-language']).toBe('es');
  });

  it("shows the issuer's logo", async () => {
    const res = await get(`${valid.verifyUrl}?lang=fr`);
    expect(res.body).toContain(`<img src="${base}/logo.png" alt="Logo de Académie Nordwind">`);
  });

  it('links "Download (Open Badges 3.0)" to an attachment; the document itself stays inline', async () => {
    const res = await get(valid.verifyUrl);
    const href = `${base}/v1/issuers/${a.slug}/credentials/${valid.credentialId}?download`;
    expect(res.body).toContain(`<a class="download" href="${href}" download="${valid.credentialId}.json">`);
    const download = await get(href);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="${valid.credentialId}.json"`);
    expect(download.json().type).toContain('OpenBadgeCredential');
    const inline = await get(href.replace('?download', ''));
    expect(inline.headers['content-disposition']).toBeUndefined();
  });

  describe('in Chromium', () => {
    it('saves the Open Badges 3.0 file, even from a page opened under another host name', async () => {
      const context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      // localhost is another origin than the links' 127.0.0.1: the `download` attribute alone is ignored there.
      await page.goto(valid.verifyUrl.replace('127.0.0.1', 'localhost'), { waitUntil: 'load' });
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('a.download')]);
      expect(download.suggestedFilename()).toBe(`${valid.credentialId}.json`);
      const saved = JSON.parse(readFileSync(String(await download.path()), 'utf8'));
      expect(saved.type).toContain('OpenBadgeCredential');
      expect(page.url()).toContain('/verify/');
      await context.close();
    });

    for (const language of ['fr', 'de', 'es', 'nl'] as const) {
      it(`passes axe in ${language} on a desktop and a phone, with no CSP problem`, async () => {
        for (const viewport of [
          { width: 1280, height: 900 },
          { width: 390, height: 844 },
        ]) {
          const context = await browser.newContext({ viewport, locale: language });
          const page = await context.newPage();
          const problems = watchProblems(page);
          // No ?lang=: Chromium's own Accept-Language (its locale) chooses the language.
          await page.goto(valid.verifyUrl, { waitUntil: 'load' });
          expect(await page.getAttribute('html', 'lang')).toBe(language);
          expect(await page.textContent('.status .label')).toContain(WORDS[language].verified);
          await expectAccessible(page, `${language} ${viewport.width}px`);
          const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
          expect(overflow, `${language} ${viewport.width}px`).toBeLessThanOrEqual(0);
          await page.goto(`${replaced.verifyUrl}?lang=${language}`, { waitUntil: 'load' });
          await expectAccessible(page, `${language} replaced`);
          await page.goto(`${base}/verify/${a.slug}/unknown?lang=${language}`, { waitUntil: 'load' });
          await expectAccessible(page, `${language} 404`);
          expect(problems, language).toEqual([]);
          await context.close();
        }
      });
    }

    it('copies the link and says so in the page language', async () => {
      const context = await browser.newContext({ locale: 'de' });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      const page = await context.newPage();
      await page.goto(valid.verifyUrl, { waitUntil: 'load' });
      await page.click('a[data-copy]');
      await expect.poll(() => page.textContent('#copy-status')).toBe('Link kopiert.');
      await context.close();
    });
  });
});
