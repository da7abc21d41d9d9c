import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { expectAccessible, watchProblems } from './console-browser.support.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, freePort, issue, launchChromium } from './verification.support.js';

const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/**
 * The earner's wallet offer page (issue 46: "the wallet offer explained to the earner"): what a
 * wallet is, which ones work, what happens without one, the QR code and both links, in the earner's
 * language, linked from the award email; and what it says once the offer is used, expired or revoked.
 */
describe.each(dialects)('wallet offer page on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let a: TestIssuer;
  let b: TestIssuer;
  let definitionId: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let views = 0;

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: url.replace(base, ''), headers, remoteAddress: `10.7.0.${++views % 256}` });

  /** An offer made through the API, as an LMS asks for one. */
  const offer = async (credentialId: string, body: Record<string, unknown> = {}) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${credentialId}/offers`,
      headers: auth(a.key),
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { offer: string; pageUrl: string; credentialOfferUri: string; expiresAt: string };
  };
  const issued = async (name: string) =>
    issue(t, a, definitionId, { email: `${name.toLowerCase()}@example.test`, name: `${name} Example` });

  beforeAll(async () => {
    smtp = await startSmtpServer(() => 'accept');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, {
      clock,
      env: {
        PUBLIC_BASE_URL: base,
        SMTP_URL: smtp.url,
        MAIL_FROM: 'badges@accolade.test',
        NOTIFY_RATE_PER_MINUTE: '60000',
        SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef',
      },
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    a = await t.issuer({ slug: `offer-page-${dialect}`, name: 'Northwind <Academy>' });
    b = await t.issuer({ slug: `offer-other-${dialect}`, name: 'Other' });
    definitionId = (await createDefinition(t, a, { name: 'Data "Literacy"' })).id;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('is what the award email’s wallet button opens: the explanation, the QR code, the offer and LCW links', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: 'ada@example.test', completionKey: 'page:mail', notify: true },
    });
    expect(res.statusCode, res.body).toBe(201);
    await t.app.services.notifications.drain();
    const mail = smtp.messages.at(-1)?.decoded ?? '';
    const pageUrl = new RegExp(`href="(${base}/wallet/${a.slug}/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+)"`).exec(mail)?.[1];
    expect(pageUrl, mail).toBeDefined();
    const page = await get(pageUrl as string);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers.vary).toContain('Accept-Language');
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'none'");
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('<h2 id="what">What is a wallet?</h2>');
    expect(page.body).toContain('Learner Credential Wallet');
    expect(page.body).toContain('No wallet? Nothing is lost');
    // Names are escaped wherever they appear.
    expect(page.body).toContain('Add “Data &quot;Literacy&quot;” to your wallet');
    expect(page.body).toContain('Northwind &lt;Academy&gt;');
    expect(page.body).not.toContain('<Academy>');
    expect(page.body).toMatch(/<figure class="qr"><div role="img" aria-label="[^"]+"><svg /);
    const offerLink = /<a class="button primary wallet-offer" href="(openid-credential-offer:\/\/[^"]+)"/.exec(
      page.body,
    )?.[1];
    expect(offerLink).toBeDefined();
    expect(page.body).toMatch(/<a class="button lcw" href="https:\/\/lcw\.app\/request\.html\?issuer=/);
    expect(page.body).toContain('?download" download>Download it (Open Badges 3.0 file)</a>');
    // The offer on the page redeems, once.
    const uri = new URL((offerLink as string).replaceAll('&amp;', '&')).searchParams.get('credential_offer_uri');
    const object = await get(String(uri));
    expect(object.statusCode).toBe(200);
    const code = object.json().grants[PRE_AUTH]['pre-authorized_code'];
    const token = await t.app.inject({
      method: 'POST',
      url: `/v1/issuers/${a.slug}/oid4vci/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString(),
    });
    expect(token.statusCode, token.body).toBe(200);
    // Used: the page says so, and shows no offer any more.
    const used = await get(pageUrl as string);
    expect(used.statusCode).toBe(200);
    expect(used.body).toContain('This offer has been used');
    expect(used.body).not.toContain('openid-credential-offer://');
  });

  it('follows ?lang= and Accept-Language by q-value', async () => {
    const made = await offer((await issued('Grace')).credentialId);
    const fr = await get(`${made.pageUrl}?lang=fr`);
    expect(fr.body).toContain('<html lang="fr">');
    expect(fr.body).toContain('Qu’est-ce qu’un portefeuille ?');
    expect(fr.headers['content-language']).toBe('fr');
    const de = await get(made.pageUrl, { 'accept-language': 'en;q=0.1, de-CH;q=0.9, nl;q=0.5' });
    expect(de.body).toContain('<html lang="de">');
    expect(de.body).toContain('Was ist eine Wallet?');
    const bad = await get(`${made.pageUrl}?lang=%22%3E%3Cscript%3E`, { 'accept-language': 'es' });
    expect(bad.statusCode).toBe(200);
    expect(bad.body).toContain('<html lang="es">');
    expect(bad.body).not.toContain('"><script>');
  });

  it('says when an offer expired or its credential was revoked, and tells a tx_code offer apart', async () => {
    const withCode = await offer((await issued('Lin')).credentialId, { txCode: true });
    expect((await get(withCode.pageUrl)).body).toContain('Your wallet will ask for a code');
    const late = await offer((await issued('Ian')).credentialId);
    clock.set('2027-01-01T00:00:00.000Z');
    const expired = await get(late.pageUrl);
    expect(expired.body).toContain('This offer has expired');
    expect(expired.body).not.toContain('openid-credential-offer://');
    clock.set('2026-11-21T10:00:00.000Z');
    const gone = await issued('Rex');
    const soon = await offer(gone.credentialId);
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${gone.credentialId}/revoke`,
      headers: auth(a.key),
      payload: { reason: 'Issued in error' },
    });
    expect(revoke.statusCode).toBe(200);
    const revoked = await get(soon.pageUrl);
    expect(revoked.body).toContain('This credential can no longer be added');
    expect(revoked.body).not.toContain('openid-credential-offer://');
    expect(revoked.body).not.toContain('?download');
  });

  it('answers the 404 page for a wrong secret, mixed offers or another issuer’s slug', async () => {
    const one = await offer((await issued('Ola')).credentialId);
    const two = await offer((await issued('Pia')).credentialId);
    const [, , , , oneCode, oneChallenge] = new URL(one.pageUrl).pathname.split('/');
    const [, , , , , twoChallenge] = new URL(two.pageUrl).pathname.split('/');
    for (const path of [
      `/wallet/${a.slug}/${oneCode}/${twoChallenge}`,
      `/wallet/${a.slug}/${oneCode}/x`,
      `/wallet/${b.slug}/${oneCode}/${oneChallenge}`,
      `/wallet/nobody/${oneCode}/${oneChallenge}`,
      `/wallet/${a.slug}/${'x'.repeat(500)}/${oneChallenge}`,
    ]) {
      const res = await get(path, { 'accept-language': 'nl' });
      expect(res.statusCode, path).toBe(404);
      expect(res.body, path).toContain('Aanbieding niet gevonden');
    }
  });

  it("shows the badge's translated name, in the credential's language when the request names none", async () => {
    const translated = await createDefinition(t, a, { name: 'Forklift Safety' });
    for (const [language, name] of [
      ['fr', 'Sécurité des chariots élévateurs'],
      ['de', 'Staplersicherheit'],
    ]) {
      const put = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/definitions/${translated.id}/translations/${language}`,
        headers: auth(a.key),
        payload: { name, description: name },
      });
      expect(put.statusCode, put.body).toBe(200);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: {
        definitionId: translated.id,
        recipientEmail: 'chariot@example.test',
        completionKey: 'page:translated',
        language: 'fr',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const made = await offer(res.json().credentialId);
    const french = await get(made.pageUrl);
    expect(french.body).toContain('<html lang="fr">');
    expect(french.headers['content-language']).toBe('fr');
    expect(french.body).toContain('Sécurité des chariots élévateurs');
    expect(french.body).not.toContain('Forklift Safety');
    const german = await get(made.pageUrl, { 'accept-language': 'de-CH, fr;q=0.5' });
    expect(german.body).toContain('<html lang="de">');
    expect(german.body).toContain('Staplersicherheit');
    const english = await get(`${made.pageUrl}?lang=en`);
    expect(english.body).toContain('<html lang="en">');
    expect(english.body).toContain('Forklift Safety');
  });

  describe('in Chromium', () => {
    for (const language of ['en', 'fr', 'de', 'es', 'nl'] as const) {
      it(`passes axe in ${language} at 1280 and 390 px with no CSP problem`, async () => {
        const made = await offer((await issued(`Axe${language}`)).credentialId);
        for (const viewport of [
          { width: 1280, height: 900 },
          { width: 390, height: 844 },
        ]) {
          const context = await browser.newContext({ viewport, locale: language });
          const page = await context.newPage();
          const problems = watchProblems(page);
          await page.goto(made.pageUrl, { waitUntil: 'load' });
          expect(await page.getAttribute('html', 'lang')).toBe(language);
          expect(await page.locator('.qr svg').count()).toBe(1);
          await expectAccessible(page, `${language} ${viewport.width}px`);
          const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
          expect(overflow, `${language} ${viewport.width}px`).toBeLessThanOrEqual(0);
          expect(problems).toEqual([]);
          await context.close();
        }
      });
    }
  });
});
