import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, openPage, signInByInvite, startConsoleApp } from './console-browser.support.js';
import { dialects, type TestApp, type TestIssuer } from './helpers.js';
import { launchChromium } from './verification.support.js';

describe.each(dialects)('console definition endorsements and alignments on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let definition: { id: string; slug: string };
  const keyed = () => ({ authorization: `Bearer ${issuer.key}` });

  async function signInAs(target: Page, email: string, role: 'owner' | 'viewer') {
    await signInByInvite(target, t.app, issuer.id, email, role);
    await target.getByRole('link', { name: 'Definitions' }).click();
    await target.getByRole('heading', { name: 'Definitions' }).waitFor();
  }

  beforeAll(async () => {
    ({ t, base } = await startConsoleApp(dialect));
    issuer = await t.issuer({ name: 'Definitions Academy' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: keyed(),
      payload: { name: 'Endorsed Badge', description: 'Has endorsements and alignments.' },
    });
    expect(created.statusCode, created.body).toBe(201);
    definition = created.json();
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, { viewport: { width: 1280, height: 800 } }));
    await signInAs(page, 'owner@definitions.example', 'owner');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the generated badge image of a definition that has no image of its own, loaded', async () => {
    const row = page.getByRole('row', { name: /Endorsed Badge/ });
    const image = row.locator('img');
    await image.waitFor();
    expect(await image.getAttribute('src')).toBe(`/v1/issuers/${issuer.slug}/badges/${definition.slug}/image.svg`);
    const loaded = (img: unknown) => {
      const element = img as { complete: boolean; naturalWidth: number };
      return element.complete && element.naturalWidth > 0;
    };
    await expect.poll(() => image.evaluate(loaded)).toBe(true);
  });

  it('records an endorsement and an alignment in the edit view, and the BadgeClass carries both', async () => {
    await page.getByRole('button', { name: 'Edit Endorsed Badge' }).click();
    const endorsements = page.getByRole('region', { name: 'Endorsements' });
    const alignments = page.getByRole('region', { name: 'Alignments' });
    await endorsements.getByText('No endorsements yet.').waitFor();
    await alignments.getByText('No alignments yet.').waitFor();
    await expectAccessible(page, 'definition edit view with endorsements and alignments');

    await endorsements.getByLabel('Endorser name').fill('Guild of Testers');
    await endorsements.getByLabel('Endorser URL').fill('https://guild.example/');
    await endorsements.getByLabel('Claim').fill('This badge shows real skill.');
    await endorsements.getByRole('button', { name: 'Record endorsement' }).click();
    await endorsements.getByRole('status').getByText('Recorded the endorsement by “Guild of Testers”.').waitFor();
    await endorsements.getByRole('listitem').getByText('Guild of Testers').waitFor();
    await endorsements.getByRole('listitem').getByText('(unsigned claim)').waitFor();

    await alignments.getByLabel('Target name').fill('Critical thinking');
    await alignments.getByLabel('Target URL').fill('https://framework.example/ct');
    await alignments.getByLabel('Framework').fill('Skills Framework');
    await alignments.getByLabel('Code').fill('CT-1');
    await alignments.getByRole('button', { name: 'Add alignment' }).click();
    await alignments.getByRole('status').getByText('Added the alignment to “Critical thinking”.').waitFor();
    await alignments.getByRole('link', { name: 'Critical thinking' }).waitFor();
    await expectAccessible(page, 'definition edit view after adding both');

    const listed = await t.app.inject({
      method: 'GET',
      url: `/api/v1/definitions/${definition.id}/endorsements`,
      headers: keyed(),
    });
    expect(listed.json()).toEqual([
      expect.objectContaining({
        targetType: 'definition',
        targetId: definition.id,
        endorserName: 'Guild of Testers',
        endorserUrl: 'https://guild.example/',
        claim: 'This badge shows real skill.',
      }),
    ]);
    const aligned = await t.app.inject({
      method: 'GET',
      url: `/api/v1/definitions/${definition.id}/alignments`,
      headers: keyed(),
    });
    expect(aligned.json()).toEqual([
      expect.objectContaining({
        targetName: 'Critical thinking',
        targetUrl: 'https://framework.example/ct',
        targetFramework: 'Skills Framework',
        targetCode: 'CT-1',
      }),
    ]);

    const badgeClass = await t.app.inject({
      method: 'GET',
      url: `/v1/issuers/${issuer.slug}/badges/${definition.slug}`,
    });
    expect(badgeClass.statusCode, badgeClass.body).toBe(200);
    const endorsementId = listed.json()[0].id as string;
    expect(badgeClass.json()).toMatchObject({
      alignment: [
        {
          targetName: 'Critical thinking',
          targetUrl: 'https://framework.example/ct',
          targetFramework: 'Skills Framework',
          targetCode: 'CT-1',
        },
      ],
      endorsement: [`${base}/v1/issuers/${issuer.slug}/endorsements/${endorsementId}`],
    });
    const hosted = await t.app.inject({
      method: 'GET',
      url: `/v1/issuers/${issuer.slug}/endorsements/${endorsementId}`,
    });
    expect(hosted.statusCode, hosted.body).toBe(200);
    expect(JSON.stringify(hosted.json())).toContain('This badge shows real skill.');
  });

  it('announces the API’s refusal of a target URL that is not http(s), and keeps the input', async () => {
    const alignments = page.getByRole('region', { name: 'Alignments' });
    await alignments.getByLabel('Target name').fill('Refused target');
    await alignments.getByLabel('Target URL').fill('ftp://framework.example/ct');
    await alignments.getByRole('button', { name: 'Add alignment' }).click();
    await alignments.getByRole('alert').getByText('targetUrl', { exact: false }).waitFor();
    expect(await alignments.getByLabel('Target name').inputValue()).toBe('Refused target');
    const aligned = await t.app.inject({
      method: 'GET',
      url: `/api/v1/definitions/${definition.id}/alignments`,
      headers: keyed(),
    });
    expect(aligned.json()).toHaveLength(1);
  });

  it('shows a viewer neither the edit view nor its endorsement and alignment forms', async () => {
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const viewer = await viewerContext.newPage();
      await signInAs(viewer, 'viewer@definitions.example', 'viewer');
      await viewer.getByRole('rowheader', { name: 'Endorsed Badge' }).waitFor();
      expect(await viewer.getByRole('button', { name: /^Edit/ }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: 'Record endorsement' }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: 'Add alignment' }).count()).toBe(0);
    } finally {
      await viewerContext.close();
    }
  });

  it('ran without a CSP violation or an uncaught error', () => {
    expect(problems).toEqual([]);
  });

  it('endorses another issuer’s badge with its own key, and revokes it after a confirmation dialog', async () => {
    const other = await t.issuer({ name: 'Endorsed Elsewhere' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: { authorization: `Bearer ${other.key}` },
      payload: { name: 'Other Badge', description: 'Endorsed from another issuer.' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const badgeClass = `${base}/v1/issuers/${other.slug}/badges/${created.json().slug}`;
    const own = await context.newPage();
    await own.goto(page.url());
    await own.getByRole('heading', { name: 'Definitions' }).waitFor();
    const given = own.getByRole('region', { name: 'Endorsements you give' });
    await given.getByText('No endorsements given yet.').waitFor();
    await given.getByLabel('Badge URL').fill(badgeClass);
    await given.getByLabel('Endorsement').fill('Sound work, checked by us.');
    await given.getByRole('button', { name: 'Endorse badge' }).click();
    await given.getByRole('status').getByText('Endorsed the badge, signed with your key.').waitFor();
    await given.getByRole('listitem').getByText('Sound work, checked by us.', { exact: false }).waitFor();
    await expectAccessible(own, 'definitions page with an endorsement given');

    const listed = (await t.app.inject({ method: 'GET', url: '/api/v1/endorsements/given', headers: keyed() })).json();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      badgeClass,
      revokedAt: null,
      credential: { issuer: { name: 'Definitions Academy' } },
    });
    expect(listed[0].credential.issuer.id).toMatch(/^did:web:/);
    const audit = (await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=200', headers: keyed() })).json();
    expect(audit.items.find((i: { targetId: string }) => i.targetId === listed[0].id)).toMatchObject({
      action: 'endorsement.given',
      actor: expect.stringMatching(/^user:/),
    });

    await given.getByRole('button', { name: 'Revoke endorsement' }).click();
    const dialog = own.getByRole('alertdialog', { name: 'Revoke this endorsement?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    const stillActive = (
      await t.app.inject({ method: 'GET', url: '/api/v1/endorsements/given', headers: keyed() })
    ).json();
    expect(stillActive[0].revokedAt).toBeNull();
    await given.getByRole('button', { name: 'Revoke endorsement' }).click();
    await own.getByRole('alertdialog').getByRole('button', { name: 'Revoke endorsement' }).click();
    await given.getByRole('status').getByText('Revoked the endorsement.').waitFor();
    await given.getByRole('listitem').getByText('(revoked)').waitFor();
    const revoked = (await t.app.inject({ method: 'GET', url: '/api/v1/endorsements/given', headers: keyed() })).json();
    expect(revoked[0].revokedAt).toEqual(expect.any(String));
    await own.close();
  });

  it('lists endorsements of its badges as awaiting a decision, and accepts, rejects and removes each after a dialog', async () => {
    const endorser = await t.issuer({ name: 'Friendly Guild' });
    const given = await t.app.inject({
      method: 'POST',
      url: '/api/v1/endorsements/given',
      headers: { authorization: `Bearer ${endorser.key}` },
      payload: { badgeClass: `${base}/v1/issuers/${issuer.slug}/badges/${definition.slug}`, claim: 'We vouch for it.' },
    });
    expect(given.statusCode, given.body).toBe(201);
    const id = given.json().id as string;
    const statusOf = async () =>
      (
        (await t.app.inject({ method: 'GET', url: '/api/v1/endorsements/received', headers: keyed() })).json() as {
          id: string;
          status: string;
        }[]
      ).find((r) => r.id === id)?.status;

    const own = await context.newPage();
    await own.goto(page.url());
    await own.getByRole('heading', { name: 'Definitions' }).waitFor();
    const received = own.getByRole('region', { name: 'Endorsements of your badges' });
    const item = received.getByRole('listitem').filter({ hasText: 'We vouch for it.' });
    await item.getByText('(awaiting your decision)').waitFor();
    await expectAccessible(own, 'definitions page with an endorsement received');

    const accept = item.getByRole('button', { name: 'Accept the endorsement by Friendly Guild of Endorsed Badge' });
    await accept.click();
    const dialog = own.getByRole('alertdialog', { name: 'Accept this endorsement?' });
    await dialog.getByText('The endorsement by Friendly Guild of “Endorsed Badge”.', { exact: false }).waitFor();
    await expectAccessible(own, 'accept endorsement dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await statusOf()).toBe('pending');
    await accept.click();
    await own.getByRole('alertdialog').getByRole('button', { name: 'Accept endorsement' }).click();
    await received.getByRole('status').getByText('Accepted the endorsement.').waitFor();
    await item.getByText('(accepted: in credentials you sign)').waitFor();
    expect(await statusOf()).toBe('accepted');

    await item.getByRole('button', { name: /^Reject the endorsement/ }).click();
    await own
      .getByRole('alertdialog', { name: 'Reject this endorsement?' })
      .getByRole('button', { name: 'Reject endorsement' })
      .click();
    await item.getByText('(rejected)').waitFor();
    expect(await statusOf()).toBe('rejected');

    await item.getByRole('button', { name: /^Remove the endorsement/ }).click();
    await own
      .getByRole('alertdialog', { name: 'Remove this endorsement?' })
      .getByRole('button', { name: 'Remove endorsement' })
      .click();
    await item.getByText('(removed)').waitFor();
    expect(await item.getByRole('button').count()).toBe(0);
    expect(await statusOf()).toBe('removed');
    await expectAccessible(own, 'definitions page after removing an endorsement');

    const audit = (await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=200', headers: keyed() })).json();
    const decisions = (audit.items as { targetId: string; action: string; actor: string }[])
      .filter((i) => i.targetId === id)
      .map((i) => [i.action, i.actor.split(':')[0]])
      .sort();
    expect(decisions).toEqual([
      ['endorsement.accepted', 'user'],
      ['endorsement.rejected', 'user'],
      ['endorsement.removed', 'user'],
    ]);
    await own.close();
  });
});
