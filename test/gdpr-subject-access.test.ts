import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import {
  auth,
  createTestApp,
  dialects,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

/**
 * Issue 46, Major 4: a subject access request answered with a file to send the person: every
 * credential with badge, issuer, dates, status, name as stored, verification links, the emails about
 * it and the audit records about them, as JSON and as a readable, printable HTML document.
 */

const EMAIL = 'Siobhan.Subject@Example.TEST';
const NAME = 'Siobhán Ó Súilleabháin';
const NEW_NAME = 'Siobhán <Ó> Súilleabháin & Co';
const OTHER_EMAIL = 'other.person@example.test';

describe.each(dialects)('subject access export on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let first: string;
  let replacement: string;
  let revoked: string;
  let bystander: string;

  async function post(key: string, url: string, payload: object) {
    return t.app.inject({ method: 'POST', url, headers: auth(key), payload });
  }
  async function definition(key: string, name: string): Promise<string> {
    const res = await post(key, '/api/v1/definitions', { name, description: `${name}, assessed.` });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }
  async function issue(key: string, definitionId: string, completionKey: string, email: string, name: string) {
    const res = await post(key, '/api/v1/credentials', {
      definitionId,
      recipientEmail: email,
      recipientName: name,
      completionKey,
      notify: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId as string;
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(dialect, {
      clock,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@accolade.test', NOTIFY_RATE_PER_MINUTE: '60000' },
    });
    a = await t.issuer({ slug: `sar-a-${dialect}`, name: 'Riverside College' });
    b = await t.issuer({ slug: `sar-b-${dialect}`, name: 'Elsewhere Institute' });
    const safety = await definition(a.key, 'Site Safety');
    const lifting = await definition(a.key, 'Safe Lifting');
    first = await issue(a.key, safety, 'sar-1', EMAIL, NAME);
    clock.advance(1000);
    const reissued = await post(a.key, `/api/v1/credentials/${first}/reissue`, {});
    expect(reissued.statusCode, reissued.body).toBe(201);
    replacement = reissued.json().credentialId;
    clock.advance(1000);
    revoked = await issue(a.key, lifting, 'sar-2', EMAIL.toLowerCase(), NEW_NAME);
    const revoke = await post(a.key, `/api/v1/credentials/${revoked}/revoke`, { reason: 'Issued in error' });
    expect(revoke.statusCode, revoke.body).toBe(200);
    bystander = await issue(a.key, safety, 'sar-bystander', OTHER_EMAIL, 'Bea Bystander');
    await issue(b.key, await definition(b.key, 'Elsewhere'), 'sar-b', EMAIL, NAME);
    await t.app.services.notifications.drain();
    clock.advance(60_000);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('gives every credential with its badge, dates, status, name as stored, links, emails and audit records', async () => {
    const res = await post(a.key, '/api/v1/gdpr/export', { recipientEmail: EMAIL });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      found: true,
      displayName: NEW_NAME,
      exportedAt: '2026-11-21T10:01:02.000Z',
      issuer: { name: 'Riverside College', url: expect.stringMatching(/^https?:\/\//), email: expect.any(String) },
      profiles: 0,
      notificationsSuppressed: null,
    });
    const base = `https://badges.test/v1/issuers/${a.slug}`;
    expect(body.credentials.map((c: { id: string }) => c.id)).toEqual([first, replacement, revoked]);
    const [original, reissue, withdrawn] = body.credentials;
    expect(original).toMatchObject({
      badge: { name: 'Site Safety', description: 'Site Safety, assessed.' },
      recipientName: NAME,
      // A reissue revokes what it replaces.
      status: 'revoked',
      revokedReason: expect.any(String),
      issuedOn: '2026-11-21T10:00:00.000Z',
      expiresOn: null,
      assertionUrl: `${base}/assertions/${first}`,
      verifyUrl: expect.stringContaining(first),
      openBadgeCredentialUrl: expect.stringContaining(first),
      reissuedFrom: null,
      replacedBy: replacement,
      source: 'api',
      notifications: [expect.objectContaining({ kind: 'award', status: 'sent', reason: null })],
    });
    expect(reissue).toMatchObject({ recipientName: NAME, reissuedFrom: first, replacedBy: null });
    expect(withdrawn).toMatchObject({
      badge: { name: 'Safe Lifting' },
      recipientName: NEW_NAME,
      status: 'revoked',
      revokedAt: '2026-11-21T10:00:02.000Z',
      revokedReason: 'Issued in error',
    });
    const actions = body.audit.map((e: { action: string; targetId: string }) => [e.action, e.targetId]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['credential.issued', first],
        ['credential.revoked', revoked],
      ]),
    );
    expect(body.audit.every((e: { targetId: string }) => [first, replacement, revoked].includes(e.targetId))).toBe(
      true,
    );
    // Who acted, by kind: never the key's label or a staff member's address.
    const actors = new Set(body.audit.map((e: { actor: string }) => e.actor));
    expect(actors).toContain("The issuer's systems (API)");
    expect(
      [...actors].filter((actor) => !["The issuer's systems (API)", 'The service itself'].includes(actor as string)),
    ).toEqual([]);
    // Nothing of the other person, nothing of the other issuer, and never the address itself.
    expect(res.body).not.toContain(bystander);
    expect(res.body).not.toContain('Bea Bystander');
    expect(res.body).not.toContain('Elsewhere');
    expect(res.body.toLowerCase()).not.toContain('siobhan.subject');
  });

  it('gives the same as a readable, printable HTML document, an attachment, escaped, and audits each access', async () => {
    const htmlExports = async () => {
      const audit = await t.app.inject({
        method: 'GET',
        url: '/api/v1/audit?action=gdpr.export&limit=100',
        headers: auth(a.key),
      });
      return audit.json().items.filter((r: { details: { format: string } }) => r.details.format === 'html').length;
    };
    const before = await htmlExports();
    const res = await post(a.key, '/api/v1/gdpr/export/document', { recipientEmail: EMAIL });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="subject-access-2026-11-21.html"');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const doc = res.body;
    expect(doc).toMatch(/^<!doctype html>/);
    expect(doc).toContain('<title>Your data held by Riverside College</title>');
    for (const text of ['Site Safety', 'Safe Lifting', NAME, 'Issued in error', '21 November 2026, 10:00 UTC']) {
      expect(doc).toContain(text);
    }
    expect(doc).toContain('Siobhán &lt;Ó&gt; Súilleabháin &amp; Co');
    expect(doc).not.toContain('<Ó>');
    expect(doc).toContain(`Replaced by credential</th><td>${replacement}`);
    expect(doc).toMatch(new RegExp(`<a href="[^"]*${first}[^"]*">`));
    expect(doc).toContain('Award email</td><td>Sent');
    expect(doc).toContain('credential.revoked');
    expect(doc).not.toContain('<script');
    expect(doc).not.toContain('Bea Bystander');
    expect(doc.toLowerCase()).not.toContain('siobhan.subject');

    expect(await htmlExports()).toBe(before + 1);
  });

  it('says plainly when nothing is held, and keeps issuers apart', async () => {
    const none = await post(a.key, '/api/v1/gdpr/export/document', { recipientEmail: 'nobody@example.test' });
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('No credentials are held for you.');
    const atB = (await post(b.key, '/api/v1/gdpr/export', { recipientEmail: EMAIL })).json();
    expect(atB.credentials.map((c: { badge: { name: string } }) => c.badge.name)).toEqual(['Elsewhere']);
    expect(JSON.stringify(atB)).not.toContain(first);
  });

  it('shows an unsubscribe as the recipient asked for no more emails', async () => {
    // The earner's own one-click unsubscribe, from the award email they received.
    const mail = smtp.messages.find((m) => m.to.includes(EMAIL.toLowerCase()));
    const link = /<https:\/\/badges\.test(\/notifications\/unsubscribe\/[\w-]+)>/.exec(
      mail?.headers['list-unsubscribe'] ?? '',
    )?.[1];
    expect(link).toBeDefined();
    const oneClick = await t.app.inject({
      method: 'POST',
      url: link ?? '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    const body = (await post(a.key, '/api/v1/gdpr/export', { recipientEmail: EMAIL })).json();
    expect(body.notificationsSuppressed).toEqual({ reason: 'unsubscribed', since: '2026-11-21T10:01:02.000Z' });
    const doc = (await post(a.key, '/api/v1/gdpr/export/document', { recipientEmail: EMAIL })).body;
    expect(doc).toContain('You asked for no more emails from this issuer');
  });

  it('refuses a bad address with an Error body, and needs an owner key', async () => {
    const bad = await post(a.key, '/api/v1/gdpr/export/document', { recipientEmail: 'not an email' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    const missing = await post(a.key, '/api/v1/gdpr/export/document', {});
    expect(missing.statusCode).toBe(400);
    await expectKeyRequired(t.app, {
      method: 'POST',
      url: '/api/v1/gdpr/export/document',
      payload: { recipientEmail: EMAIL },
    });
  });
});
