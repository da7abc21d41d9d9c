import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../core/errors.js';
import { requestLanguageSources, supportedLanguage, textLanguages } from '../../core/locale.js';
import { errorResponses, openErrors, ValidationErrorBody } from '../../core/schemas.js';
import { clrSection } from '../clr/clr.pages.js';
import { acceptedLanguages, firstLanguage } from '../notifications/notifications.messages.js';
import { collectionsSection } from './backpack.collections.pages.js';
import { backpackCollectionRoutes } from './backpack.collections.routes.js';
import { BACKPACK_ADDRESS_COOKIE, BACKPACK_COOKIE, backpackHttp } from './backpack.http.js';
import { backpackImportRoutes } from './backpack.import.routes.js';
import {
  accountDeletedPage,
  backpackPage,
  confirmSignInPage,
  connectedAppsSection,
  deleteAccountPage,
  linkSentPage,
  linkUnusablePage,
  signInError,
  signInNotStartedHerePage,
  signInPage,
  upsertedSection,
  walletOfferPage,
} from './backpack.pages.js';
import { LINK_MINUTES, SESSION_HOURS } from './backpack.service.js';

export { BACKPACK_COOKIE } from './backpack.http.js';

const FORM = 'application/x-www-form-urlencoded';
const FORM_LIMIT = 4096;
/** A sign-in link costs a write and an email: it is worth this many open requests of its address. */
const SIGN_IN_COST = 10;

const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
/** A page of the handler's, or the validation Error body when the request fails its schema. */
const htmlOrInvalid = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: Type.Ref(ValidationErrorBody) } },
});
const seeOther = (description: string) => ({ description, ...Type.Null() });

const SignInBody = Type.Object(
  {
    email: Type.String({ maxLength: 320 }),
    next: Type.Optional(Type.String({ maxLength: 2048 })),
    lang: Type.Optional(Type.String({ maxLength: 35, description: "The sign-in email's language (BCP 47)" })),
  },
  { additionalProperties: false },
);
const CsrfBody = Type.Object({ csrf: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
const SignInLinkBody = Type.Object({ binding: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
/** The pre-session cookie the link's page sets and its form's post must come back with (login CSRF). */
const SIGN_IN_COOKIE = 'accolade_backpack_sign_in';
const PRE_SESSION_LENGTH = 32;
const LinkParams = Type.Object({ link: Type.String({ maxLength: 600 }) });
/** `?lang=`: the page's language (issue 45 §2), on every backpack page. */
const LangField = Type.Optional(
  Type.String({ maxLength: 35, description: 'The page language (BCP 47); else Accept-Language, else English' }),
);
const NextQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2048 })), lang: LangField });
const LangQuery = Type.Object({ lang: LangField });
const BadgeParams = Type.Object({ id: Type.String({ maxLength: 104 }) });
const SentCheckBody = Type.Object(
  { csrf: Type.String({ maxLength: 100 }), key: Type.String({ minLength: 1, maxLength: 2100 }) },
  { additionalProperties: false },
);
const AppParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 200 }) });

const LOCAL_ORIGIN = 'http://local.invalid';

/**
 * A path of this service to go on to after sign-in; anything else (another origin, `//host`) is
 * dropped. Browsers strip tabs and line breaks from a Location, so `/\t/evil.example` would become
 * `//evil.example`: a control character or space refuses the path, and what is left must resolve
 * to this origin.
 */
