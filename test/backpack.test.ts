import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { cookiesOf, followLink, form, signInLinkFrom, signInToBackpack } from './backpack.support.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

const EMAIL = 'Grace.Backpack+Canary@Example.TEST';
const STRANGER = 'nobody.backpack@example.test';
const BASE = 'https://badges.test';

describe.each(dialects)('the earner backpack on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-12-01T09:00:00.000Z');

  async function issue(issuer: TestIssuer, name: string, email: string, key: string) {
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name, description: `${name} badge` },
    });
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId: definition.json().id, recipientEmail: email, completionKey: key },
    });
    expect(issued.statusCode, issued.body).toBe(201);
    return issued.json().credentialId as string;
  }

  beforeAll(async () => {
    smtp = await startSmtpServer(() => 'accept');
    t = await createTestApp(dialect, { clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test' } });
    a = await t.issuer({ name: 'Analytical Academy' });
    b = await t.issuer({ name: 'Babbage Institute' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('shows the sign-in form, and answers alike for an address with badges and one without', async () => {
    await issue(a, 'Engines', EMAIL, 'bp:a1');
    const form0 = await t.app.inject({ method: 'GET', url: '/backpack' });
    expect(form0.statusCode).toBe(200);
    expect(form0.body).toContain('<label for="email">Email</label>');
    expect(form0.body).toContain('Send me a sign-in link');
    const ask = (email: string) =>
      t.app.inject({
        method: 'POST',
        url: '/backpack/sign-in',
        headers: form,
        payload: `email=${encodeURIComponent(email)}`,
      });
    const known = await ask(EMAIL);
    const unknown = await ask(STRANGER);
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    const strip = (body: string) => body.replace(/nonce(-|=")[^"';]+/g, '');
    expect(strip(known.body)).toBe(strip(unknown.body));
    expect(known.body).toContain('Check your email');
    expect(smtp.messages.filter((m) => m.to.includes(STRANGER))).toHaveLength(1);
    const bad = await ask('not an address');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Enter an email address');
  });

  it('signs in once by the emailed link and lists every badge from every issuer with its status', async () => {
    const atB = await issue(b, 'Differences', EMAIL.toLowerCase(), 'bp:b1');
    await issue(b, 'Someone else', STRANGER, 'bp:b2');
    const { cookie, page, path } = await signInToBackpack(t.app, smtp.messages, EMAIL, BASE);
    expect(cookie).toMatch(/^accolade_backpack=/);
    expect(page.body).toContain('Engines');
    expect(page.body).toContain('Differences');
    expect(page.body).toContain('Analytical Academy');
    expect(page.body).toContain('Babbage Institute');
    expect(page.body).not.toContain('Someone else');
    expect(page.body).toContain(`/verify/${b.slug}/${atB}/share/linkedin`);
    expect(page.body).toContain(`/v1/issuers/${b.slug}/credentials/${atB}/baked.svg`);
    expect(page.body).toContain('Sign out');
    const again = await followLink(t.app, path);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('This link no longer works');

    await t.app.inject({ method: 'POST', url: `/api/v1/credentials/${atB}/revoke`, headers: auth(b.key), payload: {} });
    const later = await issue(a, 'Later badge', EMAIL, 'bp:a2');
    const now = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie } });
    expect(now.body).toContain('Later badge');
    expect(now.body).toMatch(/Differences[\s\S]*?Status: revoked/);
    const links = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'details'])
      .where('issuer_id', '=', 'earners')
      .execute();
    expect(links.map((r) => r.action)).toEqual(
      expect.arrayContaining(['earner.account_created', 'earner.signed_in', 'earner.credential_linked']),
    );
    expect(links.find((r) => r.action === 'earner.credential_linked')?.details).toContain(later);
  });

  it('keeps no raw address and makes no account or link for an address that never signed in', async () => {
    const rows = await t.database.db
      .selectFrom('earner_accounts' as never)
      .selectAll()
      .execute();
    expect(rows).toHaveLength(1);
    if (t.testDb.file) {
      for (const suffix of ['', '-wal']) {
        let bytes = '';
        try {
          bytes = readFileSync(`${t.testDb.file}${suffix}`, 'latin1').toLowerCase();
        } catch {}
        expect(bytes.includes(EMAIL.toLowerCase())).toBe(false);
        expect(bytes.includes(STRANGER)).toBe(false);
      }
    }
  });

  it('refuses an expired link, a link whose sealed address was altered, and changes without the CSRF token', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/backpack/sign-in',
      headers: form,
      payload: `email=${encodeURIComponent(EMAIL)}`,
    });
    const path = signInLinkFrom(smtp.messages, EMAIL, BASE);
    const tampered = path.replace(/\.([A-Za-z0-9_-])/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
    expect((await followLink(t.app, tampered)).statusCode).toBe(400);
    clock.advance(16 * 60_000);
    expect((await followLink(t.app, path)).statusCode).toBe(400);
    const { cookie } = await signInToBackpack(t.app, smtp.messages, EMAIL, BASE);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/backpack/sign-out',
      headers: { ...form, cookie },
      payload: 'csrf=wrong',
    });
    expect(refused.statusCode).toBe(403);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/backpack/sign-out',
      headers: form,
      payload: 'csrf=x',
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses a sign-in post that did not start on the link’s page in this browser (login CSRF), without spending the link', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/backpack/sign-in',
      headers: form,
      payload: `email=${encodeURIComponent(EMAIL)}`,
    });
    const path = signInLinkFrom(smtp.messages, EMAIL, BASE);
    // An attacker's page posts the attacker's own link from the victim's browser: no pre-session cookie.
    const forged = await t.app.inject({ method: 'POST', url: path, headers: form, payload: 'binding=anything' });
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['set-cookie'] ?? '').not.toContain('accolade_backpack=');
    expect(forged.body).toContain('Open the link from your email again');
    // The attacker's own cookie and binding, replayed from a page of another origin.
    const page = await t.app.inject({ method: 'GET', url: path });
    const binding = /name="binding" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const cookie = cookiesOf(page.headers['set-cookie']);
    const crossOrigin = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { ...form, cookie, origin: 'https://attacker.example' },
      payload: `binding=${binding}`,
    });
    expect(crossOrigin.statusCode).toBe(403);
    const otherCookie = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { ...form, cookie: 'accolade_backpack_sign_in=not-the-one' },
      payload: `binding=${binding}`,
    });
    expect(otherCookie.statusCode).toBe(403);
    const genuine = await followLink(t.app, path, { origin: BASE });
    expect(genuine.statusCode, genuine.body).toBe(303);
  });

  it('offers a badge to a wallet, only the earner’s own', async () => {
    const { cookie, csrf, page } = await signInToBackpack(t.app, smtp.messages, EMAIL, BASE);
    const id = /\/backpack\/badges\/([^/]+)\/wallet/.exec(page.body)?.[1] as string;
    const offer = await t.app.inject({
      method: 'POST',
      url: `/backpack/badges/${id}/wallet`,
      headers: { ...form, cookie },
      payload: `csrf=${csrf}`,
    });
    expect(offer.statusCode, offer.body).toBe(200);
    expect(offer.body).toContain('openid-credential-offer://');
    const stranger = await issue(b, 'Not yours', STRANGER, 'bp:b3');
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/backpack/badges/${stranger}/wallet`,
      headers: { ...form, cookie },
      payload: `csrf=${csrf}`,
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('signs out, and deletes the account with its links while the issuers keep their records', async () => {
    const first = await signInToBackpack(t.app, smtp.messages, EMAIL, BASE);
    const out = await t.app.inject({
      method: 'POST',
      url: '/backpack/sign-out',
      headers: { ...form, cookie: first.cookie },
      payload: `csrf=${first.csrf}`,
    });
    expect(out.statusCode).toBe(303);
    const after = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: first.cookie } });
    expect(after.body).toContain('Send me a sign-in link');

    const { cookie, csrf } = await signInToBackpack(t.app, smtp.messages, EMAIL, BASE);
    const confirm = await t.app.inject({ method: 'GET', url: '/backpack/account/delete', headers: { cookie } });
    expect(confirm.body).toContain('Delete my account');
    const deleted = await t.app.inject({
      method: 'POST',
      url: '/backpack/account/delete',
      headers: { ...form, cookie },
      payload: `csrf=${csrf}`,
    });
    expect(deleted.statusCode).toBe(200);
    for (const table of ['earner_accounts', 'earner_credentials', 'earner_sessions']) {
      expect(
        await t.database.db
          .selectFrom(table as never)
          .selectAll()
          .execute(),
        table,
      ).toEqual([]);
    }
    // What is left is the link the address without an account was sent.
    expect(
      await t.database.db
        .selectFrom('earner_sign_in_links' as never)
        .selectAll()
        .execute(),
    ).toHaveLength(1);
    const credentials = await t.app.inject({ method: 'GET', url: '/api/v1/credentials', headers: auth(a.key) });
    expect(credentials.json().total).toBe(2);
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('issuer_id', '=', 'earners')
      .where('action', '=', 'earner.account_deleted')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]?.actor).toMatch(/^earner:/);
  });
});
