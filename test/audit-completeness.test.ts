import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fromJwk as multikeyFromJwk } from '@digitalbazaar/ed25519-multikey';
import type { InjectOptions } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EarnerSignInLinksTable } from '../src/modules/backpack/backpack.tables.js';
import { cookiesOf, earnerSession, form as formHeaders } from './backpack.support.js';
import { axcelerateMergedRows } from './connectors.fixtures.js';
import { type ConsoleUser, consoleUser, PASSWORD } from './console.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { pngHeader } from './images.support.js';
import { didAuth, didKeyWallet } from './lcw.support.js';
import {
  authorizeThrough,
  formField,
  injectPost,
  launchThrough,
  type Platform,
  placeThrough,
  ROLE,
  registerThrough,
  startPlatform,
} from './lti-platform.support.js';
import { CLIENT_ID, CLIENT_SECRET, startProvider } from './sso.support.js';
import { freePort } from './verification.support.js';

/**
 * The audit invariant (design.md, "Added 2026-11-27"): every state-changing operation writes an
 * audit record naming its actor. This walks every non-GET operation of the live /openapi.json,
 * so an operation added later is walked too: each needs a request builder below or an exemption
 * argued in docs/audit.md, or the walk fails.
 */

/** Non-GET operations that change nothing the audit log is for; docs/audit.md argues each. */
const EXEMPT = new Set([
  'searchCredentials',
  'previewCertificate',
  'getPathwayProgress',
  'verifyCredential',
  'verifyCredentialsBulk',
  'verifyCredentialPremium',
  'getCredentialNonce',
  'requestBackpackSignInLink',
  'ltiLoginPost',
  'completeSetup',
]);

/** One call to make, with the actor its record must name and the issuer whose log holds it. */
interface Call {
  request: InjectOptions;
  actor: string;
  /** Default: the walking issuer. */
  issuerId?: string;
}

interface Walk {
  t: TestApp;
  a: TestIssuer;
  /** The audit actor of `a.key`. */
  keyActor: string;
  owner: ConsoleUser;
  definitionId: string;
  /** A fresh credential of `a`, issued through the API. */
  credential(): Promise<string>;
  keyed(method: InjectOptions['method'], url: string, payload?: object): InjectOptions;
  session(user: ConsoleUser, method: InjectOptions['method'], url: string, payload?: object): InjectOptions;
}

let serial = 0;
const unique = (prefix: string) => `${prefix}-${++serial}`;

async function created(w: Walk, request: InjectOptions): Promise<Record<string, unknown>> {
  const res = await w.t.app.inject(request);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

/** An endorsement another issuer (made here) gives the walking issuer's definition: pending, to decide. */
async function receivedEndorsement(w: Walk): Promise<string> {
  const endorser = await w.t.issuer({ slug: unique(`endorser-${w.a.slug}`) });
  const definition = await created(w, w.keyed('GET', `/api/v1/definitions/${w.definitionId}`));
  const given = await created(w, {
    method: 'POST',
    url: '/api/v1/endorsements/given',
    headers: auth(endorser.key),
    payload: {
      badgeClass: `${w.t.config.publicBaseUrl}/v1/issuers/${w.a.slug}/badges/${definition.slug}`,
      claim: 'Worth it.',
    },
  });
  return String(given.id);
}

const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** An offer for a fresh credential, resolved to its pre-authorized code. */
async function preAuthorizedCode(w: Walk): Promise<string> {
  const offer = await created(w, w.keyed('POST', `/api/v1/credentials/${await w.credential()}/offers`, {}));
  const reference = new URL(new URL(offer.offer as string).searchParams.get('credential_offer_uri') ?? '');
  const body = await created(w, { method: 'GET', url: reference.pathname });
  return (body.grants as Record<string, Record<string, string>>)[PRE_AUTH]?.['pre-authorized_code'] as string;
}

/** Sign-in provider settings naming a real OpenID Connect provider on a loopback port (discovered at once). */
async function ssoSettings(w: Walk) {
  const provider = await startProvider(`${w.t.config.publicBaseUrl}/sso/callback`);
  return {
    providerName: 'Walk',
    issuerUrl: provider.issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    allowedDomain: null,
    passwordSignIn: true,
  };
}

/**
 * An earner account and an access token of the Open Badges API for it, made by the authorization
 * server's own token model (test/obapi.test.ts runs the real authorization flow).
 */
async function obApiToken(w: Walk): Promise<{ accountId: string; token: string }> {
  const { accountId } = await earnerSession(w.t.app, `${unique('api-earner')}@example.org`);
  const { obapi } = w.t.app.services;
  const provider = await obapi.provider();
  const scope = ['credential.upsert', 'profile.update']
    .map((s) => `https://purl.imsglobal.org/spec/ob/v3p0/scope/${s}`)
    .join(' ');
  const registered = await w.t.app.inject({
    method: 'POST',
    url: '/ims/ob/v3p0/oauth/register',
    payload: { client_name: 'Walk', redirect_uris: ['https://walk.example/callback'] },
  });
  const client = await provider.Client.find(registered.json().client_id);
  if (!client) throw new Error('the walk client was not registered');
  const token = new provider.AccessToken({
    accountId,
    client,
    gty: 'authorization_code',
    grantId: unique('walk-grant'),
    scope,
    aud: obapi.resource,
  });
  return { accountId, token: await token.save() };
}

/**
 * An earner with a backpack session, an OB 3.0 API client they allowed (a saved Grant, as consent
 * saves one) and an access token of that grant.
 */
async function obApiGrant(w: Walk) {
  const earner = await earnerSession(w.t.app, `${unique('app-earner')}@example.org`);
  const { obapi } = w.t.app.services;
  const provider = await obapi.provider();
  const scope = ['credential.upsert', 'credential.readonly']
    .map((s) => `https://purl.imsglobal.org/spec/ob/v3p0/scope/${s}`)
    .join(' ');
  const registered = await w.t.app.inject({
    method: 'POST',
    url: '/ims/ob/v3p0/oauth/register',
    payload: { client_name: 'Walk app', redirect_uris: ['https://walk.example/callback'] },
  });
  const client = await provider.Client.find(registered.json().client_id);
  if (!client) throw new Error('the walk client was not registered');
  const grant = new provider.Grant({ accountId: earner.accountId, clientId: client.clientId });
  grant.addResourceScope(obapi.resource, scope);
  const grantId = await grant.save();
  const token = new provider.AccessToken({
    accountId: earner.accountId,
    client,
    gty: 'authorization_code',
    grantId,
    scope,
    aud: obapi.resource,
  });
  return { ...earner, clientId: client.clientId, token: await token.save() };
}

/** An earner holding a credential of the walk's issuer and a collection (with the credential in it or not). */
async function collectionWorld(w: Walk, withBadge: boolean) {
  const email = `${unique('collector')}@example.org`;
  const issued = await created(
    w,
    w.keyed('POST', '/api/v1/credentials', {
      definitionId: w.definitionId,
      recipientEmail: email,
      completionKey: unique('collect'),
    }),
  );
  const earner = await earnerSession(w.t.app, email);
  const { collections } = w.t.app.services.backpack;
  const collectionId = await collections.create(earner.accountId, 'Walk collection');
  const credentialId = issued.credentialId as string;
  if (withBadge) await collections.add(earner.accountId, collectionId, credentialId);
  return { earner, collectionId, credentialId };
}

function collectionChange(
  earner: Awaited<ReturnType<typeof earnerSession>>,
  url: string,
  fields: Record<string, string>,
): Call {
  return {
    request: { method: 'POST', url, headers: { ...formHeaders, cookie: earner.cookie }, payload: earner.form(fields) },
    actor: `earner:${earner.accountId}`,
    issuerId: 'earners',
  };
}

/** Another Accolade listening on loopback, whose Open Badges API a backpack send registers with (made once). */
let sendRemote: Promise<TestApp & { base: string }> | null = null;
function sendRemotePlatform() {
  sendRemote ??= (async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const remote = await createTestApp('sqlite', { env: { PUBLIC_BASE_URL: base } });
    await remote.app.listen({ port, host: '127.0.0.1' });
    return { ...remote, base };
  })();
  return sendRemote;
}
afterAll(async () => {
  if (sendRemote) await (await sendRemote).close();
});

