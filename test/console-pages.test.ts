import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';
import { answer, type Receiver, startReceiver } from './webhooks.support.js';

/** Issue 39 §6 and §7 on the webhooks, team, privacy, pathways, connectors and dashboard pages. */
describe.each(dialects)('console pages of issue 39 on %s', { timeout: 240_000 }, (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let base: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let receiver: Receiver;
  let definition: { id: string; slug: string };
  const keyed = () => ({ authorization: `Bearer ${issuer.key}` });

  /** A credential of the first definition, issued through the API. */
  async function issueTo(recipientEmail: string, completionKey: string) {
    const held = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: keyed(),
      payload: { definitionId: definition.id, recipientEmail, completionKey },
    });
    expect(held.statusCode, held.body).toBe(201);
  }
  async function open(path: string, heading: string) {
    await page.goto(`${base}${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect));
    issuer = await t.issuer({ name: 'Pages Academy' });
    receiver = await startReceiver(answer(503));
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: keyed(),
      payload: { name: 'First Aid', description: 'Provides first aid.' },
    });
    definition = created.json();
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: keyed(),
      payload: { name: 'CPR', description: 'Provides CPR.' },
    });
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    // Generous bounds for a loaded 2-core machine (issue 46): a wait ends when its condition holds.
    page.setDefaultTimeout(60_000);
    await signInByInvite(page, t.app, issuer.id, 'owner@pages.example', 'owner');
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it('serves an SVG favicon the console links, within its CSP', async () => {
    const index = await t.app.inject({ method: 'GET', url: '/console' });
    const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(index.body)?.[1] ?? '';
    expect(href).toMatch(/^\/console\/assets\/favicon-[0-9a-f]{8}\.svg$/);
    const icon = await t.app.inject({ method: 'GET', url: href });
    expect(icon.statusCode).toBe(200);
    // The path every browser asks for on its own (issue 46): the same icon, not a 404.
    const ico = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(ico.statusCode).toBe(200);
    expect(ico.headers['content-type']).toContain('image/svg+xml');
    expect(ico.body).toBe(icon.body);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.headers['cache-control']).toContain('immutable');
    expect(icon.body).toContain('<svg');
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe(href);
    const fetched = await page.evaluate<number>(`fetch(${JSON.stringify(href)}).then((res) => res.status)`);
    expect(fetched).toBe(200);
    expect(problems).toEqual([]);
  });

  it('dashboard: empty states instead of empty axes, country names instead of codes', async () => {
    await open('/console/dashboard', 'Dashboard');
    const countries = page.getByRole('figure', { name: 'Countries' });
    await countries.getByText('No verifications in this range yet, so no countries.').waitFor();
    expect(await countries.locator('canvas').count()).toBe(0);
    await page
      .getByRole('figure', { name: 'Per pathway' })
      .getByText(/No pathway activity/)
      .waitFor();
    await expectAccessible(page, 'dashboard, empty');

    const now = new Date().toISOString();
    for (const country of ['ZZ', 'DE', 'DE', 'AU']) {
      await sql`insert into verification_events (issuer_id, credential_id, channel, country, occurred_at)
        values (${issuer.id}, 'c', 'api', ${country}, ${now})`.execute(t.database.db);
    }
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('figure', { name: 'Countries' }).locator('summary').click();
    const rows = page.locator('table[data-chart="countries"] tbody th');
    await expect
      .poll(() => rows.allTextContents())
      .toEqual(expect.arrayContaining(['Germany', 'Australia', 'Unknown']));
    expect(await rows.allTextContents()).not.toContain('ZZ');
    await expectAccessible(page, 'dashboard with countries');
  });

  it('webhooks: the delivery log shows the error; edit and remove (behind a dialog)', async () => {
    await open('/console/webhooks', 'Webhooks');
    // The add form offers every event of the catalog, the reminder announcement included.
    const catalog = (await t.app.inject({ method: 'GET', url: '/api/v1/webhooks/catalog' })).json();
    const names = (catalog.events as { event: string }[]).map((entry) => entry.event);
    expect(names).toContain('credential.expiry_reminder_due');
    for (const name of names) await page.getByLabel(name, { exact: true }).first().waitFor();
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Copy the signing secret now' }).waitFor();
    const section = page.getByRole('region', { name: `Webhook ${receiver.url}` });
    await section.getByText('No deliveries yet.').waitFor();
    await section.getByRole('button', { name: 'Send test event' }).click();
    await section.getByText('Test event queued.').waitFor();
    await t.app.services.webhooks.dispatcher.drain();
    await section.getByRole('button', { name: 'Refresh deliveries' }).click();
    await section.getByRole('cell', { name: 'HTTP 503' }).waitFor();
    await expectAccessible(page, 'webhooks with a failed delivery');

    const moved = `${receiver.url}/moved`;
    await section.getByRole('button', { name: `Edit webhook ${receiver.url}` }).click();
    const form = section.getByRole('form', { name: `Edit webhook ${receiver.url}` });
    await form.getByLabel('Receiver URL').fill(moved);
    await form.getByLabel('credential.expired').check();
    await form.getByLabel('credential.issued').uncheck();
    await expectAccessible(page, 'webhook edit form');
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByRole('heading', { name: moved }).waitFor();
    const [stored] = (await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: keyed() })).json();
    expect(stored).toMatchObject({ url: moved, events: ['credential.revoked', 'credential.expired'] });

    const edited = page.getByRole('region', { name: `Webhook ${moved}` });
    await edited.getByRole('button', { name: `Remove webhook ${moved}` }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Remove this webhook?' });
    await dialog.waitFor();
    await expectAccessible(page, 'remove webhook dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: keyed() })).json()).toHaveLength(1);
    await edited.getByRole('button', { name: `Remove webhook ${moved}` }).click();
    await dialog.getByRole('button', { name: 'Remove webhook' }).click();
    await edited.waitFor({ state: 'detached' });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: keyed() })).json()).toEqual([]);
  });

  it('team: removing a user asks first', async () => {
    await t.app.services.accounts.invite(issuer.id, 'leaving@pages.example', 'issuer', 'system');
    await open('/console/team', 'Team');
    await page.getByRole('button', { name: 'Remove leaving@pages.example' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Remove leaving@pages.example?' });
    await dialog.waitFor();
    await expectAccessible(page, 'remove user dialog');
    await dialog.getByRole('button', { name: 'Remove user' }).click();
    await page.getByRole('rowheader', { name: 'leaving@pages.example' }).waitFor({ state: 'detached' });
    const users = await t.app.services.accounts.listUsers(issuer.id);
    expect(JSON.stringify(users)).not.toContain('leaving@pages.example');
  });

  it('privacy: an export names the credentials and downloads the JSON and the printable document (issue 46)', async () => {
    await issueTo('ask.me@pages.example', 'sar-1');
    await open('/console/privacy', 'Privacy');
    await page.getByLabel('Earner email').fill('ask.me@pages.example');
    await page.getByRole('button', { name: 'Export data' }).click();
    const exported = page.getByRole('region', { name: 'Export' });
    await exported.getByText('1 credential held for this earner (no name stored).').waitFor();
    await exported.getByRole('link', { name: 'First Aid' }).waitFor();
    await expectAccessible(page, 'privacy export');

    const [json] = await Promise.all([
      page.waitForEvent('download'),
      exported.getByRole('button', { name: 'Download JSON' }).click(),
    ]);
    expect(json.suggestedFilename()).toMatch(/^subject-access-\d{4}-\d{2}-\d{2}\.json$/);
    const data = JSON.parse(readFileSync(await json.path(), 'utf8'));
    expect(data).toMatchObject({ found: true, issuer: { name: 'Pages Academy' } });
    expect(data.credentials).toEqual([
      expect.objectContaining({ badge: expect.objectContaining({ name: 'First Aid' }) }),
    ]);

    const [doc] = await Promise.all([
      page.waitForEvent('download'),
      exported.getByRole('button', { name: 'Download document (HTML, printable)' }).click(),
    ]);
    expect(doc.suggestedFilename()).toMatch(/^subject-access-\d{4}-\d{2}-\d{2}\.html$/);
    const text = readFileSync(await doc.path(), 'utf8');
    expect(text).toContain('<title>Your data held by Pages Academy</title>');
    expect(text).toContain('First Aid');
    expect(text.toLowerCase()).not.toContain('ask.me@pages.example');
    expect(problems).toEqual([]);
  });

  it('privacy: erasing asks first, then revokes', async () => {
    await issueTo('erase.me@pages.example', 'erase-1');
    await open('/console/privacy', 'Privacy');
    await page.getByLabel('Earner email').fill('erase.me@pages.example');
    await page.getByRole('button', { name: 'Erase data' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Erase everything held for this earner?' });
    await dialog.waitFor();
    await expectAccessible(page, 'erase dialog');
    await dialog.getByRole('button', { name: 'Erase permanently' }).click();
    await page.getByRole('status').getByText('Erased: 1 credentials revoked and unlinked.').waitFor();
  });

  it('pathways: create one, add stages, and see an earner’s progress', async () => {
    await issueTo('learner@pages.example', 'learner-1');
    await open('/console/pathways', 'Pathways');
    await page.getByLabel('Name').fill('Responder');
    await page.getByLabel('Description').fill('First aid, then CPR.');
    await page.getByRole('button', { name: 'Create pathway' }).click();
    const section = page.getByRole('region', { name: 'Responder' });
    await section.getByText('No stages yet.').waitFor();
    const addStage = section.getByRole('form', { name: 'Add a stage to Responder' });
    await addStage.getByLabel('Definition').selectOption({ label: 'First Aid' });
    await addStage.getByRole('button', { name: 'Add stage' }).click();
    await section.getByRole('list', { name: 'Stages of Responder' }).getByText('First Aid').waitFor();
    await addStage.getByLabel('Definition').selectOption({ label: 'CPR' });
    await addStage.getByRole('button', { name: 'Add stage' }).click();
    await expect
      .poll(() => section.getByRole('list', { name: 'Stages of Responder' }).getByRole('listitem').allTextContents())
      .toEqual(['First Aid', 'CPR']);
    await section.getByLabel('Earner email').fill('learner@pages.example');
    await section.getByRole('button', { name: 'Show progress' }).click();
    await section.getByText('1 of 2 stages earned.').waitFor();
    await section.getByText('CPR: not yet').waitFor();
    await expectAccessible(page, 'pathways with progress');
  });

  it('connectors: receive URL, a labelled key, the definition map, and a test record per system', async () => {
    await open('/console/connectors', 'Connectors');
    await expectAccessible(page, 'connectors list');
    for (const [provider, name] of [
      ['moodle', 'Moodle'],
      ['canvas', 'Canvas LMS'],
      ['axcelerate', 'aXcelerate'],
      ['generic', 'Any other system'],
    ] as const) {
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name: `Connect ${name}` }).waitFor();
      expect(await page.getByLabel('Receive URL').inputValue()).toBe(
        `${base}/api/v1/connectors/${provider}/completions`,
      );
      await page.getByRole('button', { name: `Make a key for ${name}` }).click();
      const key = (await page.locator('.secret code.key').textContent()) ?? '';
      const test = await t.app.inject({
        method: 'GET',
        url: '/api/v1/definitions',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(test.statusCode).toBe(200);

      await page.getByRole('textbox', { name: /of First Aid$/ }).fill('FA-1');
      const pasted = (await page.locator('pre[data-paste="definition-map"]').textContent()) ?? '';
      if (provider === 'moodle') expect(pasted).toBe(`&definitionMap[FA-1]=${definition.slug}`);
      else expect(JSON.parse(pasted)).toEqual({ definitionMap: { 'FA-1': definition.slug } });

      const form = page.getByRole('form', { name: `Send a test record from ${name}` });
      await form.getByLabel('Test earner email').fill(`${provider}@pages.example`);
      await form.getByLabel('Definition').selectOption({ label: 'CPR' });
      await form.getByRole('button', { name: 'Send a test record' }).click();
      const report = page.getByRole('table', { name: /^Report:/ });
      await report.getByRole('link', { name: 'issued' }).waitFor();
      expect(await report.locator('caption').textContent()).toBe('Report: 1 issued, 0 skipped, 0 errors');
      await expectAccessible(page, `${provider} connector after a test`);
      await page.getByRole('link', { name: 'All connectors' }).click();
      await page.getByRole('heading', { name: 'Connectors' }).waitFor();
    }
    const keys = await t.database.db
      .selectFrom('api_keys')
      .select('label')
      .where('issuer_id', '=', issuer.id)
      .execute();
    expect(keys.map((key) => key.label)).toEqual(
      expect.arrayContaining([
        'Moodle connector',
        'Canvas LMS connector',
        'aXcelerate connector',
        'Any other system connector',
      ]),
    );
    expect(problems).toEqual([]);
  });

  it('a viewer who opens an owner page by URL sees it read-only', async () => {
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const viewer = await viewerContext.newPage();
    await signInByInvite(viewer, t.app, issuer.id, 'viewer@pages.example', 'viewer');
    for (const [path, heading] of [
      ['/console/keys', 'API keys'],
      ['/console/webhooks', 'Webhooks'],
      ['/console/team', 'Team'],
      ['/console/privacy', 'Privacy'],
    ] as const) {
      await viewer.goto(`${base}${path}`);
      await viewer.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await viewer.getByText(/^Only an owner can manage/).waitFor();
      expect(await viewer.locator('main button, main form').count(), path).toBe(0);
      expect(await viewer.getByRole('alert').count(), path).toBe(0);
      await expectAccessible(viewer, `${path} as a viewer`);
    }
    await viewer.goto(`${base}/console/connectors/moodle`);
    await viewer.getByRole('heading', { name: 'Connect Moodle' }).waitFor();
    await viewer.getByText('Only an owner can make API keys.').waitFor();
    expect(await viewer.locator('main button').count()).toBe(0);
    await viewer.goto(`${base}/console/pathways`);
    await viewer.getByRole('region', { name: 'Responder' }).waitFor();
    expect(await viewer.getByRole('button', { name: /Create pathway|Add stage/ }).count()).toBe(0);
    await viewer.getByRole('button', { name: 'Show progress' }).first().waitFor();
    await viewerContext.close();
  });
});
