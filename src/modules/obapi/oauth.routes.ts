import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { parseCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type Language,
  lookupLanguage,
  negotiateLanguage,
  requestLanguageSources,
  supportedLanguage,
} from '../../core/locale.js';
import { BACKPACK_COOKIE } from '../backpack/backpack.http.js';
import { consentCsp, consentPage, expiredPage } from './consent.page.js';
import { ALL_SCOPES, OAUTH } from './obapi.scopes.js';

const HTML = 'text/html; charset=utf-8';
const NONCE_LENGTH = 24;
const FORM = 'application/x-www-form-urlencoded';
/** Registering a client writes a row and an audit record: it costs this many open requests. */
const REGISTRATION_COST = 10;

/**
 * The authorization server's own endpoints, answered by oidc-provider itself (its `callback()` on
 * the raw request, body unread): authorization and its resume, token, RFC 7591 registration, RFC
 * 7009 revocation, the JWKS and the RFC 8414 metadata. They are the protocol's, described by that
 * metadata and the Service Description Document, and kept out of /openapi.json.
 */
export const oauthProviderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { obapi } = app.services;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  const publicUrl = new URL(app.core.config.publicBaseUrl);
  function delegate(request: FastifyRequest, reply: FastifyReply, url = request.raw.url) {
    reply.hijack();
    request.raw.url = url;
    // The provider builds its URLs from these (proxy mode): the service's public origin, whatever the client sent.
    request.raw.headers['x-forwarded-host'] = publicUrl.host;
    request.raw.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    return obapi.callback(request.raw, reply.raw);
  }

  const hidden = { schema: { hide: true } };
  app.get('/.well-known/oauth-authorization-server', hidden, (request, reply) =>
    delegate(request, reply, '/.well-known/openid-configuration'),
  );
  app.get(`${OAUTH}/authorize`, hidden, delegate);
  app.post(`${OAUTH}/authorize`, hidden, delegate);
  app.get(`${OAUTH}/authorize/:uid`, hidden, delegate);
  app.post(`${OAUTH}/token`, hidden, delegate);
  app.post(`${OAUTH}/register`, { ...hidden, config: { rateLimitCost: () => REGISTRATION_COST } }, delegate);
  app.post(`${OAUTH}/revoke`, hidden, delegate);
  app.get(`${OAUTH}/jwks`, hidden, delegate);
};

/**
 * The interactions of an authorization: the earner signs in to the backpack (by emailed link),
 * then sees the consent page naming the client and each scope, and allows or denies.
 */
