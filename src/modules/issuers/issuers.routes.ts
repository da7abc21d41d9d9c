import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { errors } from '../../core/errors.js';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import type { IssuerRow } from './issuers.repository.js';
import {
  ApiKeySchema,
  CreatedApiKey,
  CreateKeyBody,
  IssuerSchema,
  RotatedApiKey,
  RotateKeyBody,
  UpdateIssuerBody,
} from './issuers.schemas.js';

export const issuerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { issuers } = app.services;

  const view = (issuer: IssuerRow) => ({
    id: issuer.id,
    slug: issuer.slug,
    name: issuer.name,
    profileUrl: issuers.profileUrl(issuer.slug),
    url: issuer.url,
    email: issuer.email,
    description: issuer.description,
    imageUrl: issuer.image_url,
    brandColor: issuer.brand_primary_color,
    language: issuer.language,
    linkedinOrganizationId: issuer.linkedin_organization_id,
  });

  const slugOf = (request: FastifyRequest) => {
    if (!request.auth) throw errors.unauthorized();
    return request.auth.issuerSlug;
  };

  /** The issuer's keys as the console lists them; `revokedAt` only once the key has stopped. */
  async function keyViews(slug: string) {
    return (await issuers.listKeys(slug)).map((k) => ({
      id: k.id,
      prefix: k.prefix,
      name: k.label,
      createdAt: k.createdAt,
      revokedAt: k.active ? null : k.revokedAt,
      expiresAt: k.revokedAt,
      ...(k.rotatedFrom === null ? {} : { rotatedFrom: k.rotatedFrom }),
    }));
  }

  async function requireKey(slug: string, id: string) {
    const key = (await keyViews(slug)).find((k) => k.id === id);
    if (!key) throw errors.notFound('API key');
    return key;
  }

  app.get(
    '/api/v1/issuer/me',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getIssuerMe',
        tags: ['Issuer'],
        summary: 'The issuer the API key (or console session) belongs to',
        response: { 200: Type.Ref(IssuerSchema), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => view(await issuers.getIssuer(request.issuerId())),
  );

  app.patch(
    '/api/v1/issuer/me',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'updateIssuerMe',
        tags: ['Issuer'],
        summary: "Change the issuer's profile: shown on its Open Badges documents and verification pages",
        description:
          'The slug changes only while the issuer has neither issued a credential nor given an endorsement: 409 slug_locked after (credential and endorsement URLs and the did:web carry it), 409 slug_taken when another issuer has it.',
        body: UpdateIssuerBody,
        response: { 200: Type.Ref(IssuerSchema), ...errorResponses(400, 409, ...keyedErrors) },
      },
    },
    async (request) => view(await issuers.updateProfile(request.issuerId(), request.body, request.actor())),
  );

  app.get(
    '/api/v1/keys',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'listApiKeys',
        tags: ['Console'],
        summary: "The issuer's API keys with their stop times (owner, console session)",
        response: {
          200: Type.Object({ items: Type.Array(Type.Ref(ApiKeySchema)) }),
          ...errorResponses(...keyedErrors),
        },
      },
    },
    async (request) => ({ items: await keyViews(slugOf(request)) }),
  );

  app.post(
    '/api/v1/keys',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'createApiKey',
        tags: ['Console'],
        summary: 'Create an API key (owner, console session); the key is shown only in this answer',
        body: CreateKeyBody,
        response: { 201: CreatedApiKey, ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      const created = await issuers.createKey(slugOf(request), request.body.name ?? null, request.actor());
      return reply.status(201).send(created);
    },
  );

  app.post(
    '/api/v1/keys/:id/rotate',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'rotateApiKey',
        tags: ['Console'],
        summary:
          'Rotate this key: a new key now, with its label; this key alone stops after the grace period (owner, console session)',
        description:
          'Other keys are untouched. The new key keeps the label and lists rotatedFrom; the old key stops at the end of graceSeconds, or sooner if it already had a sooner stop. 404 when the key is unknown or has stopped.',
        params: IdParams,
        body: RotateKeyBody,
        response: { 201: RotatedApiKey, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      const slug = slugOf(request);
      const before = await requireKey(slug, request.params.id);
      const { key, label, previous } = await issuers.rotateKey(
        slug,
        before.id,
        request.body.graceSeconds,
        request.actor(),
      );
      return reply
        .status(201)
        .send({ ...key, name: label, rotatedFrom: previous.id, previousKeyExpiresAt: previous.stopsAt });
    },
  );

  app.post(
    '/api/v1/keys/:id/revoke',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'revokeApiKey',
        tags: ['Console'],
        summary: 'Revoke an API key now (owner, console session)',
        params: IdParams,
        response: { 200: Type.Ref(ApiKeySchema), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request) => {
      const slug = slugOf(request);
      const key = await requireKey(slug, request.params.id);
      if (key.revokedAt === null) await issuers.revokeKey(slug, key.id, request.actor());
      return requireKey(slug, key.id);
    },
  );
};
