import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorResponses, keyedErrors, openErrors } from '../../core/schemas.js';
import type { SignedIn } from './session.types.js';
import {
  SsoCallbackQuery,
  SsoLinksSchema,
  SsoLoginOptions,
  SsoSettingsSchema,
  SsoSlugParams,
  ssoSettingsBody,
} from './sso.schemas.js';
import { CALLBACK_PATH, FLOW_COOKIE, FLOW_SECONDS, type SsoRefusal, START_PATH } from './sso.service.js';

const TAGS = ['Console'];
const LOGIN_PAGE = '/console/login';
const AFTER_SIGN_IN = '/console/dashboard';

/** The login page after a refused sign-in: fixed paths only, the issuer slug and the reason as parameters. */
function loginPage(slug: string | null, refused: SsoRefusal): string {
  const query = new URLSearchParams(slug ? { issuer: slug, sso: refused } : { sso: refused });
  return `${LOGIN_PAGE}?${query}`;
}

/**
 * Console sign-in through the issuer's own OpenID Connect provider. The owner's settings live under
 * /api/v1/sso (session only, like users and keys: a leaked API key must not be able to point the
 * console's sign-in at a provider of its choosing). The browser's two legs, the start and the
 * callback, are navigations outside /api/: providers add parameters of their own to the callback.
 */
export const ssoRoutes: FastifyPluginAsyncTypebox<{
  startSession: (request: FastifyRequest, reply: FastifyReply, session: SignedIn) => unknown;
}> = async (app, options) => {
  const { sso } = app.services.accounts;
  const { config } = app.core;

  function flowCookie(request: FastifyRequest, value: string, maxAge: number): string {
    return stringifySetCookie({
      name: FLOW_COOKIE,
      value,
      httpOnly: true,
      // Lax: the provider sends the browser back with a cross-site top-level GET, which must carry it.
      sameSite: 'lax',
      path: CALLBACK_PATH,
      secure: request.protocol === 'https' || config.publicBaseUrl.startsWith('https://'),
      maxAge,
    });
  }

  app.get(
    '/api/v1/sso/settings',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'getSsoSettings',
        tags: TAGS,
        summary: "The issuer's OpenID Connect sign-in provider (owner); 404 when none is set up",
        response: { 200: Type.Ref(SsoSettingsSchema), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request) => sso.settings(request.issuerId()),
  );

  app.get(
    '/api/v1/sso/links',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'getSsoLinks',
        tags: TAGS,
        summary: 'The redirect URI to register at a provider and the staff sign-in link (owner)',
        description:
          'Answered before any provider is set up, so the owner can register the redirect URI at the provider first.',
        response: { 200: Type.Ref(SsoLinksSchema), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => sso.links(request.issuerId()),
  );

  app.put(
    '/api/v1/sso/settings',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'putSsoSettings',
        tags: TAGS,
        summary: 'Set up or change the OpenID Connect sign-in provider (owner)',
        description:
          "The provider is discovered at once (400 when it is not found). Only the issuer's invited users (with their role) and, when allowedDomain is set, verified addresses of that domain (as viewers) get in. passwordSignIn false turns password sign-in off for the issuer's users.",
        body: ssoSettingsBody(config.webhookAllowPrivate),
        response: { 200: Type.Ref(SsoSettingsSchema), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => sso.configure(request.issuerId(), request.body, request.actor()),
  );

  app.delete(
    '/api/v1/sso/settings',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'removeSsoSettings',
        tags: TAGS,
        summary: 'Remove the sign-in provider (owner); password sign-in works again',
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      await sso.remove(request.issuerId(), request.actor());
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/v1/sso/issuers/:slug',
    {
      schema: {
        operationId: 'getSsoLoginOptions',
        tags: TAGS,
        summary: "The login page's options for an issuer: its provider's name and whether passwords are taken",
        description: 'An unknown issuer and an issuer without a provider are the same 404.',
        params: SsoSlugParams,
        response: { 200: SsoLoginOptions, ...errorResponses(404, ...openErrors) },
      },
    },
    async (request) => sso.loginOptions(request.params.slug),
  );

  app.get(
    `${START_PATH}/:slug`,
    {
      schema: {
        operationId: 'startSsoSignIn',
        tags: TAGS,
        summary: "Sign in through the issuer's provider: redirects there (a browser navigation)",
        description:
          'Sets a short-lived cookie binding the callback to this browser (state, nonce and PKCE verifier, sealed). When the issuer has no provider or it cannot be reached, redirects to the login page with sso=unavailable.',
        params: SsoSlugParams,
        response: {
          302: Type.Null({ description: 'To the provider, or back to the login page' }),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      reply.header('cache-control', 'no-store');
      try {
        const { location, flowCookie: sealed } = await sso.start(slug);
        reply.header('set-cookie', flowCookie(request, sealed, FLOW_SECONDS));
        return reply.redirect(location, 302);
      } catch (err) {
        request.log.warn({ action: 'console_sso.start_failed', err: (err as Error).name }, 'provider unavailable');
        return reply.redirect(loginPage(slug, 'unavailable'), 302);
      }
    },
  );

  app.get(
    CALLBACK_PATH,
    {
      schema: {
        operationId: 'finishSsoSignIn',
        tags: TAGS,
        summary: "The provider's redirect back (the redirect URI): signs in and goes to the console",
        description:
          'Needs the cookie set by the start (same browser, within 10 minutes). Signed in: the session cookie is set and the browser goes to /console/dashboard. Refused: to /console/login with sso=not_allowed, unverified, failed, expired or unavailable.',
        querystring: SsoCallbackQuery,
        response: {
          302: Type.Null({ description: 'To the console, or back to the login page' }),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      const cookie = request.headers.cookie ? parseCookie(request.headers.cookie)[FLOW_COOKIE] : undefined;
      const at = request.url.indexOf('?');
      const outcome = await sso.finish(at === -1 ? '' : request.url.slice(at), cookie, request.ip);
      // The flow is used up whatever the outcome: the cookie is cleared beside the session cookie.
      const clear = flowCookie(request, '', 0);
      if ('refused' in outcome) {
        reply.header('set-cookie', clear).header('cache-control', 'no-store');
        return reply.redirect(loginPage(outcome.slug, outcome.refused), 302);
      }
      options.startSession(request, reply, outcome.signedIn);
      const session = reply.getHeader('set-cookie');
      reply.header('set-cookie', [String(session), clear]);
      return reply.redirect(AFTER_SIGN_IN, 302);
    },
  );
};
