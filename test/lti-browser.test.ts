import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, signInByInvite, startConsoleApp, watchProblems } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { type Platform, ROLE, type SimUser, startPlatform } from './lti-platform.support.js';
import { launchChromium } from './verification.support.js';

/**
 * Issue 43's browser legs in Debian's Chromium: the owner registers the LMS from the console, and
 * the launches run as an LMS frame would run them: the login, the platform's authorization endpoint
 * posting the id_token back, the deep linking picker posting its signed response to the platform,
 * the learner's page and the instructor's page.
 */
describe.each(dialects)('the LTI tool in a browser on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  let issuer: TestIssuer;
  let sim: Platform;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let definitionId: string;
  const teacher: SimUser = {
    id: 'teacher-b',
    name: 'Tara Teacher',
    email: 'tara@college.example',
    roles: [ROLE.instructor],
  };
  const learner: SimUser = {
    id: 'learner-b',
    name: 'Leo Learner',
    email: 'leo@college.example',
    roles: [ROLE.learner],
  };
  const other: SimUser = {
    id: 'learner-c',
    name: 'Cleo Classmate',
    email: 'cleo@college.example',
    roles: [ROLE.learner],
  };

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect));
    sim = await startPlatform();
    for (const user of [teacher, learner, other]) sim.users.set(user.id, user);
    issuer = await t.issuer({ name: 'Browser College' });
    definitionId = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: { authorization: `Bearer ${issuer.key}` },
        payload: { name: 'Lab Safety', description: 'Passed the lab safety course' },
      })
    ).json().id;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchProblems(page);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await sim?.close();
  });

  /** The content item of the deep linking response the platform received. */
  function placedItem(): Record<string, unknown> {
    const items = sim.deepLinkResponses[0]?.['https://purl.imsglobal.org/spec/lti-dl/claim/content_items'];
    return (Array.isArray(items) ? items[0] : undefined) ?? {};
  }

  /** The LMS opening a launch: the browser goes to the tool's login with the platform's parameters. */
  async function open(user: SimUser, pending: Omit<Parameters<Platform['launches']['set']>[1], 'user'>) {
    const hint = `hint-${Math.random().toString(36).slice(2)}`;
    sim.launches.set(hint, { ...pending, user });
    const query = new URLSearchParams({
      iss: sim.issuer,
      login_hint: user.id,
      target_link_uri: `${base}/lti/launch`,
      lti_message_hint: hint,
      client_id: sim.clientId ?? '',
    });
    await page.goto(`${base}/lti/login?${query}`);
  }

  it('lets the owner create a registration URL in the console, which registers the LMS', async () => {
    await signInByInvite(page, t.app, issuer.id, `owner-${dialect}@college.example`, 'owner');
    await page.goto(`${base}/console/connectors`);
    await page.getByRole('link', { name: 'LMS (LTI 1.3)' }).click();
    await page.getByRole('heading', { name: 'LMS (LTI 1.3)', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create a registration URL' }).click();
    const url = await page.getByLabel('Registration URL').inputValue();
    expect(url.startsWith(`${base}/lti/register/`)).toBe(true);
    expect(await page.getByLabel('Keyset URL', { exact: true }).inputValue()).toBe(`${base}/lti/jwks`);
    await expectAccessible(page, 'LTI connector page');
    const query = new URLSearchParams({
      openid_configuration: `${sim.issuer}/.well-known/openid-configuration`,
      registration_token: sim.registrationToken,
    });
    const registration = await (await browser.newContext()).newPage();
    await registration.goto(`${url}?${query}`);
    await registration.getByRole('heading', { name: 'Accolade is registered' }).waitFor();
    await page.reload();
    await page.getByText(sim.clientId ?? 'no client').waitFor();
    await page.getByLabel(/^Name of /).fill('Campus LMS');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Renamed.').waitFor();
  });

  it('rotates the tool key from the console: the new key signs, the old one stays in the keyset', async () => {
    const kids = async () =>
      ((await t.app.inject({ url: '/lti/jwks' })).json().keys as { kid: string }[]).map((k) => k.kid);
    const before = await kids();
    await page.getByRole('heading', { name: 'Tool key' }).waitFor();
    await expect
      .poll(() => page.getByRole('table', { name: /Keys in the keyset/ }).textContent())
      .toContain('Signs (the service key)');
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await page
      .getByRole('alertdialog', { name: 'Rotate the tool key?' })
      .getByRole('button', { name: 'Rotate key' })
      .click();
    await page.getByText('Rotated: the new key signs from now on.').waitFor();
    const signing = (await t.app.services.lti.keys.current(issuer.id)).kid;
    expect(before).not.toContain(signing);
    expect(await kids()).toEqual(expect.arrayContaining([...before, signing]));
    await expect.poll(() => page.getByRole('table', { name: /Keys in the keyset/ }).textContent()).toContain(signing);
    await expectAccessible(page, 'LTI connector page after a rotation (1280 px)');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page, 'LTI connector page (390 px)');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('places a badge with the deep linking picker, and the platform receives the signed link', async () => {
    await open(teacher, { messageType: 'LtiDeepLinkingRequest' });
    await page.getByRole('heading', { name: 'Choose a badge' }).waitFor();
    await page.getByRole('button', { name: 'Lab Safety' }).click();
    await page.getByLabel('When the learner opens it').waitFor();
    expect(await page.getByLabel('When the learner opens it').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Add to course' }).click();
    await page.getByRole('heading', { name: 'Item placed in the course' }).waitFor();
    expect(sim.deepLinkResponses).toHaveLength(1);
    const item = placedItem();
    expect(item).toMatchObject({ type: 'ltiResourceLink', title: 'Lab Safety' });
    const link = await t.database.db
      .selectFrom('credentials')
      .select('id')
      .where('definition_id', '=', definitionId)
      .execute();
    expect(link).toHaveLength(0);
  });

  const placedLink = () => String((placedItem().custom as Record<string, string> | undefined)?.accolade_link ?? '');

  it('awards the learner who opens the link, and shows the badge earned', async () => {
    await open(learner, { messageType: 'LtiResourceLinkRequest', custom: { accolade_link: placedLink() } });
    await page.getByRole('heading', { name: 'You earned “Lab Safety”' }).waitFor();
    await page.getByRole('link', { name: 'See your badge on its verification page' }).waitFor();
    await expectAccessible(page, 'learner page');
  });

  it('shows the instructor who has earned it, and awards the selected learners', async () => {
    await open(teacher, { messageType: 'LtiResourceLinkRequest', custom: { accolade_link: placedLink() } });
    await page.getByRole('heading', { name: 'Who has earned “Lab Safety”' }).waitFor();
    await expect.poll(() => page.getByRole('row', { name: /Leo Learner/ }).textContent()).toContain('Earned');
    await page.getByLabel('Select Cleo Classmate').check();
    await page.getByRole('button', { name: 'Award to selected' }).click();
    await page.getByText('Awarded to 1 learner.').waitFor();
    await expect.poll(() => page.getByRole('row', { name: /Cleo Classmate/ }).textContent()).toContain('Earned');
    await page.getByRole('button', { name: 'Check scores now' }).waitFor();
    await expectAccessible(page, 'instructor page');
    expect(problems).toEqual([]);
  });
});
