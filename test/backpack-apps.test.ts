import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { Ed25519VerificationKey2020 } from '@digitalbazaar/ed25519-verification-key-2020';
import { issue } from '@digitalbazaar/vc';
import ed25519Context from 'ed25519-signature-2020-context';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashRecipientEmail } from '../src/core/hashing.js';
import { documentLoader } from '../src/modules/vc/contexts.js';
import { allowOverHttp, earnerSession, form } from './backpack.support.js';
import { createTestApp, dialects, type TestApp } from './helpers.js';
import { freePort } from './verification.support.js';

const SCOPE = 'https://purl.imsglobal.org/spec/ob/v3p0/scope';
const READ = `${SCOPE}/credential.readonly`;
const PROFILE = `${SCOPE}/profile.readonly`;
const UPSERT = `${SCOPE}/credential.upsert`;
const EMAIL = 'Connie.Apps@Example.TEST';

const loader = documentLoader(async (url) =>
  url === ed25519Context.CONTEXT_URL ? ed25519Context.contexts.get(url) : undefined,
);

/** An OB 3.0 credential (VC 1.1 shape) to `email`, signed Ed25519Signature2020 by a did:key issuer. */
async function signedCredential(email: string, id: string) {
  const key = await Ed25519VerificationKey2020.generate();
  const did = `did:key:${key.fingerprint()}`;
  key.controller = did;
  key.id = `${did}#${key.fingerprint()}`;
  const credential = {
    '@context': [
      'https://www.w3.org/2018/credentials/v1',
      'https://purl.imsglobal.org/spec/ob/v3p0/context.json',
      ed25519Context.CONTEXT_URL,
    ],
    id,
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: { id: did, type: 'Profile', name: 'Elsewhere Guild' },
    issuanceDate: '2026-11-01T00:00:00Z',
    name: 'Guild Craft',
    credentialSubject: {
      type: 'AchievementSubject',
      identifier: [
        {
          type: 'IdentityObject',
          identityType: 'emailAddress',
          hashed: true,
          salt: 'app-salt',
          identityHash: `sha256$${hashRecipientEmail(email, 'app-salt')}`,
        },
      ],
      achievement: {
        id: 'urn:uuid:0b6c2f4e-3d2a-4e7b-8f10-5c9d8e7a6b54',
        type: 'Achievement',
        name: 'Guild Craft',
        description: 'Sent by an app',
        criteria: { narrative: 'Made a thing' },
      },
    },
  };
  return (await issue({ credential, suite: new Ed25519Signature2020({ key }), documentLoader: loader })) as Record<
    string,
    unknown
  >;
}

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
    const earner = await earnerSession(t.app, EMAIL);
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

  it('shows what apps upserted, marked with the app, not verified until checked, then checked as an import is', async () => {
    const earner = await earnerSession(t.app, EMAIL);
    const other = await earnerSession(t.app, 'someone.else@example.test');
    const sender = await connect('Credential Courier', earner.cookie, `${READ} ${UPSERT}`);
    const genuine = await signedCredential(EMAIL, 'urn:uuid:7d1c9a52-4b1e-4f3a-9a0e-1f2b3c4d5e60');
    // Changed after signing: its proof no longer holds.
    const forged: Record<string, unknown> = {
      ...(await signedCredential(EMAIL, 'urn:uuid:7d1c9a52-4b1e-4f3a-9a0e-1f2b3c4d5e61')),
      issuanceDate: '2020-01-01T00:00:00Z',
    };
    const upsert = (credential: Record<string, unknown>) =>
      oidc.fetchProtectedResource(
        sender.config,
        sender.tokens.access_token,
        new URL(`${base}/ims/ob/v3p0/credentials`),
        'POST',
        JSON.stringify(credential),
        new Headers({ 'content-type': 'application/json' }),
      );
    expect((await upsert(genuine)).status).toBe(201);
    expect((await upsert(forged)).status).toBe(201);

    const before = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: earner.cookie } });
    expect(before.body).toContain('<h2>Sent by apps</h2>');
    expect(before.body.match(/Sent by Credential Courier on /g)).toHaveLength(2);
    expect(before.body.match(/Not checked yet\./g)).toHaveLength(2);
    expect(before.body).not.toContain('Status: verified');
    const strangerPage = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: other.cookie } });
    expect(strangerPage.body).not.toContain('Sent by apps');

    const check = (session: { cookie: string; form: (f?: Record<string, string>) => string }, key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/backpack/sent/check',
        headers: { ...form, cookie: session.cookie },
        payload: session.form({ key }),
      });
    expect((await check(other, genuine.id as string)).statusCode).toBe(404);
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: '/backpack/sent/check',
      headers: { ...form, cookie: earner.cookie },
      payload: new URLSearchParams({ csrf: 'wrong', key: genuine.id as string }).toString(),
    });
    expect(noCsrf.statusCode).toBe(403);
    expect((await check(earner, genuine.id as string)).statusCode).toBe(303);
    expect((await check(earner, forged.id as string)).statusCode).toBe(303);

    const after = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: earner.cookie } });
    const cards = after.body.split('<article').filter((card) => card.includes('Sent by Credential Courier'));
    expect(cards).toHaveLength(2);
    expect(cards.filter((card) => card.includes('Status: verified'))).toHaveLength(1);
    const unverified = cards.filter((card) => card.includes('Status: not verified'));
    expect(unverified).toHaveLength(1);
    expect(unverified[0]).toContain('Check again');

    // Sent again, a credential is checked again before it is shown verified.
    expect((await upsert(genuine)).status).toBe(200);
    const resent = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: earner.cookie } });
    expect(resent.body).not.toContain('Status: verified');

    const audit = await t.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('issuer_id', '=', 'earners')
      .where('action', '=', 'obapi.credential_checked')
      .execute();
    expect(audit.map((row) => JSON.parse(String(row.details)).status).sort()).toEqual(['unverified', 'verified']);
  }, 60_000);
});
