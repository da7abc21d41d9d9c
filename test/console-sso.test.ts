import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleUser, PASSWORD } from './console.support.js';
import { expectAccessible, startConsoleApp, watchProblems } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { CLIENT_ID, CLIENT_SECRET, startProvider, type TestProvider } from './sso.support.js';
import { launchChromium } from './verification.support.js';

const DOMAIN = 'staff.example';

/**
 * Issue 39 §8 in Debian's Chromium: an owner sets up the issuer's OpenID Connect provider in the
 * console, and staff sign in through a real provider (oidc-provider, on `localhost`: another site
 * than the console on 127.0.0.1) with the whole redirect dance.
 */
describe.each(dialects)('console sign-in with the organisation’s login in a browser on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let provider: TestProvider;
  let base: string;
  let browser: Browser;
  let owner: Page;
  let ownerEmail: string;
  /** What each watched page reported, filled as the pages run. */
  const watched: string[][] = [];

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect));
    provider = await startProvider(`${base}/sso/callback`, 'localhost');
    issuer = await t.issuer({ name: 'SSO College' });
    ownerEmail = (await consoleUser(t.app, issuer.id, 'owner', `owner-${dialect}@college.example`)).email;
    browser = await launchChromium();
    owner = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched.push(watchProblems(owner));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await provider?.close();
  });

  /** A fresh browser (no provider session) opening the issuer's login link. */
  async function loginLink(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    watched.push(watchProblems(page));
    await page.goto(`${base}/console/login?issuer=${issuer.slug}`);
    return page;
  }

  /** The provider's own login form, then back to the console. */
  async function throughProvider(page: Page, login: string): Promise<void> {
    await page.getByRole('button', { name: 'Sign in with Staff Login' }).click();
    await page.waitForURL((url) => url.hostname === 'localhost', { waitUntil: 'commit' });
    await page.locator('input[name=login]').fill(login);
    await page.locator('input[name=password]').fill('any password');
    await page.locator('button[type=submit]').click();
    await page.waitForURL((url) => url.hostname === '127.0.0.1', { waitUntil: 'commit' });
  }

  it('lets the owner set the provider up in the console', async () => {
    await owner.goto(`${base}/console/login`);
    await owner.getByLabel('Email').fill(ownerEmail);
    await owner.getByLabel('Password').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Sign in' }).click();
    await owner.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await owner.getByRole('link', { name: 'Sign-in' }).click();
    await owner.getByRole('heading', { name: 'Sign-in', level: 1 }).waitFor();
    await owner.getByRole('heading', { name: 'Set up a provider' }).waitFor();
    await expectAccessible(owner, 'sign-in settings, empty');
    // Issue 46: the redirect URI to register at the provider is shown before anything is saved.
    await owner.getByRole('heading', { name: 'First, at your provider' }).waitFor();
    await owner.getByText(`${base}/sso/callback`).waitFor();

    await owner.getByLabel('Provider name').fill('Staff Login');
    // An http:// address is flagged as it is typed, and a provider that is not there is refused in words.
    await owner.getByLabel('Issuer URL').fill('http://127.0.0.1:9/');
    await owner.getByText('This address starts with http://').waitFor();
    await owner.getByLabel('Client ID').fill(CLIENT_ID);
    await owner.getByLabel('Client secret').fill(CLIENT_SECRET);
    await owner.getByRole('button', { name: 'Save' }).click();
    await owner.getByRole('alert').getByText('No sign-in provider answered at that address').waitFor();
    expect(await owner.getByRole('alert').textContent()).not.toContain('body/issuerUrl');
    await expectAccessible(owner, 'sign-in settings, refused');
    await owner.getByLabel('Issuer URL').fill(provider.issuer);
    await owner.getByLabel('Client ID').fill(CLIENT_ID);
    await owner.getByLabel('Client secret').fill(CLIENT_SECRET);
    await owner.getByLabel('Email domain let in as viewers (optional)').fill(DOMAIN);
    await owner.getByRole('button', { name: 'Save' }).click();
    await owner.getByText('Saved. Staff can now sign in').waitFor();
    await owner.getByText(`${base}/sso/callback`).waitFor();
    await owner.getByRole('link', { name: `${base}/console/login?issuer=${issuer.slug}` }).waitFor();
    expect(await owner.getByLabel('Client secret').inputValue()).toBe('');
    await expectAccessible(owner, 'sign-in settings, set up');
    // On a phone (390 px) the long links wrap: the page does not scroll sideways.
    await owner.setViewportSize({ width: 390, height: 800 });
    expect(await owner.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await owner.setViewportSize({ width: 1280, height: 800 });
  });

  it('signs an invited user in with their role', async () => {
    await t.app.services.accounts.invite(issuer.id, `editor@${DOMAIN}`, 'issuer', 'system');
    const page = await loginLink();
    await page.getByRole('button', { name: 'Sign in with Staff Login' }).waitFor();
    await expectAccessible(page, 'login with the organisation’s login');
    await throughProvider(page, `editor@${DOMAIN}`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/dashboard');
    await page.getByText(`editor@${DOMAIN} (issuer)`).waitFor();
    await page.context().close();
  });

  it('lets an address of the owner’s domain in as a viewer', async () => {
    const page = await loginLink();
    await throughProvider(page, `someone@${DOMAIN}`);
    await page.getByText(`someone@${DOMAIN} (viewer)`).waitFor();
    await page.context().close();
  });

  it('offers the organisation’s login on the plain login page: the one this browser signed in to, or one named (issue 46)', async () => {
    // A browser that signed in before (here through the provider) is offered its organisation's login.
    const returning = await loginLink();
    await throughProvider(returning, `returning@${DOMAIN}`);
    await returning.getByText(`returning@${DOMAIN} (viewer)`).waitFor();
    await returning.getByRole('button', { name: 'Sign out' }).click();
    await returning.goto(`${base}/console/login`);
    await returning.getByRole('button', { name: 'Sign in with Staff Login' }).waitFor();
    await expectAccessible(returning, 'plain login, remembered organisation');
    await returning.getByRole('button', { name: 'Not your organisation? Forget it on this browser' }).click();
    await expect.poll(() => returning.getByRole('button', { name: 'Sign in with Staff Login' }).count()).toBe(0);
    await returning.context().close();

    // A new browser names its organisation by its web address.
    const fresh = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    watched.push(watchProblems(fresh));
    await fresh.goto(`${base}/console/login`);
    expect(await fresh.getByRole('button', { name: 'Sign in with Staff Login' }).count()).toBe(0);
    await fresh.getByText("Sign in with your organisation's login").click();
    await fresh.getByLabel("Your organisation's web address").fill('no-such-college');
    await fresh.getByRole('button', { name: 'Find its login' }).click();
    await fresh.getByText('No organisation login is set up for “no-such-college”.').waitFor();
    await fresh.getByLabel("Your organisation's web address").fill(`${base}/v1/issuers/${issuer.slug}`);
    await fresh.getByRole('button', { name: 'Find its login' }).click();
    await fresh.getByRole('button', { name: 'Sign in with Staff Login' }).waitFor();
    await expectAccessible(fresh, 'login, organisation named, 390 px');
    expect(await fresh.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await fresh.context().close();
  });

  it('refuses anyone else, and an answer whose state is not the browser’s flow, with a message on the login page', async () => {
    const stranger = await loginLink();
    await throughProvider(stranger, 'stranger@elsewhere.example');
    await stranger.getByRole('alert').getByText('has no access to this console').waitFor();
    expect(new URL(stranger.url()).pathname).toBe('/console/login');
    await expectAccessible(stranger, 'login, refused');
    await stranger.context().close();

    // Two sign-ins in one browser: the second one's cookie holds its own state, so the provider's
    // answer to the first one (its state) is refused.
    const tampered = await loginLink();
    await tampered.getByRole('button', { name: 'Sign in with Staff Login' }).click();
    await tampered.waitForURL((url) => url.hostname === 'localhost', { waitUntil: 'commit' });
    const second = await tampered.context().newPage();
    await second.goto(`${base}/console/login?issuer=${issuer.slug}`);
    await second.getByRole('button', { name: 'Sign in with Staff Login' }).click();
    await second.waitForURL((url) => url.hostname === 'localhost', { waitUntil: 'commit' });
    await tampered.locator('input[name=login]').fill(`editor@${DOMAIN}`);
    await tampered.locator('input[name=password]').fill('any password');
    await tampered.locator('button[type=submit]').click();
    await tampered.waitForURL((url) => url.hostname === '127.0.0.1', { waitUntil: 'commit' });
    await tampered.getByRole('alert').getByText('did not complete').waitFor();
    await tampered.context().close();
  });

  it('turns password sign-in off: the login link offers the provider only, a password is refused', async () => {
    await owner.getByLabel('Staff may also sign in with a password').uncheck();
    await owner.getByRole('button', { name: 'Save' }).click();
    await owner.getByText('Saved. Staff can now sign in').waitFor();

    const page = await loginLink();
    await page.getByText('This organisation signs in with its own login only.').waitFor();
    expect(await page.getByLabel('Password').count()).toBe(0);
    await expectAccessible(page, 'login, provider only');

    await page.goto(`${base}/console/login`);
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('signs in with its own login').waitFor();
    await page.context().close();
    expect(watched.flat()).toEqual([]);
  });
});

describe.each(dialects)('the sign-in settings outside development on %s (issue 46)', (dialect) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect, { env: { WEBHOOK_ALLOW_PRIVATE: 'false' } }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('refuses an http provider in words, not with the pattern the request broke', async () => {
    const issuer = await t.issuer({ name: 'Strict College' });
    const email = (await consoleUser(t.app, issuer.id, 'owner', `strict-${dialect}@college.example`)).email;
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const problems = watchProblems(page);
    await page.goto(`${base}/console/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.goto(`${base}/console/sign-in-settings`);
    await page.getByLabel('Provider name').fill('Staff Login');
    await page.getByLabel('Issuer URL').fill('http://login.college.example/');
    await page.getByLabel('Client ID').fill(CLIENT_ID);
    await page.getByLabel('Client secret').fill(CLIENT_SECRET);
    await page.getByRole('button', { name: 'Save' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText("it must be your provider's https:// address").waitFor();
    expect(await alert.textContent()).not.toMatch(/pattern|body\//);
    await expectAccessible(page, 'sign-in settings, http refused');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page, 'sign-in settings, http refused, 390 px');
    expect(problems).toEqual([]);
  });
});
