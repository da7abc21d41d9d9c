import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneExpired } from '../src/modules/obapi/oauth.adapter.js';
import { CLIENT_SECRET_TTL_S } from '../src/modules/obapi/oauth.provider.js';
import type { ObApiTables } from '../src/modules/obapi/obapi.tables.js';
import { earnerSession, form } from './backpack.support.js';
import { createTestApp, dialects, manualClock, type TestApp } from './helpers.js';

describe.each(dialects)('the authorization server keeps only live state on %s', (dialect) => {
  let t: TestApp;
  const payloads = () => t.app.core.db.withTables<ObApiTables>();
  const row = (model: string, id: string, expiresAt: string | null, accountId: string | null = null) => ({
    model,
    id,
    payload: JSON.stringify({ accountId }),
    account_id: accountId,
    grant_id: null,
    uid: null,
    user_code: null,
    expires_at: expiresAt,
    consumed_at: null,
  });

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('gives an anonymous RFC 7591 registration a secret that expires, and stores the client until then', async () => {
    const registered = await t.app.inject({
      method: 'POST',
      url: '/ims/ob/v3p0/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: {
        client_name: 'Expiring Portfolio',
        redirect_uris: ['https://portfolio.example/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: 'https://purl.imsglobal.org/spec/ob/v3p0/scope/credential.readonly',
        software_id: 'expiring-portfolio',
      },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const client = registered.json();
    expect(client.client_secret_expires_at).toBe(client.client_id_issued_at + CLIENT_SECRET_TTL_S);
    const stored = await payloads()
      .selectFrom('oauth_payloads')
      .select('expires_at')
      .where('model', '=', 'Client')
      .where('id', '=', client.client_id)
      .executeTakeFirstOrThrow();
    expect(stored.expires_at).toBe(new Date(client.client_secret_expires_at * 1000).toISOString());

    const later = manualClock(new Date((client.client_secret_expires_at + 60) * 1000).toISOString());
    await pruneExpired(t.app.core.db, later);
    expect(await (await t.app.services.obapi.provider()).Client.find(client.client_id)).toBeUndefined();
  });

  it('prunes expired rows a batch at a time and keeps live ones', async () => {
    const now = Date.now();
    const past = new Date(now - 60_000).toISOString();
    const future = new Date(now + 3_600_000).toISOString();
    const expired = Array.from({ length: 1205 }, (_, i) => row('AccessToken', `expired-${i}`, past));
    for (let i = 0; i < expired.length; i += 200) {
      await payloads()
        .insertInto('oauth_payloads')
        .values(expired.slice(i, i + 200))
        .execute();
    }
    await payloads()
      .insertInto('oauth_payloads')
      .values([row('AccessToken', 'live', future), row('Client', 'static-client', null)])
      .execute();
    expect(await pruneExpired(t.app.core.db, manualClock(new Date(now).toISOString()))).toBe(1205);
    const left = await payloads()
      .selectFrom('oauth_payloads')
      .select('id')
      .where('id', 'in', ['live', 'static-client', 'expired-0', 'expired-1204'])
      .execute();
    expect(left.map((r) => r.id).sort()).toEqual(['live', 'static-client']);
    expect(t.app.services.jobs.map((job) => job.name)).toEqual(
      expect.arrayContaining(['oauth-prune', 'backpack-prune']),
    );
  });

  it('ends the authorization server’s login sessions of the account when the earner signs out of the backpack', async () => {
    const earner = await earnerSession(t.app, 'sign.out.everywhere@example.test');
    const other = await earnerSession(t.app, 'still.signed.in@example.test');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    await payloads()
      .insertInto('oauth_payloads')
      .values([
        row('Session', 'session-of-earner', future, earner.accountId),
        row('Session', 'session-of-other', future, other.accountId),
      ])
      .execute();
    const out = await t.app.inject({
      method: 'POST',
      url: '/backpack/sign-out',
      headers: { ...form, cookie: earner.cookie },
      payload: earner.form(),
    });
    expect(out.statusCode).toBe(303);
    const sessions = await payloads()
      .selectFrom('oauth_payloads')
      .select('id')
      .where('model', '=', 'Session')
      .execute();
    expect(sessions.map((s) => s.id)).toEqual(['session-of-other']);
  });
});
