import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { DEFAULT_LANGUAGE, type Language, negotiateLanguage, requestLanguageSources } from '../../core/locale.js';
import { backpackCsp } from './backpack.layout.js';
import type { EarnerSession } from './backpack.service.js';

/** The backpack's session cookie (an earner's, apart from the console's). */
export const BACKPACK_COOKIE = 'accolade_backpack';
/** The signed-in address sealed to the session token: only the earner's browser holds it. */
export const BACKPACK_ADDRESS_COOKIE = 'accolade_backpack_address';
const HTML = 'text/html; charset=utf-8';
const NONCE_LENGTH = 24;

/** What every backpack route does the same way: its pages, its cookies and its sessions. */
export function backpackHttp(app: FastifyInstance) {
  const { backpack } = app.services;
  const { ids } = app.core;

  function cookie(request: FastifyRequest, name: string): string | null {
    const header = request.headers.cookie;
    if (typeof header !== 'string' || !header.includes(name)) return null;
    return parseCookie(header)[name] ?? null;
  }

  async function sessionOf(request: FastifyRequest): Promise<EarnerSession | null> {
    return backpack.authenticate(cookie(request, BACKPACK_COOKIE));
  }

  return {
    /** A page in `language` (the request's, by `languageOf`), never cached. */
    send(
      reply: FastifyReply,
      status: number,
      render: (nonce: string) => string,
      language: Language = DEFAULT_LANGUAGE,
    ) {
      const nonce = ids.token(NONCE_LENGTH);
      return reply
        .status(status)
        .header('content-type', HTML)
        .header('content-security-policy', backpackCsp(nonce))
        .header('cache-control', 'no-store')
        .header('content-language', language)
        .header('vary', 'Accept-Language')
        .send(render(nonce));
    },

    /**
     * The language of a backpack page (issue 45 §2): `?lang=`, else Accept-Language by q-value,
     * else English. The backpack holds badges of many credentials and issuers, so neither's
     * language is a fallback here.
     */
    languageOf(request: FastifyRequest): Language {
      return negotiateLanguage(requestLanguageSources(request));
    },

    setCookie(reply: FastifyReply, name: string, value: string, maxAge: number) {
      reply.header(
        'set-cookie',
        stringifySetCookie({
          name,
          value,
          httpOnly: true,
          sameSite: 'lax',
          path: '/',
          secure: backpack.secureCookies,
          maxAge,
        }),
      );
    },

    cookie,
    sessionOf,

    /** The signed-in address of the request's session, or null when its cookie is missing or not this session's. */
    addressOf(request: FastifyRequest): string | null {
      const token = cookie(request, BACKPACK_COOKIE);
      return token ? backpack.addressOf(token, cookie(request, BACKPACK_ADDRESS_COOKIE)) : null;
    },

    /** The session of a change: signed in, and the form's CSRF token is the session's. */
    async changingSession(request: FastifyRequest, csrf: string): Promise<EarnerSession> {
      const session = await sessionOf(request);
      if (!session) throw new AppError('unauthorized', 'Sign in to your backpack first.');
      if (csrf !== session.csrfToken) throw new AppError('csrf_failed', 'The form is out of date; reload the page.');
      return session;
    },
  };
}