/** The request builders, by operationId: each sets up what its call needs and names the actor. */
/** A simulated LMS registered for the walking issuer, with a badge placed on launch (made once per walk). */
const ltiWorlds = new WeakMap<Walk, Promise<{ sim: Platform; actor: string; linkId: string }>>();
const ltiPlatforms: Platform[] = [];
afterAll(async () => {
  for (const sim of ltiPlatforms) await sim.close();
});
const LTI_TEACHER = {
  id: 'walk-teacher',
  name: 'Walk Teacher',
  email: 'teacher@example.org',
  roles: [ROLE.instructor],
};
function ltiWorld(w: Walk) {
  let world = ltiWorlds.get(w);
  if (!world) {
    world = (async () => {
      const sim = await startPlatform({ toolJwks: async () => (await w.t.app.inject({ url: '/lti/jwks' })).json() });
      ltiPlatforms.push(sim);
      sim.users.set(LTI_TEACHER.id, LTI_TEACHER);
      const made = await created(w, w.keyed('POST', '/api/v1/lti/registrations'));
      await registerThrough(
        sim,
        async (url) => {
          const answer = await w.t.app.inject({ url: url.replace(w.t.config.publicBaseUrl, '') });
          return { status: answer.statusCode, body: answer.body };
        },
        String(made.registrationUrl),
      );
      const platforms = (await created(w, w.keyed('GET', '/api/v1/lti/platforms'))).items as {
        id: string;
        platformIssuer: string;
      }[];
      const platform = platforms.find((p) => p.platformIssuer === sim.issuer);
      const post = injectPost(w.t.app);
      const linkId = await placeThrough(sim, post, w.t.config.publicBaseUrl, LTI_TEACHER, w.definitionId, 'launch');
      return { sim, actor: `lti:${platform?.id}`, linkId };
    })();
    ltiWorlds.set(w, world);
  }
  return world;
}

/** The instructor's page of the placed badge: the form token its buttons post. */
async function ltiInstructorToken(w: Walk): Promise<string> {
  const { sim, linkId } = await ltiWorld(w);
  const page = await launchThrough(sim, injectPost(w.t.app), w.t.config.publicBaseUrl, {
    messageType: 'LtiResourceLinkRequest',
    user: LTI_TEACHER,
    custom: { accolade_link: linkId },
  });
  return formField(page.html, 'token');
}

const ltiForm = (url: string, form: Record<string, string>, cookie?: string): InjectOptions => ({
  method: 'POST',
  url,
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
  payload: new URLSearchParams(form).toString(),
});

const manualPlatform = () => ({
  name: 'Manual LMS',
  platformIssuer: 'https://lms.example',
  clientId: unique('client'),
  deploymentId: '1',
  authLoginUrl: 'https://lms.example/auth',
  tokenUrl: 'https://lms.example/token',
  jwksUri: 'https://lms.example/jwks',
});

/** An OB 3.0 credential without a proof: the backpack keeps it, marked not verified, and audits it. */
const unsignedBadge = (id: string) => ({
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  id,
  type: ['VerifiableCredential', 'OpenBadgeCredential'],
  issuer: 'did:web:elsewhere.example',
  credentialSubject: { achievement: { name: 'Unsigned' } },
});

