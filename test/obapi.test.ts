import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../scripts/reliability/lib/smtp-receiver.js';
import { buildApp } from '../src/app.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { signInLinkFrom } from './backpack.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { verifier } from './vc.support.js';
import { freePort, launchChromium } from './verification.support.js';

const EMAIL = 'Ada.Api+Canary@Example.TEST';
const SCOPE = 'https://purl.imsglobal.org/spec/ob/v3p0/scope';
const ALL = ['credential.readonly', 'credential.upsert', 'profile.readonly', 'profile.update'].map(
  (s) => `${SCOPE}/${s}`,
);
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read as the JSON they are
type Body = any;
const json = async (res: Response): Promise<Body> => res.json();
const fixture = (name: string) => readFileSync(new URL(`./fixtures/vc/${name}`, import.meta.url), 'utf8');
const ajv = new Ajv2019({ strict: false, allErrors: true });
(formats as unknown as typeof formats.default)(ajv);
const validateSchema = ajv.compile(JSON.parse(fixture('ob_v3p0_achievementcredential_schema.json')));

describe.each(dialects)('the Open Badges 3.0 API with an openid-client consumer on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let base: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let callback: string;
  let config: oidc.Configuration;
  let tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
  let used: { redirected: URL; verifierCode: string; state: string };
  let spent: string;
  /** A second replica on the same database: the browser talks to the first, the client to this one. */
  let replica: { app: FastifyInstance; database: Database; base: string };
  const replicaPaths: string[] = [];
  const api = (
    path: string,
    token = tokens.access_token,
    method = 'GET',
    body?: string,
    headers?: Record<string, string>,
  ) =>
    oidc
      .fetchProtectedResource(config, token, new URL(`${base}/ims/ob/v3p0${path}`), method, body, new Headers(headers))
      // A 401 or 403 carries the RFC 6750 challenge, which openid-client raises: its response is what is checked.
      .catch((error: unknown) => {
        if (error instanceof oidc.WWWAuthenticateChallengeError) return error.response;
        throw error;
      });

  beforeAll(async () => {
    smtp = await startSmtpServer(() => 'accept');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, {
      env: {
        PUBLIC_BASE_URL: base,
        SMTP_URL: smtp.url,
        MAIL_FROM: 'badges@accolade.test',
        SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef',
      },
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    const database = createDatabase(t.config.database);
    const second = await buildApp({ config: t.config, database, logger: false });
    second.addHook('onRequest', (request, _reply, done) => {
      replicaPaths.push(request.url.split('?')[0] as string);
      done();
    });
    const secondPort = await freePort();
    await second.listen({ port: secondPort, host: '127.0.0.1' });
    replica = { app: second, database, base: `http://127.0.0.1:${secondPort}` };
    callback = `http://127.0.0.1:${await freePort()}/callback`;
    a = await t.issuer({ name: 'API Academy' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Portable', description: 'Badges that travel' },
    });
    for (const key of ['api:1', 'api:2']) {
      const issued = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(a.key),
        payload: { definitionId: definition.json().id, recipientEmail: EMAIL, completionKey: key },
      });
      expect(issued.statusCode, issued.body).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await replica.app.close();
    await replica.database.close();
    await t.close();
    await smtp.close();
  });

  it('describes the service, registers a client without a token and runs the PKCE flow with consent in Chromium, across two replicas', async () => {
    const sdd = await fetch(`${base}/ims/ob/v3p0/discovery`);
    expect(sdd.status).toBe(200);
    expect(sdd.headers.get('etag')).toMatch(/^"[0-9a-f]+"$/);
    expect(sdd.headers.get('cache-control')).toContain('max-age');
    const document = await json(sdd);
    expect(typeof document.info.termsOfService).toBe('string');
    expect(typeof document.info['x-imssf-privacyPolicyUrl']).toBe('string');
    const scheme = document.components.securitySchemes.OAuth2ACG;
    expect(Object.keys(scheme.flows.authorizationCode.scopes).sort()).toEqual([...ALL].sort());
    const again = await fetch(`${base}/ims/ob/v3p0/discovery`, {
      headers: { 'if-none-match': sdd.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);

    const server = new URL(base);
    const registered = await oidc.dynamicClientRegistration(
      server,
      {
        client_name: 'Portfolio Example',
        client_uri: 'https://portfolio.example',
        redirect_uris: [callback],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: ALL.join(' '),
      },
      undefined,
      { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
    );
    const metadata = registered.serverMetadata();
    expect(metadata.registration_endpoint).toBe(scheme['x-imssf-registrationUrl']);
    expect(metadata.token_endpoint).toBe(scheme.flows.authorizationCode.tokenUrl);
    expect(metadata.authorization_endpoint).toBe(scheme.flows.authorizationCode.authorizationUrl);
    expect(metadata.revocation_endpoint).toBeDefined();
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    const client = registered.clientMetadata();
    expect(client.client_secret).toBeTruthy();
    expect(typeof client.client_id_issued_at).toBe('number');
    // An anonymous registration's secret expires (RFC 7591 §3.2.1; docs/decisions.md, 30 days).
    expect(client.client_secret_expires_at).toBe(Number(client.client_id_issued_at) + 30 * 86_400);
    expect(client.client_name).toBe('Portfolio Example');

    const refused = await fetch(metadata.registration_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://portfolio.example/callback'], client_name: 'Plain HTTP' }),
    });
    expect(refused.status).toBe(400);

    config = new oidc.Configuration(
      metadata,
      client.client_id,
      client,
      oidc.ClientSecretBasic(client.client_secret as string),
    );
    oidc.allowInsecureRequests(config);
    // Every call of the client (token, refresh, revocation, the API) reaches the other replica.
    config[oidc.customFetch] = (url, options) => fetch(url.replace(base, replica.base), options as RequestInit);
    const verifierCode = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callback,
      scope: ALL.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(verifierCode),
      code_challenge_method: 'S256',
      state,
    });

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      let returned = '';
      await page.route(`${callback}**`, async (route) => {
        returned = route.request().url();
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' });
      });
      await page.goto(url.toString());
      await page.getByRole('textbox', { name: 'Email' }).fill(EMAIL);
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      await page.getByText('Check your email').waitFor();
      const link = signInLinkFrom(smtp.messages, EMAIL, base);
      await page.goto(`${base}${link}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Allow Portfolio Example to use your badges?' }).waitFor();
      for (const text of [
        'Permission to read AchievementCredentials for the authenticated entity.',
        'Permission to create or update AchievementCredentials for the authenticated entity.',
        'Permission to read the profile for the authenticated entity.',
        'Permission to update the profile for the authenticated entity.',
      ]) {
        expect(await page.getByText(text).count()).toBe(1);
      }
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${callback}**`);
      const redirected = new URL(returned);
      expect(redirected.searchParams.get('state')).toBe(state);
      expect(redirected.searchParams.get('code')).toBeTruthy();
      tokens = await oidc.authorizationCodeGrant(config, redirected, {
        pkceCodeVerifier: verifierCode,
        expectedState: state,
      });
      expect(tokens.scope?.split(' ').sort()).toEqual([...ALL].sort());
      expect(tokens.refresh_token).toBeTruthy();
      expect(replicaPaths, 'the code made on one replica was redeemed on the other').toContain(
        '/ims/ob/v3p0/oauth/token',
      );
      used = { redirected, verifierCode, state };
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('pages the earner’s signed credentials, each verified with Digital Bazaar vc and valid by the 1EdTech schema', async () => {
    const first = await api('/credentials?limit=1&offset=0');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('2');
    const links = first.headers.get('link') ?? '';
    expect(links).toContain('rel="next"');
    expect(links).toContain('rel="last"');
    expect(links).toContain('rel="first"');
    expect(links).not.toContain('rel="prev"');
    const second = await api('/credentials?limit=1&offset=1');
    expect(second.headers.get('link')).toContain('rel="prev"');
    expect(second.headers.get('link')).not.toContain('rel="next"');
    const check = verifier(t.app, base);
    for (const res of [first, second]) {
      const body = await json(res);
      expect(body.compactJwsString).toEqual([]);
      expect(body.credential).toHaveLength(1);
      const [credential] = body.credential;
      expect(validateSchema(credential), JSON.stringify(validateSchema.errors)).toBe(true);
      const result = await check.verify(credential);
      expect(result.verified, JSON.stringify(result.error)).toBe(true);
    }
    expect(replicaPaths).toContain('/ims/ob/v3p0/credentials');
    const later = await api(`/credentials?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(later.headers.get('x-total-count')).toBe('0');
    const bad = await api('/credentials?limit=0');
    expect(bad.status).toBe(400);
    expect((await json(bad)).imsx_codeMajor).toBe('failure');
  });

  it('upserts JSON and compact JWS credentials (201 then 200, the body as sent) and keeps the profile', async () => {
    const credential = {
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json',
      ],
      id: 'urn:uuid:7b2c1e0a-1111-4c2e-9a8b-000000000001',
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      issuer: { id: 'https://elsewhere.example/issuer', type: ['Profile'], name: 'Elsewhere' },
      validFrom: '2026-01-01T00:00:00Z',
      name: 'Brought along',
      credentialSubject: {
        type: ['AchievementSubject'],
        achievement: {
          id: 'https://elsewhere.example/a',
          type: ['Achievement'],
          name: 'Brought along',
          criteria: { narrative: 'x' },
          description: 'x',
        },
      },
    };
    const text = JSON.stringify(credential);
    const created = await api('/credentials', undefined, 'POST', text, { 'content-type': 'application/json' });
    expect(created.status).toBe(201);
    expect(await json(created)).toEqual(credential);
    const replaced = await api('/credentials', undefined, 'POST', text, { 'content-type': 'application/json' });
    expect(replaced.status).toBe(200);
    expect(await json(replaced)).toEqual(credential);

    const { privateKey } = await generateKeyPair('EdDSA');
    const jws = await new SignJWT({ vc: { ...credential, id: 'urn:uuid:7b2c1e0a-1111-4c2e-9a8b-000000000002' } })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setJti('urn:uuid:7b2c1e0a-1111-4c2e-9a8b-000000000002')
      .sign(privateKey);
    const posted = await api('/credentials', undefined, 'POST', jws, { 'content-type': 'text/plain' });
    expect(posted.status).toBe(201);
    expect(posted.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await posted.text()).toBe(jws);
    const all = await json(await api('/credentials?limit=50'));
    expect(all.compactJwsString).toEqual([jws]);
    expect(all.credential).toContainEqual(credential);
    const notJson = await api('/credentials', undefined, 'POST', '{"type":', { 'content-type': 'application/json' });
    expect(notJson.status).toBe(400);
    expect((await json(notJson)).imsx_codeMajor).toBe('failure');

    const profile = await api('/profile');
    expect(profile.status).toBe(200);
    expect((await json(profile)).type).toContain('Profile');
    const mine = {
      '@context': ['https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json'],
      type: ['Profile'],
      id: 'urn:uuid:7b2c1e0a-2222-4c2e-9a8b-000000000001',
      name: 'Ada A.',
    };
    const put = await api('/profile', undefined, 'PUT', JSON.stringify(mine), { 'content-type': 'application/json' });
    expect(put.status).toBe(200);
    expect(await json(put)).toEqual(mine);
    expect(await json(await api('/profile'))).toEqual(mine);
  });

  it('refuses without a token (401), with an issuer API key (401), and a token lacking the scope (403)', async () => {
    const none = await fetch(`${base}/ims/ob/v3p0/credentials`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect((await json(none)).imsx_codeMinor.imsx_codeMinorField[0].imsx_codeMinorFieldValue).toBe(
      'unauthorizedrequest',
    );
    const key = await fetch(`${base}/ims/ob/v3p0/credentials`, { headers: auth(a.key) });
    expect(key.status).toBe(401);
    const onKeyApi = await fetch(`${base}/api/v1/credentials`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(onKeyApi.status).toBe(401);

    const narrowed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string, {
      scope: `${SCOPE}/profile.readonly`,
    });
    expect(narrowed.refresh_token).not.toBe(tokens.refresh_token);
    const forbidden = await api('/credentials', narrowed.access_token);
    expect(forbidden.status).toBe(403);
    expect((await json(forbidden)).imsx_codeMinor.imsx_codeMinorField[0].imsx_codeMinorFieldValue).toBe('forbidden');
    expect((await api('/profile', narrowed.access_token)).status).toBe(200);
    spent = tokens.refresh_token as string;
    tokens = narrowed;
  });

  it('revokes a token (RFC 7009); a spent refresh token or a reused code is refused, and revokes its grant', async () => {
    expect((await api('/profile')).status).toBe(200);
    await oidc.tokenRevocation(config, tokens.access_token);
    expect((await api('/profile')).status).toBe(401);
    const stale = await oidc.refreshTokenGrant(config, spent).catch((e: unknown) => e);
    expect((stale as { error?: string }).error, 'a rotated refresh token is spent').toBe('invalid_grant');
    const after = await oidc.refreshTokenGrant(config, tokens.refresh_token as string).catch((e: unknown) => e);
    expect((after as { error?: string }).error, 'reusing a spent refresh token revokes its grant').toBe(
      'invalid_grant',
    );
    const reused = await oidc
      .authorizationCodeGrant(config, used.redirected, {
        pkceCodeVerifier: used.verifierCode,
        expectedState: used.state,
      })
      .catch((e: unknown) => e);
    expect((reused as { error?: string }).error).toBe('invalid_grant');
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('issuer_id', '=', 'earners')
      .execute();
    expect(audit.map((r) => r.action)).toEqual(
      expect.arrayContaining([
        'oauth_client.registered',
        'oauth.consent_granted',
        'oauth_token.issued',
        'obapi.credential_upserted',
        'obapi.profile_updated',
        'oauth_token.revoked',
        'oauth_grant.revoked',
      ]),
    );
  });
});
