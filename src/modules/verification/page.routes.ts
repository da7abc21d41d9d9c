import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiateLanguage, requestLanguageSources } from '../../core/locale.js';
import { ErrorBody, errorResponses, openErrors } from '../../core/schemas.js';
import { embedScript } from './embed.js';
import { PAGE_CSS, PAGE_JS } from './page.assets.js';
import { languageHeaders, PAGE_CSS_PATH, PAGE_JS_PATH, PageQuery, pageCsp } from './page.document.js';
import { renderNotFoundPage, renderVerificationPage } from './page.js';

const CSP_NONCE_LENGTH = 24;
const HTML = 'text/html; charset=utf-8';
const htmlResponse = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() } },
});
/** The HTML 404 page; a path too long to be routed at all gets the JSON Error body instead. */
const notFoundResponse = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: Type.Ref(ErrorBody) } },
});

/** If-None-Match (RFC 9110 §13.1.2): `*` or any listed tag equal to `etag` under weak comparison. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}

/** A URL is at most 8 KiB (app.ts answers 414 beyond), so no segment of one is longer. */
const Segment = (description: string) => Type.String({ maxLength: 8192, description });
const PageSlug = Segment('The issuer slug; an unknown one answers the 404 page.');
const PageId = Segment('The credential id; one that names no credential of this issuer answers the 404 page.');
const PageParams = Type.Object({ slug: PageSlug, id: PageId });
function notFoundPage(request: FastifyRequest, reply: FastifyReply, nonce: string) {
  const language = negotiateLanguage(requestLanguageSources(request));
  return languageHeaders(reply, language).status(404).send(renderNotFoundPage(nonce, language));
}
const ShareParams = Type.Object({
  slug: PageSlug,
  id: PageId,
  action: Segment('linkedin, share_link, wallet_apple or wallet_google; any other answers 404.'),
});

/** The browser-facing side of verification: the page, its share redirects, its assets and the embed. */
export const pageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { page, country, verifier } = app.services.verification;
  const { ids, config } = app.core;
  const embed = embedScript(config.publicBaseUrl);
  const tags = ['Verification'];

  app.get(
    '/verify/:slug/:id',
    {
      schema: {
        operationId: 'getVerificationPage',
        tags,
        summary: 'Human verification page with QR code (HTML)',
        description: 'Unknown ids, and ids that are not the named issuer’s, answer a 404 page.',
        params: PageParams,
        querystring: PageQuery,
        response: {
          200: htmlResponse('The verification page'),
          404: notFoundResponse('No such credential at this issuer'),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      const nonce = ids.token(CSP_NONCE_LENGTH);
      const view = await page.view(
        request.params.slug,
        request.params.id,
        verifier(request),
        request.method === 'GET',
        requestLanguageSources(request),
      );
      reply.header('content-type', HTML).header('content-security-policy', pageCsp(nonce));
      // Revocation and expiry must show at once, so nothing may serve a stored copy.
      reply.header('cache-control', 'no-cache');
      if (!view) return notFoundPage(request, reply, nonce);
      return languageHeaders(reply, view.language).send(await renderVerificationPage(view, nonce));
    },
  );

  app.get(
    '/verify/:slug/:id/share/:action',
    {
      schema: {
        operationId: 'shareCredential',
        tags,
        summary: 'Record a share action and redirect to its target',
        description:
          'action is linkedin (LinkedIn add-to-profile), share_link (the verification page), or wallet_apple / wallet_google (the wallet-pass service set by WALLET_APPLE_PASS_URL / WALLET_GOOGLE_PASS_URL; 404 when unset). The target is always built by the server. A revoked credential, or an expired one for anything but share_link, goes back to its page unrecorded.',
        params: ShareParams,
        response: {
          302: Type.Null({ description: 'Redirect to the share target (Location)' }),
          404: notFoundResponse('Unknown action, or no such credential at this issuer'),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      const { slug, id, action } = request.params;
      const target = await page.share(slug, id, action, country(request.headers), request.method === 'GET');
      reply.header('cache-control', 'no-store');
      if (target) return reply.redirect(target, 302);
      const nonce = ids.token(CSP_NONCE_LENGTH);
      reply.header('content-type', HTML).header('content-security-policy', pageCsp(nonce));
      return notFoundPage(request, reply, nonce);
    },
  );

  for (const [path, body, type] of [
    [PAGE_CSS_PATH, PAGE_CSS, 'text/css; charset=utf-8'],
    [PAGE_JS_PATH, PAGE_JS, 'application/javascript; charset=utf-8'],
  ] as const) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      // The page links these with a content-hash query, so a new version is a new URL.
      reply.header('content-type', type).header('cache-control', 'public, max-age=31536000, immutable').send(body),
    );
  }

  app.get(
    '/embed/v1.js',
    {
      schema: {
        operationId: 'getEmbedScript',
        tags,
        summary: 'Script that renders live-verified badges and earner wallets',
        description:
          'Add <div data-service-credential="ASSERTION_URL"></div> or <div data-service-profile="PROFILE_URL"></div> and <script src="/embed/v1.js" async></script>.',
        response: {
          200: { description: 'The script', content: { 'application/javascript': { schema: Type.String() } } },
          304: { description: 'Not modified (no body)' },
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'public, max-age=3600').header('etag', embed.etag);
      // A 304 has no body, so no content type or length either (RFC 9110 §15.4.5).
      if (noneMatch(request.headers['if-none-match'], embed.etag)) return reply.status(304).send();
      return reply.header('content-type', 'application/javascript; charset=utf-8').send(embed.script);
    },
  );
};
