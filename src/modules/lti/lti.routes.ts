import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { type Language, negotiateLanguage } from '../../core/locale.js';
import type { Counter } from '../../core/rate-limit.js';
import { errorResponses, keyedErrors, openErrors, ValidationErrorBody } from '../../core/schemas.js';
import { PATHS } from './lti.constants.js';
import { LaunchRefused } from './lti.idtoken.js';
import { LOGIN_SECONDS, STATE_COOKIE } from './lti.launch.js';
import { autoPostPage, launchPage, ltiCsp, messagePage, registeredPage, ruleForm } from './lti.pages.js';
import { createLaunchAdmission } from './lti.refusals.js';
import { RegistrationFailed } from './lti.registration.js';
import {
  createPlatformBody,
  DeepLinkBody,
  InstructorBody,
  JwksSchema,
  LaunchBody,
  LoginParams,
  LtiPlatformList,
  LtiPlatformSchema,
  LtiRegistrationSchema,
  LtiToolKeyList,
  LtiToolKeyRotationSchema,
  LtiToolSchema,
  PlatformParams,
  RegisterParams,
  RegisterQuery,
  UpdatePlatformBody,
} from './lti.schemas.js';
import type { LanguageHints } from './lti.service.js';
import { type LaunchView, LtiPageError } from './lti.service.js';
import { ltiMessages } from './messages/index.js';

const TAGS = ['LTI'];
const HTML = 'text/html; charset=utf-8';
const FORM = 'application/x-www-form-urlencoded';
/** A launch form carries the platform's id_token: Canvas's run to tens of kilobytes. */
const FORM_LIMIT = 64 * 1024;
const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
/** A page's 400: the page for what the tool refused, the Error body for a request its schema refuses. */
const refusedOrInvalid = (description: string) => ({
  description: `${description}; or the request fails its schema`,
  content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: Type.Ref(ValidationErrorBody) } },
});
/** What a form post can be refused for before its handler: too large, or not a form or JSON. */
const formErrors = errorResponses(413, 415, ...openErrors);