const builders: Record<string, (w: Walk) => Promise<Call>> = {
  signInToBackpack: async (w) => {
    const email = `${unique('earner')}@example.org`;
    const { accountId } = await earnerSession(w.t.app, email);
    const { secrets } = w.t.app.services.backpack;
    const token = unique('earner-link-token-0123456789abcdef0123456789');
    const now = Date.now();
    await w.t.app.core.db
      .withTables<{ earner_sign_in_links: EarnerSignInLinksTable }>()
      .insertInto('earner_sign_in_links')
      .values({
        token_hash: createHash('sha256').update(token).digest('hex'),
        email_hash: secrets.emailHash(email),
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + 600_000).toISOString(),
        used_at: null,
      })
      .execute();
    const url = `/backpack/sign-in/${token}.${secrets.sealEmail(email, token)}`;
    const page = await w.t.app.inject({ method: 'GET', url });
    const binding = /name="binding" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    return {
      request: {
        method: 'POST',
        url,
        headers: { ...formHeaders, cookie: cookiesOf(page.headers['set-cookie']) },
        payload: new URLSearchParams({ binding }).toString(),
      },
      actor: `earner:${accountId}`,
      issuerId: 'earners',
    };
  },
  signOutOfBackpack: async (w) => {
    const earner = await earnerSession(w.t.app, `${unique('earner')}@example.org`);
    return {
      request: {
        method: 'POST',
        url: '/backpack/sign-out',
        headers: { ...formHeaders, cookie: earner.cookie },
        payload: earner.form(),
      },
      actor: `earner:${earner.accountId}`,
      issuerId: 'earners',
    };
  },
  deleteBackpackAccount: async (w) => {
    const earner = await earnerSession(w.t.app, `${unique('earner')}@example.org`);
    return {
      request: {
        method: 'POST',
        url: '/backpack/account/delete',
        headers: { ...formHeaders, cookie: earner.cookie },
        payload: earner.form(),
      },
      actor: `earner:${earner.accountId}`,
      issuerId: 'earners',
    };
  },
  importIntoBackpack: async (w) => {
    const earner = await earnerSession(w.t.app, `${unique('earner')}@example.org`);
    return {
      request: {
        method: 'POST',
        url: '/backpack/imports',
        headers: { ...formHeaders, cookie: earner.cookie },
        payload: earner.form({ source: JSON.stringify(unsignedBadge(unique('urn:uuid:import'))) }),
      },
      actor: `earner:${earner.accountId}`,
      issuerId: 'earners',
    };
  },
  checkBackpackImport: async (w) => {
    const earner = await earnerSession(w.t.app, `${unique('earner')}@example.org`);
    const imported = await w.t.app.services.backpack.imports.importCredential(earner.accountId, null, {
      text: JSON.stringify(unsignedBadge(unique('urn:uuid:check'))),
    });
    return {
      request: {
        method: 'POST',
        url: `/backpack/imports/${imported.id}/check`,
        headers: { ...formHeaders, cookie: earner.cookie },
        payload: earner.form(),
      },
      actor: `earner:${earner.accountId}`,
      issuerId: 'earners',
    };
  },
  deleteBackpackImport: async (w) => {
    const earner = await earnerSession(w.t.app, `${unique('earner')}@example.org`);
    const imported = await w.t.app.services.backpack.imports.importCredential(earner.accountId, null, {
      text: JSON.stringify(unsignedBadge(unique('urn:uuid:delete'))),
    });
    return {
      request: {
        method: 'POST',
        url: `/backpack/imports/${imported.id}/delete`,
        headers: { ...formHeaders, cookie: earner.cookie },
        payload: earner.form(),
      },
      actor: `earner:${earner.accountId}`,
      issuerId: 'earners',
    };
  },
  createBackpackCollection: async (w) => {
    const earner = await earnerSession(w.t.app, `${unique('earner')}@example.org`);
    return {
      request: {
        method: 'POST',
        url: '/backpack/collections',
        headers: { ...formHeaders, cookie: earner.cookie },
        payload: earner.form({ name: 'Walk collection' }),
      },
      actor: `earner:${earner.accountId}`,
      issuerId: 'earners',
    };
  },
  addToBackpackCollection: async (w) => {
    const { earner, collectionId, credentialId } = await collectionWorld(w, false);
    return collectionChange(earner, `/backpack/collections/${collectionId}/add`, { credentialId });
  },
  removeFromBackpackCollection: async (w) => {
    const { earner, collectionId, credentialId } = await collectionWorld(w, true);
    return collectionChange(earner, `/backpack/collections/${collectionId}/remove`, { credentialId });
  },
  setBackpackCollectionVisibility: async (w) => {
    const { earner, collectionId } = await collectionWorld(w, false);
    return collectionChange(earner, `/backpack/collections/${collectionId}/visibility`, { public: 'true' });
  },
  deleteBackpackCollection: async (w) => {
    const { earner, collectionId } = await collectionWorld(w, false);
    return collectionChange(earner, `/backpack/collections/${collectionId}/delete`, {});
  },
  revokeBackpackConnectedApp: async (w) => {
    const { accountId, clientId, cookie, csrf } = await obApiGrant(w);
    return {
      request: {
        method: 'POST',
        url: `/backpack/apps/${encodeURIComponent(clientId)}/revoke`,
        headers: { ...formHeaders, cookie },
        payload: new URLSearchParams({ csrf }).toString(),
      },
      actor: `earner:${accountId}`,
      issuerId: 'earners',
    };
  },
  checkBackpackSentCredential: async (w) => {
    const { accountId, token, cookie, csrf } = await obApiGrant(w);
    const key = `urn:uuid:${unique('walk-sent')}`;
    const sent = await w.t.app.inject({
      method: 'POST',
      url: '/ims/ob/v3p0/credentials',
      headers: { authorization: `Bearer ${token}` },
      payload: { ...unsignedBadge(key) },
    });
    if (sent.statusCode !== 201) throw new Error(`the walk's upsert answered ${sent.statusCode}: ${sent.body}`);
    return {
      request: {
        method: 'POST',
        url: '/backpack/sent/check',
        headers: { ...formHeaders, cookie },
        payload: new URLSearchParams({ csrf, key }).toString(),
      },
      actor: `earner:${accountId}`,
      issuerId: 'earners',
    };
  },
  startBackpackSend: async (w) => {
    const email = `${unique('sender')}@example.org`;
    const issued = await created(
      w,
      w.keyed('POST', '/api/v1/credentials', {
        definitionId: w.definitionId,
        recipientEmail: email,
        completionKey: unique('send'),
      }),
    );
    const earner = await earnerSession(w.t.app, email);
    const remote = await sendRemotePlatform();
    return collectionChange(earner, '/backpack/send', {
      address: remote.base,
      credential: String(issued.credentialId),
    });
  },
  upsertObCredential: async (w) => {
    const { accountId, token } = await obApiToken(w);
    return {
      request: {
        method: 'POST',
        url: '/ims/ob/v3p0/credentials',
        headers: { authorization: `Bearer ${token}` },
        payload: {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          id: `urn:uuid:${unique('walk-upsert')}`,
          type: ['VerifiableCredential', 'OpenBadgeCredential'],
          issuer: 'https://elsewhere.example',
          credentialSubject: {},
        },
      },
      actor: `earner:${accountId}`,
      issuerId: 'earners',
    };
  },
  putObProfile: async (w) => {
    const { accountId, token } = await obApiToken(w);
    return {
      request: {
        method: 'PUT',
        url: '/ims/ob/v3p0/profile',
        headers: { authorization: `Bearer ${token}` },
        payload: { type: ['Profile'], id: 'urn:uuid:walk-profile', name: 'Walk' },
      },
      actor: `earner:${accountId}`,
      issuerId: 'earners',
    };
  },
  offerBackpackBadgeToWallet: async (w) => {
    const email = `${unique('earner')}@example.org`;
    const issued = await created(
      w,
      w.keyed('POST', '/api/v1/credentials', {
        definitionId: w.definitionId,
        recipientEmail: email,
        completionKey: unique('bp'),
      }),
    );
    const earner = await earnerSession(w.t.app, email);
    return {
      request: {
        method: 'POST',
        url: `/backpack/badges/${issued.credentialId}/wallet`,
        headers: { ...formHeaders, cookie: earner.cookie },
        payload: earner.form(),
      },
      actor: `earner:${earner.accountId}`,
    };
  },
  signIn: async (w) => {
    const user = await consoleUser(w.t.app, w.a.id, 'viewer');
    return {
      request: { method: 'POST', url: '/api/v1/session', payload: { email: user.email, password: PASSWORD } },
      actor: `user:${user.userId}`,
    };
  },
  signOut: async (w) => {
    const user = await consoleUser(w.t.app, w.a.id, 'viewer');
    return { request: w.session(user, 'DELETE', '/api/v1/session'), actor: `user:${user.userId}` };
  },
  acceptInvite: async (w) => {
    const invited = await w.t.app.services.accounts.invite(
      w.a.id,
      `${unique('invitee')}@example.org`,
      'viewer',
      'system',
    );
    return {
      request: {
        method: 'POST',
        url: `/api/v1/invites/${invited.inviteUrl.split('/').pop()}/accept`,
        payload: { password: PASSWORD },
      },
      actor: `user:${invited.user.id}`,
    };
  },
  inviteUser: async (w) => ({
    request: w.session(w.owner, 'POST', '/api/v1/users', { email: `${unique('staff')}@example.org`, role: 'viewer' }),
    actor: `user:${w.owner.userId}`,
  }),
  changeUserRole: async (w) => {
    const user = await consoleUser(w.t.app, w.a.id, 'viewer');
    return {
      request: w.session(w.owner, 'PATCH', `/api/v1/users/${user.userId}`, { role: 'issuer' }),
      actor: `user:${w.owner.userId}`,
    };
  },
  removeUser: async (w) => {
    const user = await consoleUser(w.t.app, w.a.id, 'viewer');
    return { request: w.session(w.owner, 'DELETE', `/api/v1/users/${user.userId}`), actor: `user:${w.owner.userId}` };
  },
  putSsoSettings: async (w) => ({
    request: w.session(w.owner, 'PUT', '/api/v1/sso/settings', await ssoSettings(w)),
    actor: `user:${w.owner.userId}`,
  }),
  removeSsoSettings: async (w) => {
    await created(w, w.session(w.owner, 'PUT', '/api/v1/sso/settings', await ssoSettings(w)));
    return { request: w.session(w.owner, 'DELETE', '/api/v1/sso/settings'), actor: `user:${w.owner.userId}` };
  },
  updateIssuerMe: async (w) => ({
    request: w.keyed('PATCH', '/api/v1/issuer/me', { description: 'Audited profile' }),
    actor: w.keyActor,
  }),
  createApiKey: async (w) => ({
    request: w.session(w.owner, 'POST', '/api/v1/keys', { name: 'walk' }),
    actor: `user:${w.owner.userId}`,
  }),
  rotateApiKey: async (w) => {
    const key = await created(w, w.session(w.owner, 'POST', '/api/v1/keys', { name: 'to rotate' }));
    return {
      request: w.session(w.owner, 'POST', `/api/v1/keys/${key.id}/rotate`, { graceSeconds: 0 }),
      actor: `user:${w.owner.userId}`,
    };
  },
  revokeApiKey: async (w) => {
    const key = await created(w, w.session(w.owner, 'POST', '/api/v1/keys', { name: 'to revoke' }));
    return { request: w.session(w.owner, 'POST', `/api/v1/keys/${key.id}/revoke`), actor: `user:${w.owner.userId}` };
  },
  createDefinition: async (w) => ({
    request: w.keyed('POST', '/api/v1/definitions', { name: unique('Walked'), description: 'x' }),
    actor: w.keyActor,
  }),
  updateDefinition: async (w) => {
    const definition = await created(
      w,
      w.keyed('POST', '/api/v1/definitions', { name: unique('Kept'), description: 'x' }),
    );
    return {
      request: w.keyed('PATCH', `/api/v1/definitions/${definition.id}`, { status: 'archived' }),
      actor: w.keyActor,
    };
  },
  putDefinitionTranslation: async (w) => ({
    request: w.keyed('PUT', `/api/v1/definitions/${w.definitionId}/translations/fr`, {
      name: 'Traduit',
      description: 'x',
    }),
    actor: w.keyActor,
  }),
  deleteDefinitionTranslation: async (w) => {
    await w.t.app.inject(
      w.keyed('PUT', `/api/v1/definitions/${w.definitionId}/translations/nl`, { name: 'n', description: 'x' }),
    );
    return {
      request: w.keyed('DELETE', `/api/v1/definitions/${w.definitionId}/translations/nl`),
      actor: w.keyActor,
    };
  },
  issueCredential: async (w) => ({
    request: w.keyed('POST', '/api/v1/credentials', {
      definitionId: w.definitionId,
      recipientEmail: `${unique('earner')}@example.org`,
      completionKey: unique('walk-issue'),
    }),
    actor: w.keyActor,
  }),
  revokeCredential: async (w) => ({
    request: w.keyed('POST', `/api/v1/credentials/${await w.credential()}/revoke`, {}),
    actor: w.keyActor,
  }),
  reissueCredential: async (w) => ({
    request: w.keyed('POST', `/api/v1/credentials/${await w.credential()}/reissue`, {}),
    actor: w.keyActor,
  }),
  resendCredentialNotification: async (w) => {
    const email = `${unique('resend')}@example.org`;
    const issued = await w.t.app.inject(
      w.keyed('POST', '/api/v1/credentials', {
        definitionId: w.definitionId,
        recipientEmail: email,
        completionKey: unique('resend'),
      }),
    );
    return {
      request: w.keyed('POST', `/api/v1/credentials/${issued.json().credentialId}/notification`, {
        recipientEmail: email,
      }),
      actor: w.keyActor,
    };
  },
  correctCredentialName: async (w) => ({
    request: w.keyed('POST', `/api/v1/credentials/${await w.credential()}/correct-name`, {
      recipientName: 'Corrected Name',
    }),
    actor: w.keyActor,
  }),
  renewCredentials: async (w) => {
    const detail = await w.t.app.inject(w.keyed('GET', `/api/v1/credentials/${await w.credential()}`));
    return {
      request: w.keyed('POST', '/api/v1/credentials/renewals', { completionKeys: [detail.json().completionKey] }),
      actor: w.keyActor,
    };
  },
  importCsv: async (w) => ({
    request: w.keyed('POST', '/api/v1/ingest/csv', {
      csv: `email,definition_id\n${unique('csv')}@example.org,${w.definitionId}\n`,
    }),
    actor: w.keyActor,
  }),
  ingestCompletion: async (w) => ({
    request: w.keyed('POST', '/api/v1/ingest/completions', {
      recipientEmail: `${unique('lms')}@example.org`,
      definitionId: w.definitionId,
    }),
    actor: w.keyActor,
  }),
  receiveAxcelerateCompletions: async (w) => {
    const slug = unique('first-aid');
    await created(w, w.keyed('POST', '/api/v1/definitions', { name: slug, slug, description: 'x' }));
    return {
      request: w.keyed('POST', '/api/v1/connectors/axcelerate/completions', {
        records: axcelerateMergedRows,
        definitionMap: { 'PFA incl CPR': slug, 'el:425489': slug },
      }),
      actor: w.keyActor,
    };
  },
  receiveConnectorCompletions: async (w) => ({
    request: w.keyed('POST', '/api/v1/connectors/generic/completions', {
      records: [{ email: `${unique('generic')}@example.org`, definitionRef: 'walk' }],
    }),
    actor: w.keyActor,
  }),
  createAlignment: async (w) => ({
    request: w.keyed('POST', `/api/v1/definitions/${w.definitionId}/alignments`, {
      targetName: unique('Framework skill'),
      targetUrl: 'https://framework.example/skills/1',
    }),
    actor: w.keyActor,
  }),
  endorseDefinition: async (w) => ({
    request: w.keyed('POST', `/api/v1/definitions/${w.definitionId}/endorsements`, {
      endorserName: 'Standards Body',
      claim: 'Aligned with our standard.',
    }),
    actor: w.keyActor,
  }),
  endorseCredential: async (w) => ({
    request: w.keyed('POST', `/api/v1/credentials/${await w.credential()}/endorsements`, {
      endorserName: 'Mentor',
      claim: 'Excellent.',
    }),
    actor: w.keyActor,
  }),
  putDefinitionCertificate: async (w) => ({
    request: w.keyed('PUT', `/api/v1/definitions/${w.definitionId}/certificate`, { enabled: true, title: 'Walked' }),
    actor: w.keyActor,
  }),
  deleteDefinitionCertificate: async (w) => {
    await created(w, w.keyed('PUT', `/api/v1/definitions/${w.definitionId}/certificate`, { enabled: true }));
    return { request: w.keyed('DELETE', `/api/v1/definitions/${w.definitionId}/certificate`), actor: w.keyActor };
  },
  putCertificateSettings: async (w) => ({
    request: w.session(w.owner, 'PUT', '/api/v1/certificates/settings', { enabled: true, country: 'AU' }),
    actor: `user:${w.owner.userId}`,
  }),
  revokeCredentialCertificateLink: async (w) => ({
    request: w.keyed('POST', `/api/v1/credentials/${await w.credential()}/certificate-link/revoke`),
    actor: w.keyActor,
  }),
  uploadImage: async (w) => ({
    request: {
      method: 'POST',
      url: '/api/v1/images',
      headers: { ...auth(w.a.key), 'content-type': 'image/png' },
      payload: pngHeader(64, 64),
    },
    actor: w.keyActor,
  }),
  createWebhook: async (w) => ({
    request: w.keyed('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['credential.issued'] }),
    actor: w.keyActor,
  }),
  deleteWebhook: async (w) => {
    const hook = await created(
      w,
      w.keyed('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/gone', events: ['credential.issued'] }),
    );
    return { request: w.keyed('DELETE', `/api/v1/webhooks/${hook.id}`), actor: w.keyActor };
  },
  updateWebhook: async (w) => {
    const hook = await created(
      w,
      w.keyed('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/moved', events: ['credential.issued'] }),
    );
    return {
      request: w.keyed('PATCH', `/api/v1/webhooks/${hook.id}`, { events: ['credential.revoked'] }),
      actor: w.keyActor,
    };
  },
  sendWebhookTest: async (w) => {
    const hook = await created(
      w,
      w.keyed('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/test', events: ['credential.issued'] }),
    );
    return { request: w.keyed('POST', `/api/v1/webhooks/${hook.id}/test`), actor: w.keyActor };
  },
  resendWebhookDelivery: async (w) => {
    const hook = await created(
      w,
      w.keyed('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/again', events: ['credential.issued'] }),
    );
    const sent = await created(w, w.keyed('POST', `/api/v1/webhooks/${hook.id}/test`));
    return {
      request: w.keyed('POST', `/api/v1/webhooks/${hook.id}/deliveries/${sent.deliveryId}/resend`),
      actor: w.keyActor,
    };
  },
  createEarnerProfile: async (w) => ({
    request: w.keyed('POST', '/api/v1/profiles', { recipientEmail: `${unique('profile')}@example.org` }),
    actor: w.keyActor,
  }),
  deleteEarnerProfile: async (w) => {
    const profile = await created(
      w,
      w.keyed('POST', '/api/v1/profiles', { recipientEmail: `${unique('gone')}@example.org` }),
    );
    return { request: w.keyed('DELETE', `/api/v1/profiles/${profile.id}`), actor: w.keyActor };
  },
  createPathway: async (w) => ({
    request: w.keyed('POST', '/api/v1/pathways', { name: unique('Track'), description: 'x' }),
    actor: w.keyActor,
  }),
  updatePathway: async (w) => {
    const pathway = await created(w, w.keyed('POST', '/api/v1/pathways', { name: unique('Track'), description: 'x' }));
    return { request: w.keyed('PATCH', `/api/v1/pathways/${pathway.id}`, { description: 'y' }), actor: w.keyActor };
  },
  addPathwayStage: async (w) => {
    const pathway = await created(w, w.keyed('POST', '/api/v1/pathways', { name: unique('Track'), description: 'x' }));
    return {
      request: w.keyed('POST', `/api/v1/pathways/${pathway.id}/stages`, { definitionId: w.definitionId, stepOrder: 1 }),
      actor: w.keyActor,
    };
  },
  issuePathwayClr: async (w) => {
    const pathway = await created(w, w.keyed('POST', '/api/v1/pathways', { name: unique('Track'), description: 'x' }));
    await created(
      w,
      w.keyed('POST', `/api/v1/pathways/${pathway.id}/stages`, { definitionId: w.definitionId, stepOrder: 1 }),
    );
    const recipientEmail = `${unique('clr')}@example.org`;
    await created(
      w,
      w.keyed('POST', '/api/v1/credentials', {
        definitionId: w.definitionId,
        recipientEmail,
        completionKey: unique('clr'),
      }),
    );
    return { request: w.keyed('POST', `/api/v1/pathways/${pathway.id}/clr`, { recipientEmail }), actor: w.keyActor };
  },
  exportRecipientData: async (w) => ({
    request: w.keyed('POST', '/api/v1/gdpr/export', { recipientEmail: 'export@example.org' }),
    actor: w.keyActor,
  }),
  exportRecipientDocument: async (w) => ({
    request: w.keyed('POST', '/api/v1/gdpr/export/document', { recipientEmail: 'export@example.org' }),
    actor: w.keyActor,
  }),
  eraseRecipientData: async (w) => ({
    request: w.keyed('POST', '/api/v1/gdpr/erase', { recipientEmail: 'erase@example.org' }),
    actor: w.keyActor,
  }),
  updateNotificationSettings: async (w) => ({
    request: w.keyed('PATCH', '/api/v1/notifications/settings', { notifyByDefault: false }),
    actor: w.keyActor,
  }),
  sendExpiryReminders: async (w) => {
    await w.t.app.inject(w.keyed('PATCH', '/api/v1/notifications/settings', { expiryReminders: true }));
    return {
      request: w.keyed('POST', '/api/v1/notifications/reminders', { recipientEmails: ['remind@example.org'] }),
      actor: w.keyActor,
    };
  },
  unsubscribe: async (w) => {
    const token = unique('unsubscribe-token');
    const now = new Date().toISOString();
    await w.t.database.db
      .insertInto('credential_notifications')
      .values({
        credential_id: await w.credential(),
        issuer_id: w.a.id,
        recipient_hash: createHash('sha256').update(token).digest('hex'),
        status: 'sent',
        detail: null,
        attempts: 1,
        unsubscribe_token_hash: createHash('sha256').update(token, 'utf8').digest('hex'),
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { request: { method: 'POST', url: `/notifications/unsubscribe/${token}` }, actor: 'anonymous' };
  },
  giveEndorsement: async (w) => {
    const other = await w.t.issuer({ slug: unique(`endorsed-${w.a.slug}`) });
    const slug = unique('endorsed');
    await created(w, {
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(other.key),
      payload: { name: slug, slug, description: 'x' },
    });
    return {
      request: w.keyed('POST', '/api/v1/endorsements/given', {
        badgeClass: `${w.t.config.publicBaseUrl}/v1/issuers/${other.slug}/badges/${slug}`,
        claim: 'Meets our bar.',
      }),
      actor: w.keyActor,
    };
  },
  revokeGivenEndorsement: async (w) => {
    const { request } = await (builders.giveEndorsement as (w: Walk) => Promise<Call>)(w);
    const given = await created(w, request);
    return { request: w.keyed('POST', `/api/v1/endorsements/given/${given.id}/revoke`), actor: w.keyActor };
  },
  acceptReceivedEndorsement: async (w) => ({
    request: w.keyed('POST', `/api/v1/endorsements/received/${await receivedEndorsement(w)}/accept`),
    actor: w.keyActor,
  }),
  rejectReceivedEndorsement: async (w) => ({
    request: w.keyed('POST', `/api/v1/endorsements/received/${await receivedEndorsement(w)}/reject`),
    actor: w.keyActor,
  }),
  removeReceivedEndorsement: async (w) => ({
    request: w.session(w.owner, 'POST', `/api/v1/endorsements/received/${await receivedEndorsement(w)}/remove`),
    actor: `user:${w.owner.userId}`,
  }),
  exchangeLearnerCredentialWallet: async (w) => {
    const offer = await created(w, w.keyed('POST', `/api/v1/credentials/${await w.credential()}/offers`, {}));
    const link = new URL((offer.learnerCredentialWallet as { url: string }).url);
    const { did, key } = await didKeyWallet();
    const presentation = await didAuth(did, key, link.searchParams.get('challenge') as string);
    return {
      request: {
        method: 'POST',
        url: (link.searchParams.get('vc_request_url') as string).replace(w.t.config.publicBaseUrl, ''),
        payload: presentation,
      },
      actor: 'wallet',
    };
  },
  createWalletOffer: async (w) => ({
    request: w.keyed('POST', `/api/v1/credentials/${await w.credential()}/offers`, {}),
    actor: w.keyActor,
  }),
  redeemPreAuthorizedCode: async (w) => ({
    request: {
      method: 'POST',
      url: `/v1/issuers/${w.a.slug}/oid4vci/token`,
      headers: form,
      payload: new URLSearchParams({
        grant_type: PRE_AUTH,
        'pre-authorized_code': await preAuthorizedCode(w),
      }).toString(),
    },
    actor: 'wallet',
  }),
  requestCredential: async (w) => {
    const token = await created(w, {
      method: 'POST',
      url: `/v1/issuers/${w.a.slug}/oid4vci/token`,
      headers: form,
      payload: new URLSearchParams({
        grant_type: PRE_AUTH,
        'pre-authorized_code': await preAuthorizedCode(w),
      }).toString(),
    });
    const nonce = await created(w, { method: 'POST', url: `/v1/issuers/${w.a.slug}/oid4vci/nonce` });
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const { publicKeyMultibase } = await multikeyFromJwk({ jwk: (await exportJWK(publicKey)) as never });
    const did = `did:key:${publicKeyMultibase}`;
    const proof = await new SignJWT({ nonce: nonce.c_nonce as string })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'openid4vci-proof+jwt', kid: `${did}#${publicKeyMultibase}` })
      .setAudience(`${w.t.config.publicBaseUrl}/v1/issuers/${w.a.slug}`)
      .setIssuedAt(Math.floor(w.t.app.core.clock.now().getTime() / 1000))
      .sign(privateKey);
    return {
      request: {
        method: 'POST',
        url: `/v1/issuers/${w.a.slug}/oid4vci/credential`,
        headers: { authorization: `Bearer ${token.access_token}` },
        payload: { credential_configuration_id: 'OpenBadgeCredential_ldp_vc', proofs: { jwt: [proof] } },
      },
      actor: 'wallet',
    };
  },
  createLtiRegistration: async (w) => ({ request: w.keyed('POST', '/api/v1/lti/registrations'), actor: w.keyActor }),
  rotateLtiToolKey: async (w) => ({ request: w.keyed('POST', '/api/v1/lti/tool/keys/rotate'), actor: w.keyActor }),
  createLtiPlatform: async (w) => ({
    request: w.keyed('POST', '/api/v1/lti/platforms', manualPlatform()),
    actor: w.keyActor,
  }),
  updateLtiPlatform: async (w) => {
    const platform = await created(w, w.keyed('POST', '/api/v1/lti/platforms', manualPlatform()));
    return {
      request: w.keyed('PATCH', `/api/v1/lti/platforms/${platform.id}`, { name: 'Renamed' }),
      actor: w.keyActor,
    };
  },
  removeLtiPlatform: async (w) => {
    const platform = await created(w, w.keyed('POST', '/api/v1/lti/platforms', manualPlatform()));
    return { request: w.keyed('DELETE', `/api/v1/lti/platforms/${platform.id}`), actor: w.keyActor };
  },
  ltiLaunch: async (w) => {
    const { sim, actor, linkId } = await ltiWorld(w);
    const learner = {
      id: unique('lti-learner'),
      name: 'Lin Learner',
      email: `${unique('lin')}@example.org`,
      roles: [ROLE.learner],
    };
    const authorized = await authorizeThrough(sim, injectPost(w.t.app), w.t.config.publicBaseUrl, {
      messageType: 'LtiResourceLinkRequest',
      user: learner,
      custom: { accolade_link: linkId },
    });
    return {
      request: ltiForm('/lti/launch', { id_token: authorized.token, state: authorized.state }, authorized.cookie),
      actor,
    };
  },
  ltiDeepLink: async (w) => {
    const { sim, actor } = await ltiWorld(w);
    const picker = await launchThrough(sim, injectPost(w.t.app), w.t.config.publicBaseUrl, {
      messageType: 'LtiDeepLinkingRequest',
      user: LTI_TEACHER,
    });
    return {
      request: ltiForm('/lti/deep-links', {
        token: formField(picker.html, 'token'),
        definitionId: w.definitionId,
        rule: 'launch',
      }),
      actor,
    };
  },
  ltiAwardSelected: async (w) => {
    const { sim, actor } = await ltiWorld(w);
    const learner = {
      id: unique('lti-selected'),
      name: 'Sel Ected',
      email: `${unique('sel')}@example.org`,
      roles: [ROLE.learner],
    };
    sim.users.set(learner.id, learner);
    return { request: ltiForm('/lti/awards', { token: await ltiInstructorToken(w), userId: learner.id }), actor };
  },
  ltiCheckScores: async (w) => {
    const { actor } = await ltiWorld(w);
    return { request: ltiForm('/lti/sync', { token: await ltiInstructorToken(w) }), actor };
  },
};

