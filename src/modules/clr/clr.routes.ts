import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors, openErrors } from '../../core/schemas.js';
import { IssueClrBody, IssuedClrSchema, PathwayIncompleteSchema } from './clr.schemas.js';

const IssuedClr = Type.Ref(IssuedClrSchema);
/** A signed CLR never changes; its credentials' status is in their issuers' status lists. */
const SIGNED_CACHE = 'public, max-age=300';

/** CLR 2.0: a pathway's ClrCredential issued through the API, and served open at its URL. */
export const clrRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { clr } = app.services;

  app.post(
    '/api/v1/pathways/:id/clr',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'issuePathwayClr',
        tags: ['Pathways'],
        summary: 'Issue a CLR 2.0 ClrCredential to a recipient who completed the pathway',
        description:
          'The ClrCredential holds the signed AchievementCredentials of the stages the recipient earned (a currently valid credential each), states the pathway order as `precedes` associations, and is signed with the issuer’s did:web key (Data Integrity eddsa-rdfc-2022). recipientEmail is hashed with the issuer salt at once and never stored. 201 with a new CLR; 200 with the CLR already issued when the same credentials earn it. A required stage not earned answers 409 pathway_incomplete (naming the missing stages); a pathway without stages 422 pathway_empty; another issuer’s pathway 404.',
        params: IdParams,
        body: IssueClrBody,
        response: {
          200: IssuedClr,
          201: IssuedClr,
          ...errorResponses(400, 404, 422, ...keyedErrors),
          409: { ...Type.Ref(PathwayIncompleteSchema), description: 'The recipient has not completed the pathway' },
        },
      },
    },
    async (request, reply) => {
      const { created, clr: issued } = await clr.issue(
        request.issuerId(),
        request.actor(),
        request.params.id,
        request.body.recipientEmail,
      );
      return reply.status(created ? 201 : 200).send(issued);
    },
  );

  app.get(
    '/v1/issuers/:slug/clr/:id',
    {
      schema: {
        operationId: 'getClrCredential',
        tags: ['Open Badges 3.0'],
        summary: 'A CLR 2.0 ClrCredential (Data Integrity eddsa-rdfc-2022), as signed',
        description:
          'Open, as the issuer’s OB 3.0 credentials are: the id is an unguessable UUID and the recipient appears only as the issuer’s salted email hash.',
        params: Type.Object({ slug: Type.String({ maxLength: 100 }), id: Type.String({ maxLength: 64 }) }),
        response: {
          200: {
            description: 'The signed ClrCredential',
            content: {
              'application/ld+json': { schema: Type.Object({}, { additionalProperties: true }) },
              'application/json': { schema: Type.Object({}, { additionalProperties: true }) },
            },
          },
          ...errorResponses(404, ...openErrors),
        },
      },
    },
    async (request, reply) => {
      const text = await clr.hosted(request.params.slug, request.params.id);
      return reply
        .header('content-type', 'application/ld+json; charset=utf-8')
        .header('cache-control', SIGNED_CACHE)
        .send(text);
    },
  );
};
