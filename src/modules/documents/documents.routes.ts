import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../core/errors.js';
import { canonicalLanguage } from '../../core/language.js';
import { errorResponses, openErrors } from '../../core/schemas.js';
import type { Edition } from './documents.builders.js';
import {
  BadgeEditionParams,
  BadgeParams,
  BadgeVersionEditionParams,
  BadgeVersionParams,
  DocumentParams,
  IssuerParams,
  ObAssertionSchema,
  ObBadgeClassSchema,
  ObEndorsementSchema,
  ObEndorserProfileSchema,
  ObIssuerSchema,
  ObRevokedAssertionSchema,
} from './documents.schemas.js';
import { contentTypes, negotiate } from './negotiation.js';

/** Issuer, badge and endorsement documents change rarely; assertions must show revocation at once. */
const SHORT_CACHE = 'public, max-age=300';
const NO_CACHE = 'no-cache';
/** An SVG opened directly in a browser may never run script or load anything. */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

function jsonLd(schema: TSchema, description: string) {
  const media = { schema: Type.Ref(schema) };
  return { description, content: { 'application/ld+json': media, 'application/json': media } };
}

const svgImage = (description: string) => ({ description, content: { 'image/svg+xml': { schema: Type.String() } } });

function varyOnAccept(reply: FastifyReply): void {
  const existing = reply.getHeader('vary');
  const values = typeof existing === 'string' && existing !== '' ? `${existing}, Accept` : 'Accept';
  reply.header('vary', values);
}

/** Sends a JSON-LD document as the client prefers it: application/ld+json, or plain JSON when that is all it takes. */
function sendDocument(
  request: FastifyRequest,
  reply: FastifyReply,
  document: object,
  cacheControl: string,
  status = 200,
) {
  const format = negotiate(request.headers.accept, { html: false });
  varyOnAccept(reply);
  return reply
    .status(status)
    .header('content-type', contentTypes[format === 'json' ? 'json' : 'ld+json'])
    .header('cache-control', cacheControl)
    .send(document);
}

/**
 * The edition a URL names. A language tag not in its canonical form names no edition (404), so
 * each edition has one URL and its id is that URL.
 */
function editionParams(params: { lang?: string; version?: number }): Edition {
  const language = params.lang ?? null;
  if (language !== null && canonicalLanguage(language) !== language) throw errors.notFound('BadgeClass');
  return { version: params.version ?? null, language };
}

function sendSvg(reply: FastifyReply, svg: string, cacheControl: string) {
  return reply
    .header('content-type', 'image/svg+xml; charset=utf-8')
    .header('cache-control', cacheControl)
    .header('content-security-policy', SVG_CSP)
    .send(svg);
}