interface Operation {
  method: string;
  path: string;
  operationId: string;
}

describe.each(dialects)('every state-changing operation is audited, on %s', (dialect) => {
  let t: TestApp;
  let w: Walk;
  let operations: Operation[];

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' } });
    const a = await t.issuer({ slug: `audit-walk-${dialect}` });
    const key = await t.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('issuer_id', '=', a.id)
      .executeTakeFirstOrThrow();
    const owner = await consoleUser(t.app, a.id, 'owner');
    const keyed: Walk['keyed'] = (method, url, payload) => ({
      method,
      url,
      headers: auth(a.key),
      ...(payload ? { payload } : {}),
    });
    const definition = (
      await t.app.inject(keyed('POST', '/api/v1/definitions', { name: 'Walk', description: 'x' }))
    ).json();
    w = {
      t,
      a,
      keyActor: `key:${key.id}`,
      owner,
      definitionId: definition.id,
      keyed,
      session: (user, method, url, payload) => ({
        method,
        url,
        headers: user.headers,
        ...(payload ? { payload } : {}),
      }),
      async credential() {
        const res = await t.app.inject(
          keyed('POST', '/api/v1/credentials', {
            definitionId: definition.id,
            recipientEmail: `${unique('walked')}@example.org`,
            completionKey: unique('walk'),
          }),
        );
        expect(res.statusCode, res.body).toBe(201);
        return res.json().credentialId;
      },
    };
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, operationId: op.operationId })),
    );
  });
  afterAll(async () => t?.close());

  const recordIds = async (issuerId: string) =>
    new Set(
      (await t.database.db.selectFrom('audit_log').select('id').where('issuer_id', '=', issuerId).execute()).map(
        (r) => r.id,
      ),
    );

  it('reads the operations from /openapi.json, and every exemption is a live operation argued in docs/audit.md', () => {
    expect(operations.length).toBeGreaterThan(40);
    const docs = readFileSync(new URL('../docs/audit.md', import.meta.url), 'utf8');
    const ids = new Set(operations.map((op) => op.operationId));
    for (const exempt of EXEMPT) {
      expect(ids.has(exempt), `${exempt} is exempt but no longer an operation`).toBe(true);
      expect(docs.includes(`\`${exempt}\``), `docs/audit.md argues the exemption of ${exempt}`).toBe(true);
    }
  });

  it('writes a record naming the actor for every non-GET operation that is not exempt', async () => {
    const missing = operations.filter((op) => !EXEMPT.has(op.operationId) && !builders[op.operationId]);
    expect(
      missing.map((op) => `${op.method} ${op.path} (${op.operationId})`),
      'operations with neither a request builder in this test nor an exemption argued in docs/audit.md',
    ).toEqual([]);
    const unaudited: string[] = [];
    for (const op of operations) {
      const build = builders[op.operationId];
      if (EXEMPT.has(op.operationId) || !build) continue;
      const call = await build(w);
      expect(call.request.method, op.operationId).toBe(op.method);
      const issuerId = call.issuerId ?? w.a.id;
      const before = await recordIds(issuerId);
      const res = await t.app.inject(call.request);
      // A redirect (303 after a form post) is a success as much as a 2xx.
      if (res.statusCode >= 400) {
        unaudited.push(`${op.operationId}: answered ${res.statusCode} ${res.body.slice(0, 300)}`);
        continue;
      }
      const records = await t.database.db
        .selectFrom('audit_log')
        .select(['id', 'actor', 'action'])
        .where('issuer_id', '=', issuerId)
        .execute();
      const added = records.filter((r) => !before.has(r.id));
      if (added.length === 0 || added.some((r) => r.actor !== call.actor)) {
        unaudited.push(`${op.operationId}: expected actor ${call.actor}, got ${JSON.stringify(added)}`);
      }
    }
    expect(unaudited).toEqual([]);
  }, 300_000);

  it('audits a failed console sign-in in the issuer of the account, with the user as actor', async () => {
    const user = await consoleUser(t.app, w.a.id, 'viewer');
    const before = await recordIds(w.a.id);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { email: user.email, password: 'not the password at all' },
    });
    expect(res.statusCode).toBe(401);
    const added = (
      await t.database.db
        .selectFrom('audit_log')
        .select(['id', 'actor', 'action'])
        .where('issuer_id', '=', w.a.id)
        .execute()
    ).filter((r) => !before.has(r.id));
    expect(added.map((r) => [r.action, r.actor])).toEqual([['console_user.sign_in_failed', `user:${user.userId}`]]);
  });
});