export function localPath(next: string | undefined): string | null {
  if (!next?.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null;
  for (let i = 0; i < next.length; i++) {
    const unit = next.charCodeAt(i);
    if (unit <= 0x20 || unit === 0x7f) return null;
  }
  return new URL(next, LOCAL_ORIGIN).origin === LOCAL_ORIGIN ? next : null;
}

/**
 * The earner's backpack (issue 47 §1): sign-in by emailed link, every badge from every issuer, a
 * wallet offer per badge, sign-out and account deletion. HTML pages with forms; every change is a
 * POST carrying the session's CSRF token, under a SameSite=Lax cookie.
 */
export const backpackRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { backpack } = app.services;
  const {
    send,
    setCookie: setNamedCookie,
    sessionOf,
    changingSession,
    cookie,
    addressOf,
    languageOf,
  } = backpackHttp(app);
  const setCookie = (reply: FastifyReply, value: string, maxAge: number) => {
    setNamedCookie(reply, BACKPACK_COOKIE, value, maxAge);
    if (maxAge === 0) setNamedCookie(reply, BACKPACK_ADDRESS_COOKIE, '', 0);
  };
  const tags = ['Backpack'];
  const ownOrigin = new URL(app.core.config.publicBaseUrl).origin;

  function setSignInCookie(reply: FastifyReply, value: string, maxAge: number) {
    reply.header(
      'set-cookie',
      stringifySetCookie({
        name: SIGN_IN_COOKIE,
        value,
        httpOnly: true,
        sameSite: 'strict',
        path: '/backpack/sign-in',
        secure: backpack.secureCookies,
        maxAge,
      }),
    );
  }

  /**
   * A sign-in post comes from the link's own page in this browser: its pre-session cookie, the
   * form's binding of it (an HMAC only this service makes), and no foreign Origin or cross-site
   * fetch (Fetch Metadata). A page elsewhere cannot sign a visitor in to the attacker's account.
   */
  function startedHere(request: FastifyRequest, binding: string): boolean {
    // A page under `Referrer-Policy: no-referrer` (ours) posts with `Origin: null`: only another
    // named origin is refused here, and the SameSite=Strict cookie and Fetch Metadata decide the rest.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== 'null' && origin !== ownOrigin) return false;
    if (request.headers['sec-fetch-site'] === 'cross-site') return false;
    const preSession = cookie(request, SIGN_IN_COOKIE);
    if (!preSession) return false;
    const expected = Buffer.from(backpack.signInBinding(preSession));
    const given = Buffer.from(binding);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  await app.register(backpackImportRoutes);
  await app.register(backpackCollectionRoutes);

  app.get(
    '/backpack',
    {
      schema: {
        operationId: 'getBackpack',
        description:
          'Open. With the backpack session cookie: the list of the earner’s badges; without one: the sign-in form. `next` is a path of this service to go on to after signing in.',
        tags,
        summary: "The earner's backpack (HTML): every badge from every issuer, or the sign-in form",
        querystring: NextQuery,
        response: { 200: htmlPage('The backpack, or the sign-in form'), ...errorResponses(400, ...openErrors) },
      },
    },
    async (request, reply) => {
      const session = await sessionOf(request);
      const language = languageOf(request);
      if (!session) {
        const options = { next: localPath(request.query.next), lang: supportedLanguage(request.query.lang) };
        return send(reply, 200, (nonce) => signInPage(nonce, options, language), language);
      }
      const sources = requestLanguageSources(request);
      const [badges, imports, records, apps, sent, collections] = await Promise.all([
        backpack.badges(session.accountId, textLanguages(sources, language)),
        backpack.imports.list(session.accountId),
        app.services.clr.forAccount(session.accountId),
        app.services.obapi.connectedApps(session.accountId),
        app.services.obapi.upsertedForAccount(session.accountId),
        backpack.collections.list(session.accountId),
      ]);
      return send(
        reply,
        200,
        (nonce) =>
          backpackPage(
            nonce,
            badges,
            session.csrfToken,
            imports,
            clrSection(records, language),
            connectedAppsSection(apps, session.csrfToken, language),
            upsertedSection(sent, session.csrfToken, language),
            collectionsSection(collections, badges, session.csrfToken, language),
            language,
          ),
        language,
      );
    },
  );

  app.post(
    '/backpack/sign-in',
    {
      config: { rateLimitCost: () => SIGN_IN_COST },
      schema: {
        operationId: 'requestBackpackSignInLink',
        description:
          'Open form post (email, next). Sends a one-time link, valid 15 minutes, to the address; the answer is the same whether or not the address holds badges, and at most 5 links per address per 15 minutes are sent. 503 without SMTP_URL.',
        tags,
        summary: 'Emails a one-time sign-in link; the same answer whether or not the address holds badges',
        consumes: [FORM],
        body: SignInBody,
        querystring: LangQuery,
        response: {
          200: htmlPage('The link is on its way (if the address can receive email)'),
          400: htmlOrInvalid('Not an email address'),
          503: htmlPage('Sign-in by email is not set up on this service'),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      const next = localPath(request.body.next);
      // The email's and the answer's language: the form's, else the page's ?lang=, else
      // Accept-Language (issue 45 §2).
      const { lang } = request.query as { lang?: unknown };
      const language = firstLanguage(
        request.body.lang,
        typeof lang === 'string' ? lang : undefined,
        ...acceptedLanguages(request.headers['accept-language']),
      );
      try {
        await backpack.requestLink(request.body.email, next, language);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const status = error.code === 'service_unavailable' ? 503 : 400;
        const options = { next, error: signInError(error.code, language), lang: supportedLanguage(request.body.lang) };
        return send(reply, status, (nonce) => signInPage(nonce, options, language), language);
      }
      return send(reply, 200, (nonce) => linkSentPage(nonce, LINK_MINUTES, language), language);
    },
  );

  app.get(
    '/backpack/sign-in/:link',
    {
      schema: {
        operationId: 'getBackpackSignInLink',
        description:
          'Open. Shows a Sign in button that posts the link; opening the link changes nothing, so a mail scanner cannot spend it.',
        tags,
        summary: 'The page a sign-in link opens: one button signs in (a link scanner opening it changes nothing)',
        params: LinkParams,
        querystring: NextQuery,
        response: { 200: htmlPage('Confirm sign-in'), ...errorResponses(400, ...openErrors) },
      },
    },
    async (request, reply) => {
      const next = localPath(request.query.next);
      const action = `/backpack/sign-in/${encodeURIComponent(request.params.link)}${next ? `?next=${encodeURIComponent(next)}` : ''}`;
      const preSession = app.core.ids.token(PRE_SESSION_LENGTH);
      setSignInCookie(reply, preSession, LINK_MINUTES * 60);
      const language = languageOf(request);
      const binding = backpack.signInBinding(preSession);
      return send(reply, 200, (nonce) => confirmSignInPage(nonce, action, binding, language), language);
    },
  );

  app.post(
    '/backpack/sign-in/:link',
    {
      schema: {
        operationId: 'signInToBackpack',
        description:
          'Open form post (binding), from the page the link opens: the post must carry that page’s pre-session cookie and its binding, and come from this origin, else 403 and the link is not spent (login CSRF). Spends the link (once, within 15 minutes), creates the account on first use, links every credential of the address on the service and sets the session cookie (HttpOnly, SameSite=Lax).',
        tags,
        summary:
          'Follows a sign-in link once: opens (or creates) the account, links its badges, sets the session cookie',
        params: LinkParams,
        querystring: NextQuery,
        consumes: [FORM],
        body: SignInLinkBody,
        response: {
          303: seeOther('Signed in: on to the backpack, or to where the earner was going'),
          400: htmlOrInvalid('The link was used, has expired or is not a sign-in link'),
          403: htmlPage('The post did not come from the link’s page in this browser; nothing was signed in'),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      const language = languageOf(request);
      if (!startedHere(request, request.body.binding)) {
        return send(reply, 403, (nonce) => signInNotStartedHerePage(nonce, language), language);
      }
      setSignInCookie(reply, '', 0);
      const signedIn = await backpack.signIn(request.params.link);
      if (!signedIn) return send(reply, 400, (nonce) => linkUnusablePage(nonce, language), language);
      setCookie(reply, signedIn.token, SESSION_HOURS * 3600);
      setNamedCookie(reply, BACKPACK_ADDRESS_COOKIE, signedIn.sealedAddress, SESSION_HOURS * 3600);
      return reply.header('cache-control', 'no-store').redirect(localPath(request.query.next) ?? '/backpack', 303);
    },
  );

  app.post(
    '/backpack/sign-out',
    {
      schema: {
        operationId: 'signOutOfBackpack',
        description: 'Backpack session and its CSRF token (form field csrf). Ends the session.',
        tags,
        summary: 'Ends the backpack session',
        consumes: [FORM],
        body: CsrfBody,
        response: { 303: seeOther('Signed out'), ...errorResponses(400, 401, 403, ...openErrors) },
      },
    },
    async (request, reply) => {
      await backpack.signOut(await changingSession(request, request.body.csrf));
      setCookie(reply, '', 0);
      return reply.redirect('/backpack', 303);
    },
  );

  app.post(
    '/backpack/badges/:id/wallet',
    {
      schema: {
        operationId: 'offerBackpackBadgeToWallet',
        description:
          'Backpack session and its CSRF token. An OpenID4VCI offer for one of the earner’s own valid badges; another earner’s badge is 404.',
        tags,
        summary: 'A wallet offer (OpenID4VCI) for one of the earner’s own badges, shown as a QR code',
        consumes: [FORM],
        params: BadgeParams,
        body: CsrfBody,
        querystring: LangQuery,
        response: { 200: htmlPage('The offer'), ...errorResponses(400, 401, 403, 404, ...openErrors) },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      const offer = await backpack.walletOffer(session.accountId, request.params.id);
      const language = languageOf(request);
      const shown = { offer: offer.offer, qr: offer.qr, lcw: offer.learnerCredentialWallet.url };
      return send(reply, 200, (nonce) => walletOfferPage(nonce, shown, language), language);
    },
  );

  app.post(
    '/backpack/apps/:clientId/revoke',
    {
      schema: {
        operationId: 'revokeBackpackConnectedApp',
        description:
          'Backpack session and its CSRF token. "Revoke access" for a connected app: every grant the earner gave the client ends with its access and refresh tokens, so the client’s next call of the Open Badges API is 401; audited. A client the earner never allowed is 404.',
        tags,
        summary: 'Revokes a connected app’s access to the earner’s badges (its grants and tokens)',
        consumes: [FORM],
        params: AppParams,
        body: CsrfBody,
        response: {
          303: seeOther('Revoked: back to the backpack'),
          ...errorResponses(400, 401, 403, 404, ...openErrors),
        },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      if (!(await app.services.obapi.revokeApp(session.accountId, request.params.clientId))) {
        throw errors.notFound('Connected app');
      }
      return reply.redirect('/backpack', 303);
    },
  );

  app.post(
    '/backpack/sent/check',
    {
      schema: {
        operationId: 'checkBackpackSentCredential',
        description:
          'Backpack session and its CSRF token; `key` is the credential’s id as an app upserted it. Checks it as an import is checked (proof, issuer DID, status list, recipient against the signed-in address), from the same 20 checks per account per hour (429 past them), and keeps the outcome; audited. Another earner’s credential is 404.',
        tags,
        summary: 'Checks a credential an app sent into the backpack through the Open Badges API',
        consumes: [FORM],
        body: SentCheckBody,
        response: {
          303: seeOther('Checked: back to the backpack'),
          ...errorResponses(400, 401, 403, 404, ...openErrors),
        },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      if (!(await app.services.obapi.checkUpserted(session.accountId, addressOf(request), request.body.key))) {
        throw errors.notFound('Sent credential');
      }
      return reply.redirect('/backpack', 303);
    },
  );

  app.get(
    '/backpack/account/delete',
    {
      schema: {
        operationId: 'getBackpackAccountDeletion',
        description: 'Backpack session. The confirmation page; without a session, back to the sign-in form.',
        tags,
        summary: 'Asks the earner to confirm deleting their account',
        querystring: LangQuery,
        response: {
          200: htmlPage('The confirmation'),
          303: seeOther('Not signed in'),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      const session = await sessionOf(request);
      if (!session) return reply.redirect('/backpack', 303);
      const count = (await backpack.badges(session.accountId)).length;
      const language = languageOf(request);
      return send(reply, 200, (nonce) => deleteAccountPage(nonce, session.csrfToken, count, language), language);
    },
  );

  app.post(
    '/backpack/account/delete',
    {
      schema: {
        operationId: 'deleteBackpackAccount',
        description:
          'Backpack session and its CSRF token. Erases the account, its sessions, its links and what API clients stored in it, and revokes its grants; the issuers’ credentials stay.',
        tags,
        summary: 'Deletes the earner account and everything in it (the issuers’ records stay)',
        consumes: [FORM],
        body: CsrfBody,
        querystring: LangQuery,
        response: { 200: htmlPage('Deleted'), ...errorResponses(400, 401, 403, ...openErrors) },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      await backpack.deleteAccount(session.accountId);
      setCookie(reply, '', 0);
      const language = languageOf(request);
      return send(reply, 200, (nonce) => accountDeletedPage(nonce, language), language);
    },
  );
};
