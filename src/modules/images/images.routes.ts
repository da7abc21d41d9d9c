import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../core/errors.js';
import { rawRequestBody } from '../../core/openapi.js';
import { errorResponses, IdParams, keyedErrors, openErrors } from '../../core/schemas.js';
import { IMAGE_MAX_BYTES, IMAGE_TYPES, type ImageType } from './images.service.js';

/** An image runs nothing and loads nothing, even opened on its own in a browser. */
const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { images } = app.services;

  for (const type of IMAGE_TYPES) {
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: IMAGE_MAX_BYTES }, (_request, body, done) =>
      done(null, body),
    );
  }

  app.post(
    '/api/v1/images',
    {
      config: { auth: 'key' },
      bodyLimit: IMAGE_MAX_BYTES,
      schema: {
        operationId: 'uploadImage',
        tags: ['Images'],
        summary: 'Upload a badge image or logo (PNG up to 2048 px, or SVG, sanitised), at most 256 KiB',
        ...rawRequestBody(
          IMAGE_TYPES,
          'The image bytes: a PNG (at most 2048 px a side) or an SVG (sanitised), at most 256 KiB.',
        ),
        response: {
          201: Type.Object({ id: Type.String(), url: Type.String({ format: 'uri' }), contentType: Type.String() }),
          ...errorResponses(400, 413, 415, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() as ImageType;
      if (!IMAGE_TYPES.includes(type) || !Buffer.isBuffer(request.body)) {
        throw errors.validation('Send the image as the body, with Content-Type image/png or image/svg+xml.');
      }
      const uploaded = await images.upload(request.issuerId(), type, request.body, request.actor());
      return reply.status(201).send(uploaded);
    },
  );

  app.get(
    '/v1/images/:id',
    {
      schema: {
        operationId: 'getImage',
        tags: ['Images'],
        summary: 'An uploaded image, served with a long immutable cache and a policy that runs nothing',
        params: IdParams,
        response: {
          200: { description: 'The image', content: { 'image/png': { schema: {} }, 'image/svg+xml': { schema: {} } } },
          ...errorResponses(404, ...openErrors),
        },
      },
    },
    async (request, reply) => {
      const image = await images.read(request.params.id);
      return reply
        .header('content-type', image.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('content-security-policy', IMAGE_CSP)
        .header('x-content-type-options', 'nosniff')
        .send(image.bytes);
    },
  );
};
