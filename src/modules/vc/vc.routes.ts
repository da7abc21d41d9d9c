import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { errorResponses, openErrors } from '../../core/schemas.js';
import { parseAccept, qualityOf } from '../documents/negotiation.js';
import { MAX_STATUS_LIST } from './vc.service.js';

const Slug = Type.String({ maxLength: 100 });
const CredentialParams = Type.Object({ slug: Slug, id: Type.String({ maxLength: 104 }) });
/** `?download`: the same document as a file to save (the verification page's "Download" link). */
const CredentialQuery = Type.Object({
  download: Type.Optional(
    Type.String({ description: 'Present (any value): answered as an attachment, `<id>.json`, so a browser saves it.' }),
  ),
});
const StatusParams = Type.Object({ slug: Slug, list: Type.Integer({ minimum: 0, maximum: MAX_STATUS_LIST }) });

const JWT_SUFFIX = '.jwt';
/** A signed credential never changes; its status is read from the status list, which is never cached stale. */
const SIGNED_CACHE = 'public, max-age=300';
const NO_CACHE = 'no-cache';
/** A downloaded SVG runs nothing and loads nothing (as the Open Badges 2.0 images). */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const jsonLdObject = (description: string, types = ['application/ld+json', 'application/json']) => {
  const media = { schema: Type.Object({}, { additionalProperties: true }) };
  return { description, content: Object.fromEntries(types.map((type) => [type, media])) };
};

/**
 * `document` as JSON-LD, or as plain JSON when the client prefers that; a string is sent as it is
 * (a stored signed credential: its bytes are what was signed, and re-serialising a parsed copy
 * only cost time).
 */
function sendJsonLd(request: FastifyRequest, reply: FastifyReply, document: object | string, cacheControl: string) {
  const ranges = parseAccept(request.headers.accept ?? '');
  const plain = qualityOf(ranges, 'application/json') > qualityOf(ranges, 'application/ld+json');
  return reply
    .header('content-type', plain ? 'application/json; charset=utf-8' : 'application/ld+json; charset=utf-8')
    .header('cache-control', cacheControl)
    .header('vary', 'Accept')
    .send(document);
}

/** Open Badges 3.0 documents: open, CORS for any origin like every /v1 document (app.ts). */
export const vcRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { vc } = app.services;
  const tags = ['Open Badges 3.0'];
  const notFound = errorResponses(404, ...openErrors);

  app.get(
    '/v1/issuers/:slug/did.json',
    {
      schema: {
        operationId: 'getIssuerDidDocument',
        tags,
        summary: "The issuer's did:web DID document (every signing key as a Multikey and as a JsonWebKey)",
        params: Type.Object({ slug: Slug }),
        response: { 200: jsonLdObject('DID document', ['application/did+ld+json']), ...notFound },
      },
    },
    async (request, reply) => {
      const document = await vc.credentials.didDocument(request.params.slug);
      return reply
        .header('content-type', 'application/did+ld+json')
        .header('cache-control', 'public, max-age=300')
        .send(document);
    },
  );

  app.get(
    '/v1/issuers/:slug/credentials/:id',
    {
      schema: {
        operationId: 'getOpenBadgeCredential',
        tags,
        summary: 'Open Badges 3.0 OpenBadgeCredential (Data Integrity eddsa-rdfc-2022)',
        description:
          'Signed on the first fetch and stored. Revocation is in the credential’s status list. There is no VC-JWT of the hosted credential (the `.jwt` path is 404): OB 3.0 §8.2 requires `sub`, the subject’s id, and the hosted subject is a salted email hash; a wallet receives a holder-bound copy in both forms.',
        params: CredentialParams,
        querystring: CredentialQuery,
        response: {
          200: {
            description: 'The signed credential',
            content: {
              'application/ld+json': { schema: Type.Object({}, { additionalProperties: true }) },
              'application/json': { schema: Type.Object({}, { additionalProperties: true }) },
            },
          },
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      if (request.params.id.endsWith(JWT_SUFFIX)) {
        throw new AppError(
          'not_found',
          'A hosted credential has no VC-JWT: Open Badges 3.0 (8.2) requires `sub`, the subject id, and this subject is a hashed email. Use the Data Integrity form at the URL without .jwt; a wallet receives a holder-bound VC-JWT.',
        );
      }
      const signed = await vc.credentials.credential(request.params.slug, request.params.id);
      // A browser shows JSON it is sent (the `download` attribute is ignored across origins and
      // in mail clients); an attachment (RFC 6266) is saved, named by the id in file-name-safe characters.
      if (request.query.download !== undefined) {
        const name = request.params.id.replace(/[^A-Za-z0-9._-]/g, '_');
        reply.header('content-disposition', `attachment; filename="${name}.json"`);
      }
      return sendJsonLd(request, reply, signed.dataIntegrity, SIGNED_CACHE);
    },
  );

  app.get(
    '/v1/issuers/:slug/credentials/:id/baked.svg',
    {
      schema: {
        operationId: 'getBakedOpenBadgeCredential',
        tags,
        summary: 'The badge image (SVG) with the signed OpenBadgeCredential baked in (Open Badges 3.0 baking)',
        description:
          'The generated badge image with `<openbadges:credential>` holding the credential JSON (Data Integrity proof) in CDATA. Served as a download.',
        params: CredentialParams,
        response: {
          200: { description: 'Baked badge image', content: { 'image/svg+xml': { schema: Type.String() } } },
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      const svg = await vc.credentials.bakedSvg(request.params.slug, request.params.id);
      return reply
        .header('content-type', 'image/svg+xml; charset=utf-8')
        .header('content-disposition', 'attachment; filename="badge.svg"')
        .header('content-security-policy', SVG_CSP)
        .header('cache-control', SIGNED_CACHE)
        .send(svg);
    },
  );

  app.get(
    '/v1/issuers/:slug/credentials/:id/baked.png',
    {
      schema: {
        operationId: 'getBakedOpenBadgeCredentialPng',
        tags,
        summary: 'The badge image (PNG) with the signed OpenBadgeCredential baked in (Open Badges 3.0 baking)',
        description:
          "The achievement's PNG image, when this service hosts it (uploaded or designed in the console), with one iTXt chunk `openbadgecredential` holding the credential JSON. Any other image: 404 (baked.svg always exists). Served as a download.",
        params: CredentialParams,
        response: {
          200: {
            description: 'Baked badge image',
            content: { 'image/png': { schema: Type.String({ format: 'binary' }) } },
          },
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      const png = await vc.credentials.bakedPng(request.params.slug, request.params.id);
      return reply
        .header('content-type', 'image/png')
        .header('content-disposition', 'attachment; filename="badge.png"')
        .header('cache-control', SIGNED_CACHE)
        .send(png);
    },
  );

  app.get(
    '/v1/issuers/:slug/status/:list',
    {
      schema: {
        operationId: 'getStatusListCredential',
        tags,
        summary: "The issuer's revocation BitstringStatusListCredential (131,072 entries)",
        params: StatusParams,
        response: { 200: jsonLdObject('BitstringStatusListCredential'), ...notFound },
      },
    },
    async (request, reply) =>
      sendJsonLd(request, reply, await vc.credentials.statusList(request.params.slug, request.params.list), NO_CACHE),
  );
};
