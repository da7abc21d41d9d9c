import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, freePort, type Issued, issue, launchChromium } from './verification.support.js';

/** A page on another origin that embeds cards, as an earner's portfolio would. */
async function hostSite(html: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.url !== '/') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('host site did not listen');
  return { server, url: `http://127.0.0.1:${address.port}/` };
}

/**
 * The embed names the badge in its card's language (issue 45 §2): the verify API's optional `lang`
 * answers `credential.localized` (the translation by BCP 47 lookup, else the definition's own name),
 * one cached name read per definition, nothing when `lang` is not given.
 */
describe.each(dialects)('translated badge names in the verify API and the embed on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let a: TestIssuer;
  let translated: Issued;
  let plain: Issued;
  let address = 0;

  const verify = (payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/v1/verify', payload, remoteAddress: `10.45.9.${++address % 250}` });

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    a = await t.issuer({ slug: `embed-text-${dialect}`, name: 'Northwind Academy' });
    const definition = await createDefinition(t, a, { name: 'Data Literacy' });
    for (const [language, name] of [
      ['fr', 'Culture des données'],
      ['fr-CA', 'Littératie des données'],
    ]) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/definitions/${definition.id}/translations/${language}`,
        headers: auth(a.key),
        payload: { name, description: name },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    translated = await issue(t, a, definition.id, { email: 'grace@example.test', name: 'Grace Hopper' });
    plain = await issue(t, a, (await createDefinition(t, a, { name: 'SQL Foundations' })).id, {
      email: 'grace@example.test',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('answers the name in the language asked, by lookup, and nothing extra without lang', async () => {
    const named = async (lang: string | undefined, id = translated.assertionUrl) => {
      const res = await verify(lang === undefined ? { id } : { id, lang });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().credential;
    };
    expect(await named('fr')).toMatchObject({
      name: 'Data Literacy',
      localized: { language: 'fr', name: 'Culture des données' },
    });
    expect((await named('fr-CA')).localized).toEqual({ language: 'fr-CA', name: 'Littératie des données' });
    expect((await named('fr-CH')).localized).toEqual({ language: 'fr', name: 'Culture des données' });
    expect((await named('de')).localized).toEqual({ language: 'en', name: 'Data Literacy' });
    expect((await named('<b>')).localized).toEqual({ language: 'en', name: 'Data Literacy' });
    expect((await named(undefined)).localized).toBeUndefined();
    expect((await named('fr', plain.assertionUrl)).localized).toEqual({ language: 'en', name: 'SQL Foundations' });
    expectErrorBody(await verify({ id: translated.assertionUrl, lang: 'x'.repeat(36) }), 400, 'validation_failed');

    const bulk = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify/bulk',
      payload: { ids: [translated.assertionUrl, plain.assertionUrl, 'nothing', translated.credentialId], lang: 'fr' },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(
      bulk.json().results.map((r: { credential?: { localized?: { name: string } } }) => r.credential?.localized?.name),
    ).toEqual(['Culture des données', 'SQL Foundations', undefined, 'Culture des données']);
  });

  it('shows a saved translation at once (the cached names are dropped with the definition)', async () => {
    expect((await verify({ id: translated.assertionUrl, lang: 'nl' })).json().credential.localized.name).toBe(
      'Data Literacy',
    );
    const definitionId = (
      await t.database.db
        .selectFrom('credentials')
        .select('definition_id')
        .where('id', '=', translated.credentialId)
        .executeTakeFirstOrThrow()
    ).definition_id;
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/definitions/${definitionId}/translations/nl`,
      headers: auth(a.key),
      payload: { name: 'Datageletterdheid', description: 'Data lezen.' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await verify({ id: translated.assertionUrl, lang: 'nl' })).json().credential.localized).toEqual({
      language: 'nl',
      name: 'Datageletterdheid',
    });
  });

  it("names the badge in Chromium in the card's language, marking a name in another language", async () => {
    const site =
      await hostSite(`<!doctype html><html lang="fr-CA"><head><meta charset="utf-8"><title>Portfolio</title></head><body>
<div id="page" data-service-credential="${translated.assertionUrl}"></div>
<div id="other" data-service-credential="${plain.assertionUrl}"></div>
<div id="asked" data-lang="de" data-service-credential="${translated.assertionUrl}"></div>
<script src="${base}/embed/v1.js" async></script></body></html>`);
    try {
      const context = await browser.newContext({ locale: 'en-GB' });
      const page = await context.newPage();
      await page.goto(site.url, { waitUntil: 'load' });
      const nm = (id: string) => page.locator(`#${id} .nm`);
      await expect.poll(() => nm('page').textContent()).toBe('Littératie des données');
      expect(await nm('page').getAttribute('lang')).toBeNull();
      expect(await page.locator('#page img').getAttribute('alt')).toContain('Littératie des données');
      await expect.poll(() => nm('other').textContent()).toBe('SQL Foundations');
      expect(await nm('other').getAttribute('lang')).toBe('en');
      await expect.poll(() => nm('asked').textContent()).toBe('Data Literacy');
      expect(await nm('asked').getAttribute('lang')).toBe('en');
      expect(await page.locator('#asked .box').getAttribute('lang')).toBe('de');
      await context.close();
    } finally {
      await new Promise((resolve) => site.server.close(resolve));
    }
  });
});
