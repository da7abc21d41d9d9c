import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowOverHttp, earnerSession, form } from './backpack.support.js';
import { createTestApp, dialects, type TestApp } from './helpers.js';
import { freePort } from './verification.support.js';

const SCOPE = 'https://purl.imsglobal.org/spec/ob/v3p0/scope';
const READ = `${SCOPE}/credential.readonly`;
const PROFILE = `${SCOPE}/profile.readonly`;

describe.each(dialects)('connected apps in the backpack on %s', (dialect) => {
  let t: TestApp;
  let base: string;
  const callback = 'http://127.0.0.1:9/callback';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, {
      env: { PUBLIC_BASE_URL: base, SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' },
    });
    await t.app.listen({ port, host: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  /** Registers a client (RFC 7591) and runs the code flow with PKCE for the earner: its configuration and tokens. */
  async function connect(name: string, cookie: string, scope: string) {
    const registered = await oidc.dynamicClientRegistration(
      new URL(base),
      {
        client_name: name,
        client_uri: 'https://portfolio.example',
        redirect_uris: [callback],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope,
      },
      undefined,
      { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
    );
    const client = registered.clientMetadata();
    const config = new oidc.Configuration(
      registered.serverMetadata(),
      client.client_id,
      client,
      oidc.ClientSecretBasic(client.client_secret as string),
    );
    oidc.allowInsecureRequests(config);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callback,
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const back = await allowOverHttp(url, cookie, callback);
    const tokens = await oidc.authorizationCodeGrant(config, back, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    return { config, tokens, clientId: client.client_id };
  }

  const credentials = (token: string) =>
    fetch(`${base}/ims/ob/v3p0/credentials`, { headers: { authorization: `Bearer ${token}` } });

  it('lists the apps the earner allowed, and "Revoke access" ends one app’s tokens (401) and leaves the other', async () => {
    const earner = await earnerSession(t.app, 'Connie.Apps@Example.TEST');
    const other = await earnerSession(t.app, 'someone.else@example.test');
    const portfolio = await connect('Portfolio Example', earner.cookie, `${READ} ${PROFILE}`);
    const board = await connect('Job Board', earner.cookie, READ);
    const strangers = await connect('Stranger App', other.cookie, READ);
    expect((await credentials(portfolio.tokens.access_token)).status).toBe(200);

    const page = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: earner.cookie } });
    expect(page.body).toContain('<h2>Connected apps</h2>');
    expect(page.body).toContain('<h3>Portfolio Example</h3>');
    expect(page.body).toContain('<h3>Job Board</h3>');
    expect(page.body).not.toContain('Stranger App');
    expect(page.body).toContain('<code>credential.readonly</code>');
    expect(page.body).toContain('<code>profile.readonly</code>');
    expect(page.body).toContain(`action="/backpack/apps/${portfolio.clientId}/revoke"`);

    // Without the session's CSRF token nothing is revoked.
    const forged = await t.app.inject({
      method: 'POST',
      url: `/backpack/apps/${portfolio.clientId}/revoke`,
      headers: { ...form, cookie: earner.cookie },
      payload: new URLSearchParams({ csrf: 'not-the-token' }).toString(),
    });
    expect(forged.statusCode).toBe(403);
    expect((await credentials(portfolio.tokens.access_token)).status).toBe(200);

    // Another earner's app is not this earner's to revoke.
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/backpack/apps/${strangers.clientId}/revoke`,
      headers: { ...form, cookie: earner.cookie },
      payload: earner.form(),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toBe('not_found');

    const revoked = await t.app.inject({
      method: 'POST',
      url: `/backpack/apps/${portfolio.clientId}/revoke`,
      headers: { ...form, cookie: earner.cookie },
      payload: earner.form(),
    });
    expect(revoked.statusCode, revoked.body).toBe(303);
    expect(revoked.headers.location).toBe('/backpack');

    expect((await credentials(portfolio.tokens.access_token)).status).toBe(401);
    const refreshed = await oidc
      .refreshTokenGrant(portfolio.config, portfolio.tokens.refresh_token as string)
      .catch((e: unknown) => e);
    expect((refreshed as { error?: string }).error).toBe('invalid_grant');
    expect((await credentials(board.tokens.access_token)).status).toBe(200);
    expect((await credentials(strangers.tokens.access_token)).status).toBe(200);

    const after = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: earner.cookie } });
    expect(after.body).not.toContain('Portfolio Example');
    expect(after.body).toContain('<h3>Job Board</h3>');

    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'target_id'])
      .where('issuer_id', '=', 'earners')
      .where('action', '=', 'oauth_client.access_revoked')
      .execute();
    expect(audit).toEqual([
      { action: 'oauth_client.access_revoked', actor: `earner:${earner.accountId}`, target_id: portfolio.clientId },
    ]);
  }, 60_000);
});
