import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logOptions } from '../src/app.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const EMAIL = 'Erin.Erasure+Canary@Example.TEST';
const OLD_NAME = 'Erin Oldsurname';
const NAME = 'Erin Quartermaine';
const OTHER_EMAIL = 'bystander@example.test';

/** Computed here independently of the service: sha256(normalised email + the issuer's salt). */
function recipientHash(issuer: TestIssuer): string {
  return createHash('sha256')
    .update(EMAIL.toLowerCase() + issuer.salt)
    .digest('hex');
}

interface AuditItem {
  action: string;
  targetType: string;
  details: Record<string, unknown>;
}

describe.each(dialects)('GDPR export and erase on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  const logLines: string[] = [];
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const ids: string[] = [];
  let bystanderId: string;
  let atOtherIssuerId: string;
  let profileUrl: string;

  async function post(key: string, url: string, payload?: unknown) {
    return t.app.inject({
      method: 'POST',
      url,
      headers: auth(key),
      ...(payload ? { payload: payload as object } : {}),
    });
  }

  async function issue(key: string, definitionId: string, completionKey: string, email: string, name?: string) {
    const res = await post(key, '/api/v1/credentials', {
      definitionId,
      recipientEmail: email,
      completionKey,
      ...(name ? { recipientName: name } : {}),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId as string;
  }

  async function definition(key: string, name: string): Promise<string> {
    const res = await post(key, '/api/v1/definitions', { name, description: 'd' });
    return res.json().id;
  }

  /** Every row of every table, as text: what a dump of the database would hold. */
  async function dumpRows(): Promise<string> {
    const tables = await t.database.db.introspection.getTables();
    const parts: string[] = [];
    for (const table of tables.filter((tb) => t.testDb.schema === null || tb.schema === t.testDb.schema)) {
      const rows = await t.database.db
        .selectFrom(table.name as 'credentials')
        .selectAll()
        .execute();
      parts.push(JSON.stringify(rows));
    }
    return parts.join('\n').toLowerCase();
  }

  /** The SQLite database and WAL files, byte for byte (nothing on PostgreSQL). */
  function fileBytes(): string {
    if (!t.testDb.file) return '';
    let text = '';
    for (const suffix of ['', '-wal']) {
      try {
        text += readFileSync(`${t.testDb.file}${suffix}`).toString('latin1');
      } catch {
        // A WAL that was checkpointed away holds nothing.
      }
    }
    return text.toLowerCase();
  }

  function expectEmailAbsent(text: string) {
    expect(text).not.toContain(EMAIL.toLowerCase());
    expect(text).not.toContain('erin.erasure');
  }

  async function auditItems(key: string): Promise<{ body: string; items: AuditItem[] }> {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=200', headers: auth(key) });
    return { body: res.body, items: res.json().items };
  }

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    t = await createTestApp(dialect, {
      clock,
      logger: { ...logOptions('info'), stream },
    });
    a = await t.issuer({ slug: `gdpr-a-${dialect}` });
    b = await t.issuer({ slug: `gdpr-b-${dialect}` });
    const hook = await post(a.key, '/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['credential.revoked'],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const first = await definition(a.key, 'First');
    const second = await definition(a.key, 'Second');
    const third = await definition(a.key, 'Third');
    ids.push(await issue(a.key, first, 'g-1', EMAIL, OLD_NAME));
    clock.advance(1000);
    ids.push(await issue(a.key, second, 'g-2', EMAIL.toLowerCase(), NAME));
    clock.advance(1000);
    ids.push(await issue(a.key, third, 'g-3', EMAIL));
    bystanderId = await issue(a.key, first, 'g-bystander', OTHER_EMAIL, 'Bea Bystander');
    atOtherIssuerId = await issue(b.key, await definition(b.key, 'Elsewhere'), 'g-b', EMAIL, NAME);
    const profile = await post(a.key, '/api/v1/profiles', { recipientEmail: EMAIL });
    expect(profile.statusCode, profile.body).toBe(201);
    profileUrl = profile.json().profileUrl;
    const revoked = await post(a.key, `/api/v1/credentials/${ids[2]}/revoke`, { reason: 'Issued in error' });
    expect(revoked.statusCode).toBe(200);
    clock.advance(60_000);
  });
  afterAll(async () => t.close());

  it('never stores the email before erasure', async () => {
    expectEmailAbsent(fileBytes());
    expectEmailAbsent(await dumpRows());
  });

  it('exports what is held, looked up by the salted hash, and audits the access', async () => {
    const res = await post(a.key, '/api/v1/gdpr/export', { recipientEmail: EMAIL });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      found: true,
      recipientHash: recipientHash(a),
      displayName: NAME,
      exportedAt: '2026-11-21T10:01:02.000Z',
      issuer: expect.objectContaining({ name: expect.any(String) }),
      profiles: 1,
      notificationsSuppressed: null,
      audit: expect.any(Array),
      credentials: [
        expect.objectContaining({
          id: ids[0],
          status: 'valid',
          definitionId: expect.any(String),
          assertionUrl: `https://badges.test/v1/issuers/${a.slug}/assertions/${ids[0]}`,
          issuedOn: '2026-11-21T10:00:00.000Z',
          expiresOn: null,
          revokedAt: null,
          completionKey: 'g-1',
        }),
        expect.objectContaining({ id: ids[1], status: 'valid', completionKey: 'g-2' }),
        expect.objectContaining({ id: ids[2], status: 'revoked', revokedAt: '2026-11-21T10:00:02.000Z' }),
      ],
    });
    expect(res.body.toLowerCase()).not.toContain('erin.erasure');
    const { items } = await auditItems(a.key);
    expect(items[0]).toMatchObject({
      action: 'gdpr.export',
      targetType: 'gdpr_request',
      details: { credentials: 3, profiles: 1, format: 'json' },
    });
  });

  it('keeps issuers apart: the same email has another hash and other data at another issuer', async () => {
    const atA = (await post(a.key, '/api/v1/gdpr/export', { recipientEmail: EMAIL })).json();
    const atB = (await post(b.key, '/api/v1/gdpr/export', { recipientEmail: EMAIL })).json();
    expect(atB.recipientHash).not.toBe(atA.recipientHash);
    expect(atB.credentials.map((c: { id: string }) => c.id)).toEqual([atOtherIssuerId]);
  });

  it('exports nothing for an unknown recipient', async () => {
    const res = await post(a.key, '/api/v1/gdpr/export', { recipientEmail: 'nobody@example.test' });
    expect(res.json()).toMatchObject({ found: false, displayName: null, credentials: [] });
  });

  it('erases in one go: revokes, forgets the name, deletes the profile, audits once and announces', async () => {
    const revokedEvents = () =>
      t.database.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('issuer_id', '=', a.id)
        .where('event', '=', 'credential.revoked')
        .orderBy('created_at')
        .execute();
    const earlierEvents = await revokedEvents();
    const res = await post(a.key, '/api/v1/gdpr/erase', { recipientEmail: EMAIL });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ found: true, revoked: 2, credentialIds: ids });

    for (const id of ids.slice(0, 2)) {
      const detail = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${id}`, headers: auth(a.key) });
      expect(detail.json()).toMatchObject({
        status: 'revoked',
        revokedReason: 'gdpr_erasure',
        revokedAt: '2026-11-21T10:01:02.000Z',
      });
    }
    const earlier = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${ids[2]}`, headers: auth(a.key) });
    expect(earlier.json()).toMatchObject({ revokedReason: 'Issued in error', revokedAt: '2026-11-21T10:00:02.000Z' });

    const { body, items } = await auditItems(a.key);
    const erasures = items.filter((i) => i.action === 'gdpr.erase');
    expect(erasures).toHaveLength(1);
    expect(erasures[0]).toMatchObject({
      targetType: 'gdpr_request',
      details: { credentialsRevoked: 2, credentialIds: ids, revokedCredentialIds: ids.slice(0, 2), profilesDeleted: 1 },
    });
    expect(body).not.toContain(recipientHash(a));
    expect(body.toLowerCase()).not.toContain('erin');
    expect(await t.app.services.audit.verify(a.id)).toEqual([
      { issuerId: a.id, records: expect.any(Number), ok: true },
    ]);

    const deliveries = (await revokedEvents()).slice(earlierEvents.length);
    const announced = deliveries.map((d) => JSON.parse(d.payload).data);
    expect(announced.map((d: { credentialId: string }) => d.credentialId).sort()).toEqual(ids.slice(0, 2).sort());
    expect(announced[0]).toMatchObject({ status: 'revoked', revokedReason: 'gdpr_erasure' });
    expect(JSON.stringify(deliveries).toLowerCase()).not.toMatch(/erin|quartermaine/);
  });

  it('leaves the recipient unnamed in the database, with the salted hash kept', async () => {
    const rows = await t.database.db
      .selectFrom('credentials')
      .select(['id', 'display_name', 'recipient_hash'])
      .where('issuer_id', '=', a.id)
      .where('id', 'in', ids)
      .execute();
    expect(rows.map((r) => r.display_name)).toEqual([null, null, null]);
    expect(new Set(rows.map((r) => r.recipient_hash)).size).toBe(1);
    const dump = await dumpRows();
    expect(dump).not.toContain(OLD_NAME.toLowerCase());
    // Not only the rows: the erased name's bytes are gone from the SQLite file and its WAL too.
    expect(fileBytes()).not.toContain(OLD_NAME.toLowerCase());
    const profiles = await t.database.db.selectFrom('profiles').selectAll().where('issuer_id', '=', a.id).execute();
    expect(profiles).toHaveLength(0);
  });

  it('shows the erasure publicly: assertions answer 410, verification has no name, the profile is gone', async () => {
    const assertionUrl = `/v1/issuers/${a.slug}/assertions/${ids[0]}`;
    const assertion = await t.app.inject({
      method: 'GET',
      url: assertionUrl,
      headers: { accept: 'application/ld+json' },
    });
    expect(assertion.statusCode).toBe(410);
    expect(assertion.json()).toMatchObject({ revoked: true, revocationReason: 'Revoked by the issuer' });
    const verified = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      payload: { id: `https://badges.test${assertionUrl}` },
    });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json()).toMatchObject({
      authentic: true,
      status: 'revoked',
      revokedReason: 'Revoked by the issuer',
    });
    expect(verified.json()).not.toHaveProperty('recipientName');
    const profile = await t.app.inject({ method: 'GET', url: new URL(profileUrl).pathname });
    expect(profile.statusCode).toBe(404);
  });

  it('touches no other recipient and no other issuer', async () => {
    const bystander = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${bystanderId}`,
      headers: auth(a.key),
    });
    expect(bystander.json()).toMatchObject({ status: 'valid', revokedAt: null });
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${atOtherIssuerId}`,
      headers: auth(b.key),
    });
    expect(elsewhere.json()).toMatchObject({ status: 'valid' });
    const kept = await t.database.db
      .selectFrom('credentials')
      .select('display_name')
      .where('id', 'in', [bystanderId, atOtherIssuerId])
      .orderBy('display_name')
      .execute();
    expect(kept.map((r) => r.display_name)).toEqual(['Bea Bystander', NAME]);
  });

  it('repeats idempotently: found, nothing more revoked, nothing more announced', async () => {
    const before = await t.database.db.selectFrom('webhook_deliveries').selectAll().execute();
    clock.advance(60_000);
    const res = await post(a.key, '/api/v1/gdpr/erase', { recipientEmail: EMAIL.toUpperCase() });
    expect(res.json()).toEqual({ found: true, revoked: 0, credentialIds: ids });
    const after = await t.database.db.selectFrom('webhook_deliveries').selectAll().execute();
    expect(after).toHaveLength(before.length);
    const detail = await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${ids[0]}`, headers: auth(a.key) });
    expect(detail.json().revokedAt).toBe('2026-11-21T10:01:02.000Z');
    const { items } = await auditItems(a.key);
    expect(items[0]).toMatchObject({ action: 'gdpr.erase', details: { credentialsRevoked: 0, profilesDeleted: 0 } });
    const exported = (await post(a.key, '/api/v1/gdpr/export', { recipientEmail: EMAIL })).json();
    expect(exported).toMatchObject({ found: true, displayName: null });
    expect(exported.credentials.map((c: { status: string }) => c.status)).toEqual(['revoked', 'revoked', 'revoked']);
  });

  it('answers an unknown recipient with found false', async () => {
    const res = await post(a.key, '/api/v1/gdpr/erase', { recipientEmail: 'nobody@example.test' });
    expect(res.json()).toEqual({ found: false, revoked: 0, credentialIds: [] });
  });

  it('still never stores the email after erasure, nor logs it or the key', async () => {
    expectEmailAbsent(fileBytes());
    expectEmailAbsent(await dumpRows());
    t.app.log.info(
      { recipientEmail: EMAIL, req: { headers: { authorization: `Bearer ${a.key}` } } },
      'redaction probe',
    );
    // An email a client puts in the URL: a query parameter no route reads, a path that names nothing.
    for (const url of [
      `/api/v1/credentials?recipientEmail=${encodeURIComponent(EMAIL)}`,
      `/api/v1/credentials?recipientEmail=${EMAIL}`,
      `/verify/${a.slug}/${EMAIL}`,
    ]) {
      await t.app.inject({ method: 'GET', url, headers: auth(a.key) });
    }
    const logs = logLines.join('\n');
    expect(logs).toContain('redaction probe');
    expect(logs).toContain(`"url":"/verify/${a.slug}/[redacted]"`);
    // Everything else in a URL is logged as it was.
    expect(logs).toContain(`"url":"/api/v1/credentials?recipientEmail=[redacted]"`);
    await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/assertions/${ids[0]}?v=2_0` });
    expect(logLines.join('\n')).toContain(`"url":"/v1/issuers/${a.slug}/assertions/${ids[0]}?v=2_0"`);
    expect(logs.toLowerCase()).not.toContain('erin.erasure');
    expect(logs).not.toContain(a.key);
  });

  it('validates the body', async () => {
    for (const url of ['/api/v1/gdpr/export', '/api/v1/gdpr/erase']) {
      expectErrorBody(await post(a.key, url, {}), 400, 'validation_failed');
      const invalid = await post(a.key, url, { recipientEmail: 'erin.erasure-at-example' });
      expectErrorBody(invalid, 400, 'validation_failed');
      expect(invalid.body).not.toContain('erin.erasure');
      expectErrorBody(await post(a.key, url, { recipientEmail: EMAIL, issuerId: b.id }), 400, 'validation_failed');
    }
  });

  it('requires a key', async () => {
    for (const url of ['/api/v1/gdpr/export', '/api/v1/gdpr/erase']) {
      await expectKeyRequired(t.app, { method: 'POST', url, payload: { recipientEmail: EMAIL } });
    }
  });
});