/** The public Open Badges 2.0 documents (no key; CORS for any origin is configured in app.ts). */
export const documentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { documents } = app.services;
  const tags = ['Open Badges documents'];
  const notFound = errorResponses(404, ...openErrors);

  app.get(
    '/v1/issuers/:slug',
    {
      schema: {
        operationId: 'getIssuerProfileDocument',
        tags,
        summary: 'Open Badges 2.0 Issuer Profile (JSON-LD)',
        params: IssuerParams,
        response: { 200: jsonLd(ObIssuerSchema, 'Issuer Profile'), ...notFound },
      },
    },
    async (request, reply) =>
      sendDocument(request, reply, await documents.issuerProfile(request.params.slug), SHORT_CACHE),
  );

  app.get(
    '/v1/issuers/:slug/badges/:defSlug',
    {
      schema: {
        operationId: 'getBadgeClassDocument',
        tags,
        summary: 'Open Badges 2.0 BadgeClass of a definition (JSON-LD)',
        params: BadgeParams,
        response: { 200: jsonLd(ObBadgeClassSchema, 'BadgeClass'), ...notFound },
      },
    },
    async (request, reply) =>
      sendDocument(
        request,
        reply,
        await documents.badgeClass(request.params.slug, request.params.defSlug),
        SHORT_CACHE,
      ),
  );

  app.get(
    '/v1/issuers/:slug/badges/:defSlug/image.svg',
    {
      schema: {
        operationId: 'getBadgeClassImage',
        tags,
        summary: 'The generated badge image (SVG) of a definition',
        params: BadgeParams,
        response: { 200: svgImage('Badge image'), ...notFound },
      },
    },
    async (request, reply) =>
      sendSvg(reply, await documents.badgeImage(request.params.slug, request.params.defSlug), SHORT_CACHE),
  );

  // The other editions of a BadgeClass: its language editions and its versions (docs/decisions.md,
  // "BadgeClass URLs of versions and language editions").
  const editions = [
    {
      path: '/in/:lang',
      operation: 'Edition',
      params: BadgeEditionParams,
      what: 'a language edition of the current BadgeClass',
    },
    {
      path: '/versions/:version',
      operation: 'Version',
      params: BadgeVersionParams,
      what: 'an earlier or the current version',
    },
    {
      path: '/versions/:version/in/:lang',
      operation: 'VersionEdition',
      params: BadgeVersionEditionParams,
      what: 'a language edition of a version',
    },
  ] as const;
  for (const { path, operation, params, what } of editions) {
    app.get(
      `/v1/issuers/:slug/badges/:defSlug${path}`,
      {
        schema: {
          operationId: `getBadgeClass${operation}Document`,
          tags,
          summary: `Open Badges 2.0 BadgeClass: ${what} (JSON-LD)`,
          description:
            'Its `@language` and text are those of the edition; `related` lists the other language editions of the same version. A language is named by its canonical BCP 47 tag and must be one the definition was translated into; the definition’s own language is the edition without `/in/`.',
          params,
          response: { 200: jsonLd(ObBadgeClassSchema, 'BadgeClass edition'), ...notFound },
        },
      },
      async (request, reply) => {
        const { slug, defSlug } = request.params;
        return sendDocument(
          request,
          reply,
          await documents.badgeClass(slug, defSlug, editionParams(request.params)),
          SHORT_CACHE,
        );
      },
    );
    app.get(
      `/v1/issuers/:slug/badges/:defSlug${path}/image.svg`,
      {
        schema: {
          operationId: `getBadgeClass${operation}Image`,
          tags,
          summary: `The generated badge image (SVG) of ${what}`,
          description: 'The badge drawn with the name of that edition, in its language.',
          params,
          response: { 200: svgImage('Badge image'), ...notFound },
        },
      },
      async (request, reply) => {
        const { slug, defSlug } = request.params;
        return sendSvg(reply, await documents.badgeImage(slug, defSlug, editionParams(request.params)), SHORT_CACHE);
      },
    );
  }

  app.get(
    '/v1/issuers/:slug/assertions/:id',
    {
      schema: {
        operationId: 'getAssertionDocument',
        tags,
        summary: 'Open Badges 2.0 Assertion (JSON-LD, hosted verification)',
        description:
          'Revoked: 410 with the revocation stub. A client whose top preference is text/html is redirected (303) to the verification page.',
        params: DocumentParams,
        response: {
          200: jsonLd(ObAssertionSchema, 'Assertion'),
          303: { type: 'null', description: 'Browser: see the human verification page (Location)' },
          410: jsonLd(ObRevokedAssertionSchema, 'Revoked'),
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      const outcome = await documents.assertion(request.params.slug, request.params.id);
      if (negotiate(request.headers.accept, { html: true }) === 'html') {
        varyOnAccept(reply);
        return reply.header('cache-control', NO_CACHE).redirect(outcome.verifyPageUrl, 303);
      }
      return sendDocument(request, reply, outcome.document, NO_CACHE, outcome.revoked ? 410 : 200);
    },
  );

  app.get(
    '/v1/issuers/:slug/assertions/:id/image.svg',
    {
      schema: {
        operationId: 'getAssertionImage',
        tags,
        summary: 'The badge image baked with its assertion (Open Badges 2.0 SVG baking)',
        params: DocumentParams,
        response: {
          200: svgImage('Baked badge image'),
          410: jsonLd(ObRevokedAssertionSchema, 'Revoked'),
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      const outcome = await documents.assertionImage(request.params.slug, request.params.id);
      if (outcome.revoked) return sendDocument(request, reply, outcome.document, NO_CACHE, 410);
      return sendSvg(reply, outcome.svg, NO_CACHE);
    },
  );

  const anyJson = (description: string, media: string) => ({
    description,
    content: { [media]: { schema: Type.Object({}, { additionalProperties: true }) } },
  });
  app.get(
    '/v1/extensions/achievement-metadata/context.json',
    {
      schema: {
        operationId: 'getAchievementExtensionContext',
        tags,
        summary: 'The JSON-LD context of the badge-data extension of Open Badges 2.0 BadgeClasses',
        description:
          'Defines achievementType, creditsAvailable, fieldOfStudy, specialization, humanCode and targetType as the OB 3.0 vocabulary does, and links the JSON Schema the extension objects pass (TypeValidation).',
        response: { 200: anyJson('JSON-LD context', 'application/ld+json'), ...errorResponses(...openErrors) },
      },
    },
    async (_request, reply) =>
      reply
        .header('content-type', contentTypes['ld+json'])
        .header('cache-control', SHORT_CACHE)
        .send(documents.extensionContext()),
  );
  app.get(
    '/v1/extensions/achievement-metadata/schema.json',
    {
      schema: {
        operationId: 'getAchievementExtensionSchema',
        tags,
        summary: 'The JSON Schema of the badge-data extension of Open Badges 2.0 BadgeClasses',
        description: 'What an extensions:AchievementMetadata or extensions:AlignmentTargetType object holds.',
        response: { 200: anyJson('JSON Schema', 'application/schema+json'), ...errorResponses(...openErrors) },
      },
    },
    async (_request, reply) =>
      reply
        .header('content-type', 'application/schema+json; charset=utf-8')
        .header('cache-control', SHORT_CACHE)
        .send(documents.extensionSchema()),
  );

  app.get(
    '/v1/issuers/:slug/endorsements/:id',
    {
      schema: {
        operationId: 'getEndorsementDocument',
        tags,
        summary: 'Open Badges 2.0 Endorsement (JSON-LD)',
        params: DocumentParams,
        response: { 200: jsonLd(ObEndorsementSchema, 'Endorsement'), ...notFound },
      },
    },
    async (request, reply) =>
      sendDocument(request, reply, await documents.endorsement(request.params.slug, request.params.id), SHORT_CACHE),
  );

  app.get(
    '/v1/issuers/:slug/endorsements/:id/issuer',
    {
      schema: {
        operationId: 'getEndorserProfileDocument',
        tags,
        summary: "Open Badges 2.0 Profile of an endorsement's endorser (JSON-LD)",
        params: DocumentParams,
        response: { 200: jsonLd(ObEndorserProfileSchema, 'Endorser Profile'), ...notFound },
      },
    },
    async (request, reply) =>
      sendDocument(
        request,
        reply,
        await documents.endorserProfile(request.params.slug, request.params.id),
        SHORT_CACHE,
      ),
  );
};