/** Repeated fields (the instructor's selected learners) become arrays; the rest stay strings. */
function parseForm(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/**
 * The LTI 1.3 tool: the issuer's platforms under /api/v1/lti (key or console session, owner), and
 * the legs an LMS and its users' browsers take under /lti (open, rate limited per address like the
 * other open endpoints; each page may be framed by the LMS).
 */
export const ltiRoutes: FastifyPluginAsyncTypebox<{ count: Counter }> = async (app, options) => {
  const { lti } = app.services;
  const admit = createLaunchAdmission(options.count);
  const { config, ids } = app.core;
  const secure = config.publicBaseUrl.startsWith('https://');

  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
    done(null, parseForm(String(body)));
  });

  /**
   * The language of a page in the LMS (issue 45 §2): the launch's `launch_presentation.locale`
   * first (the LMS knows its user's language), else the browser's Accept-Language, else the badge's
   * own language (its definition's, which defaults to the issuer's), else English. The credential a
   * learner earns here is issued in the launch's locale, so its language is the first choice too.
   */
  const languageOf = (request: FastifyRequest, hints: LanguageHints | null = null): Language =>
    negotiateLanguage({
      query: hints?.locale ?? undefined,
      acceptLanguage: request.headers['accept-language'],
      issuer: hints?.badge,
    });

  /** An HTML answer of these pages in `language`: framable by the LMS (no X-Frame-Options), never cached. */
  function page(
    reply: FastifyReply,
    status: number,
    render: (nonce: string) => string,
    formAction?: string,
    language: Language = 'en',
  ) {
    const nonce = ids.token(24);
    reply.raw.removeHeader('X-Frame-Options');
    return reply
      .status(status)
      .header('content-type', HTML)
      .header('cache-control', 'no-store')
      .header('content-security-policy', ltiCsp(nonce, formAction))
      .header('content-language', language)
      .header('vary', 'Accept-Language')
      .send(render(nonce));
  }

  function refusedPage(reply: FastifyReply, err: unknown, request: FastifyRequest) {
    const language = languageOf(request);
    const words = ltiMessages(language);
    if (err instanceof LaunchRefused)
      return page(reply, 401, (n) => messagePage(words.refused, err.message, n, language), undefined, language);
    if (err instanceof LtiPageError || err instanceof RegistrationFailed) {
      return page(reply, 400, (n) => messagePage(words.failed, err.message, n, language), undefined, language);
    }
    throw err;
  }

  function stateCookie(value: string, maxAge: number): string {
    // The platform posts the launch from its own site: the cookie must travel on a cross-site POST,
    // which only SameSite=None (and so Secure) allows; a plain-http development origin keeps Lax.
    return stringifySetCookie({
      name: STATE_COOKIE,
      value,
      httpOnly: true,
      path: PATHS.launch,
      maxAge,
      ...(secure ? { sameSite: 'none' as const, secure: true, partitioned: true } : { sameSite: 'lax' as const }),
    });
  }

  // ---- The issuer's platforms (API and console) ----

  app.post(
    '/api/v1/lti/registrations',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'createLtiRegistration',
        tags: TAGS,
        summary: 'A Dynamic Registration URL to paste into an LMS (single use, expires in an hour)',
        description:
          'LTI Dynamic Registration 1.0: the LMS opens the URL with its openid configuration; the tool registers itself there and the platform is stored for this issuer. The answer also carries the tool URLs for an LMS without Dynamic Registration.',
        response: { 201: Type.Ref(LtiRegistrationSchema), ...errorResponses(...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await lti.registrations.createRegistrationUrl(request.issuerId(), request.actor())),
  );

  app.get(
    '/api/v1/lti/tool',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getLtiTool',
        tags: TAGS,
        summary: "The tool's URLs and JWKS address, for an LMS configured by hand",
        response: { 200: Type.Ref(LtiToolSchema), ...errorResponses(...keyedErrors) },
      },
    },
    async () => lti.registrations.urls,
  );

  app.get(
    '/api/v1/lti/tool/keys',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listLtiToolKeys',
        tags: TAGS,
        summary: "The tool keys that sign for this issuer's platforms, and the retired ones still published",
        description:
          "The key that signs this issuer's deep linking responses and service token requests now (the service's, until an owner rotates), and this issuer's retired keys with the time each leaves the JWKS. Public halves only.",
        response: { 200: LtiToolKeyList, ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => ({ items: await lti.keys.list(request.issuerId()) }),
  );

  app.post(
    '/api/v1/lti/tool/keys/rotate',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'rotateLtiToolKey',
        tags: TAGS,
        summary: "Rotate this issuer's LTI tool key: a new key signs at once, the old one stays published",
        description:
          "Security Framework 1.0 §6.3: the new RS256 key signs this issuer's deep linking responses and client assertions from now on, on every replica; the key it replaces stays in /lti/jwks for a week (or until two later rotations), so platforms that cached the key set keep verifying. Other issuers' keys are untouched. Owners only; audited. 409 lti_key_rotated_recently within an hour of the last rotation.",
        response: { 201: Type.Ref(LtiToolKeyRotationSchema), ...errorResponses(409, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await lti.keys.rotateForIssuer(request.issuerId(), request.actor())),
  );

  app.get(
    '/api/v1/lti/platforms',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listLtiPlatforms',
        tags: TAGS,
        summary: "The issuer's registered LMS platforms",
        response: { 200: LtiPlatformList, ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => ({ items: await lti.registrations.listPlatforms(request.issuerId()) }),
  );

  app.post(
    '/api/v1/lti/platforms',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'createLtiPlatform',
        tags: TAGS,
        summary: 'Register a platform by hand (an LMS without Dynamic Registration)',
        description:
          'The values the LMS shows once the tool is added with the URLs of GET /api/v1/lti/tool. 409 when this issuer and client id are registered already.',
        body: createPlatformBody(config.webhookAllowPrivate),
        response: { 201: Type.Ref(LtiPlatformSchema), ...errorResponses(400, 409, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await lti.registrations.createPlatform(request.issuerId(), request.actor(), request.body)),
  );

  app.patch(
    '/api/v1/lti/platforms/:id',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'updateLtiPlatform',
        tags: TAGS,
        summary: 'Rename a platform or add a deployment id to it',
        params: PlatformParams,
        body: UpdatePlatformBody,
        response: { 200: Type.Ref(LtiPlatformSchema), ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) =>
      lti.registrations.updatePlatform(request.issuerId(), request.params.id, request.actor(), request.body),
  );

  app.delete(
    '/api/v1/lti/platforms/:id',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'removeLtiPlatform',
        tags: TAGS,
        summary: 'Remove a platform: its launches are refused from now on (issued credentials stay)',
        params: PlatformParams,
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      await lti.registrations.removePlatform(request.issuerId(), request.params.id, request.actor());
      return reply.status(204).send(null);
    },
  );

  // ---- What the LMS and its users' browsers reach ----

  app.get(
    PATHS.jwks,
    {
      schema: {
        operationId: 'getLtiJwks',
        tags: TAGS,
        summary: "The tool's public keys (RS256), at a URL that stays the same across rotations",
        response: { 200: JwksSchema, ...errorResponses(...openErrors) },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(await lti.keys.jwks()),
  );

  app.get(
    `${PATHS.register}/:token`,
    {
      schema: {
        operationId: 'startLtiRegistration',
        tags: TAGS,
        summary: 'Dynamic Registration: the LMS opens the registration URL here (a browser page)',
        params: RegisterParams,
        querystring: RegisterQuery,
        response: {
          200: htmlPage('Registered; the page tells the LMS to close it'),
          400: refusedOrInvalid('Not registered, and why'),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      try {
        const platform = await lti.registrations.register(
          request.params.token,
          request.query.openid_configuration,
          request.query.registration_token,
        );
        const language = languageOf(request);
        return page(reply, 200, (n) => registeredPage(platform.name, n, language), undefined, language);
      } catch (err) {
        return refusedPage(reply, err, request);
      }
    },
  );

  const login = async (request: FastifyRequest, reply: FastifyReply, params: typeof LoginParams.static) => {
    try {
      const { location, cookie } = await lti.launches.login(params);
      return reply
        .header('set-cookie', stateCookie(cookie, LOGIN_SECONDS))
        .header('cache-control', 'no-store')
        .redirect(location, 302);
    } catch (err) {
      request.log.info({ action: 'lti.login_refused' }, 'LTI login refused');
      return refusedPage(reply, err, request);
    }
  };
  const loginSchema = {
    operationId: 'ltiLogin',
    tags: TAGS,
    summary: 'OpenID Connect third-party initiated login (the LMS sends the browser here first)',
    description:
      'Security Framework 1.0 §5.1.1.1. Redirects to the platform with state and nonce, bound to this browser by a sealed cookie; writes nothing.',
    response: {
      302: Type.Null({ description: "To the platform's authorization endpoint" }),
      401: htmlPage('The platform is not registered'),
      ...errorResponses(400, 413, 415, ...openErrors),
    },
  };
  app.get(PATHS.login, { schema: { ...loginSchema, querystring: LoginParams } }, (request, reply) =>
    login(request, reply, request.query),
  );
  app.post(
    PATHS.login,
    { schema: { ...loginSchema, operationId: 'ltiLoginPost', body: LoginParams } },
    (request, reply) => login(request, reply, request.body),
  );

  const show = (reply: FastifyReply, view: LaunchView, request: FastifyRequest) => {
    const language = languageOf(request, view.languages);
    return page(reply, 200, (n) => launchPage(view, n, language), undefined, language);
  };

  app.post(
    PATHS.launch,
    {
      schema: {
        operationId: 'ltiLaunch',
        tags: TAGS,
        summary: 'The launch (the authentication response, form_post): the picker, the learner or the instructor page',
        description:
          'The id_token is verified (signature, RS256, iss, aud, azp, exp, iat, nonce, state, deployment) before anything is written. A learner under the launch rule earns the badge here.',
        body: LaunchBody,
        response: {
          200: htmlPage('The page of the launch'),
          401: htmlPage('The launch was refused, and why'),
          400: refusedOrInvalid('The launch could not be handled'),
          ...formErrors,
        },
      },
    },
    async (request, reply) => {
      const admission = await admit(request.ip);
      if ('retryAfterSeconds' in admission) {
        reply.header('retry-after', admission.retryAfterSeconds);
        throw new AppError(
          'rate_limited',
          `Too many refused LTI launches from this address; retry in ${admission.retryAfterSeconds} s.`,
        );
      }
      const cookie = request.headers.cookie ? parseCookie(request.headers.cookie)[STATE_COOKIE] : undefined;
      reply.header('set-cookie', stateCookie('', 0));
      try {
        const view = await lti.service.launch(request.body, cookie, () => admission.settle(true));
        return show(reply, view, request);
      } catch (err) {
        return refusedPage(reply, err, request);
      }
    },
  );

  app.post(
    PATHS.deepLinks,
    {
      schema: {
        operationId: 'ltiDeepLink',
        tags: TAGS,
        summary: "The picker's choice: the award rule form, then the signed deep linking response posted to the LMS",
        body: DeepLinkBody,
        response: {
          200: htmlPage('The rule form, or the page that posts the response to the LMS'),
          400: refusedOrInvalid('The picker expired or the choice is not offered'),
          ...formErrors,
        },
      },
    },
    async (request, reply) => {
      const { token, definitionId, rule, minScore } = request.body;
      try {
        if (rule === undefined) {
          const view = await lti.service.pickerChoice(token, definitionId);
          const language = languageOf(request, view.languages);
          return page(reply, 200, (n) => ruleForm(token, view, n, language), undefined, language);
        }
        const response = await lti.service.deepLink(token, {
          definitionId,
          rule,
          ...(minScore ? { minScore: Number(minScore) } : {}),
        });
        const language = languageOf(request, response.languages);
        return page(
          reply,
          200,
          (n) => autoPostPage(response.returnUrl, response.jwt, n, language),
          new URL(response.returnUrl).origin,
          language,
        );
      } catch (err) {
        return refusedPage(reply, err, request);
      }
    },
  );

  const instructorSchema = (operationId: string, summary: string) => ({
    operationId,
    tags: TAGS,
    summary,
    body: InstructorBody,
    response: {
      200: htmlPage("The instructor's page, with what was done"),
      400: refusedOrInvalid('The page expired or the roster cannot be read'),
      ...formErrors,
    },
  });

  app.post(
    PATHS.awards,
    {
      schema: instructorSchema(
        'ltiAwardSelected',
        '"Award to selected": the instructor awards learners who met the criteria outside the LMS',
      ),
    },
    async (request, reply) => {
      const selected = request.body.userId;
      try {
        return show(
          reply,
          await lti.service.awardSelected(request.body.token, selected === undefined ? [] : [selected].flat()),
          request,
        );
      } catch (err) {
        return refusedPage(reply, err, request);
      }
    },
  );

  app.post(
    PATHS.sync,
    { schema: instructorSchema('ltiCheckScores', '"Check scores now": reads the course results and awards at once') },
    async (request, reply) => {
      try {
        return show(reply, await lti.service.checkScores(request.body.token), request);
      } catch (err) {
        return refusedPage(reply, err, request);
      }
    },
  );
};