export const oauthInteractionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { obapi, backpack } = app.services;
  const { ids } = app.core;
  const provider = () => obapi.provider();

  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  function page(
    reply: FastifyReply,
    status: number,
    render: (nonce: string) => string,
    redirectOrigin: string | null = null,
    language: Language = 'en',
  ) {
    const nonce = ids.token(NONCE_LENGTH);
    return reply
      .status(status)
      .header('content-type', HTML)
      .header('content-security-policy', consentCsp(nonce, redirectOrigin))
      .header('cache-control', 'no-store')
      .header('content-language', language)
      .header('vary', 'Accept-Language')
      .send(render(nonce));
  }

  /**
   * The earner's own choice of language for these pages (issue 45 §2): `?lang=`, else the
   * authorization request's `ui_locales` (OpenID Connect Core 1.0 §3.1.2.1, space-separated, most
   * wanted first); null when neither names a supported language.
   */
  const chosenLanguage = (request: FastifyRequest, uiLocales: unknown): Language | null =>
    supportedLanguage((request.query as { lang?: unknown } | undefined)?.lang) ??
    (typeof uiLocales === 'string' ? lookupLanguage(uiLocales.split(' ').slice(0, 20)) : null);
  /** That choice, else Accept-Language, else English. */
  const languageOf = (request: FastifyRequest, uiLocales?: unknown): Language =>
    chosenLanguage(request, uiLocales) ?? negotiateLanguage(requestLanguageSources(request));

  const expired = (reply: FastifyReply, request: FastifyRequest) => {
    const language = languageOf(request);
    return page(reply, 400, (nonce) => expiredPage(nonce, language), null, language);
  };

  async function earner(request: FastifyRequest) {
    const header = request.headers.cookie;
    if (typeof header !== 'string' || !header.includes(BACKPACK_COOKIE)) return null;
    return backpack.authenticate(parseCookie(header)[BACKPACK_COOKIE] ?? null);
  }

  const publicUrl = new URL(app.core.config.publicBaseUrl);
  async function details(request: FastifyRequest, reply: FastifyReply) {
    request.raw.headers['x-forwarded-host'] = publicUrl.host;
    request.raw.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    try {
      return await (await provider()).interactionDetails(request.raw, reply.raw);
    } catch {
      return null;
    }
  }

  const htmlResponse = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
  const Params = Type.Object({ uid: Type.String({ maxLength: 100 }) });

  app.get(
    `${OAUTH}/interaction/:uid`,
    {
      schema: {
        hide: true,
        params: Params,
        response: { 200: htmlResponse('The consent page'), 303: Type.Null(), 400: htmlResponse('Expired') },
      },
    },
    async (request, reply) => {
      const interaction = await details(request, reply);
      if (!interaction || interaction.uid !== request.params.uid) return expired(reply, request);
      const session = await earner(request);
      const chosen = chosenLanguage(request, interaction.params.ui_locales);
      if (!session) {
        // The sign-in page on the way speaks the language the app or the earner chose.
        const next = encodeURIComponent(`${OAUTH}/interaction/${interaction.uid}`);
        return reply.redirect(`/backpack?next=${next}${chosen ? `&lang=${chosen}` : ''}`, 303);
      }
      if (interaction.prompt.name === 'login' || interaction.session?.accountId !== session.accountId) {
        reply.hijack();
        return (await provider()).interactionFinished(
          request.raw,
          reply.raw,
          { login: { accountId: session.accountId } },
          { mergeWithLastSubmission: false },
        );
      }
      const client = await (await provider()).Client.find(String(interaction.params.client_id));
      if (!client) return expired(reply, request);
      const scopes = String(interaction.params.scope ?? '')
        .split(' ')
        .filter((scope) => (ALL_SCOPES as string[]).includes(scope));
      const redirect = String(interaction.params.redirect_uri ?? '');
      const redirectUrl = URL.canParse(redirect) ? new URL(redirect) : null;
      const language = chosen ?? negotiateLanguage(requestLanguageSources(request));
      return page(
        reply,
        200,
        (nonce) =>
          consentPage(
            nonce,
            {
              action: `${OAUTH}/interaction/${interaction.uid}/confirm`,
              csrf: session.csrfToken,
              clientName: client.clientName ?? client.clientId,
              clientUri: client.clientUri ?? null,
              redirectHost: redirectUrl?.host ?? redirect,
              scopes,
            },
            language,
          ),
        redirectUrl?.origin ?? null,
        language,
      );
    },
  );

  app.post(
    `${OAUTH}/interaction/:uid/confirm`,
    {
      schema: {
        hide: true,
        params: Params,
        body: Type.Object({
          csrf: Type.String({ maxLength: 100 }),
          decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
        }),
        response: { 400: htmlResponse('Expired'), 403: htmlResponse('Not the earner of this request') },
      },
    },
    async (request, reply) => {
      const interaction = await details(request, reply);
      if (!interaction || interaction.uid !== request.params.uid || interaction.prompt.name !== 'consent')
        return expired(reply, request);
      const session = await earner(request);
      const accountId = interaction.session?.accountId;
      if (!session || session.csrfToken !== request.body.csrf || accountId !== session.accountId) {
        return page(reply, 403, () => 'Sign in to your backpack and start again from the app.');
      }
      if (request.body.decision === 'deny') {
        reply.hijack();
        return (await provider()).interactionFinished(
          request.raw,
          reply.raw,
          { error: 'access_denied', error_description: 'The earner did not allow access.' },
          { mergeWithLastSubmission: false },
        );
      }
      const clientId = String(interaction.params.client_id);
      const grant = interaction.grantId
        ? await (await provider()).Grant.find(interaction.grantId)
        : new (await provider()).Grant({ accountId, clientId });
      if (!grant) return expired(reply, request);
      const oidcScopes = (interaction.prompt.details.missingOIDCScope ?? []) as string[];
      if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(' '));
      const missing = (interaction.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;
      for (const [indicator, scopes] of Object.entries(missing)) grant.addResourceScope(indicator, scopes.join(' '));
      const grantId = await grant.save();
      await obapi.consentGranted(session.accountId, grantId, clientId, Object.values(missing).flat());
      reply.hijack();
      return (await provider()).interactionFinished(
        request.raw,
        reply.raw,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
    },
  );
};
