import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, openErrors, StringEnum } from '../../core/schemas.js';
import { collectionGonePage, publicCollectionPage } from './backpack.collections.pages.js';
import { backpackHttp } from './backpack.http.js';

const FORM = 'application/x-www-form-urlencoded';
const CollectionParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const PublicParams = Type.Object({ publicId: Type.String({ maxLength: 64 }) });
const CsrfBody = Type.Object({ csrf: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
const NameBody = Type.Object(
  { csrf: Type.String({ maxLength: 100 }), name: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
const BadgeBody = Type.Object(
  { csrf: Type.String({ maxLength: 100 }), credentialId: Type.String({ minLength: 1, maxLength: 104 }) },
  { additionalProperties: false },
);
const VisibilityBody = Type.Object(
  { csrf: Type.String({ maxLength: 100 }), public: StringEnum(['true', 'false']) },
  { additionalProperties: false },
);
const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
const seeOther = (description: string) => ({ description, ...Type.Null() });

/**
 * The earner's collections (issue 47 §1): make one, add and remove badges, make it public or
 * private, delete it; every change a POST with the session's CSRF token, back to the backpack. The
 * public page of a public collection is open: one indexed read of at most MAX_COLLECTION_BADGES
 * badges, priced as one open request like the other public pages.
 */
export const backpackCollectionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { collections } = app.services.backpack;
  const { send, changingSession, languageOf } = backpackHttp(app);
  const tags = ['Backpack'];
  const back = '/backpack#collections';

  const change = (operationId: string, summary: string, description: string) => ({
    operationId,
    description: `Backpack session and its CSRF token. ${description} Audited; another earner’s collection is 404.`,
    tags,
    summary,
    consumes: [FORM],
    params: CollectionParams,
    response: { 303: seeOther('Done: back to the backpack'), ...errorResponses(400, 401, 403, 404, ...openErrors) },
  });

  app.post(
    '/backpack/collections',
    {
      schema: {
        operationId: 'createBackpackCollection',
        description:
          'Backpack session and its CSRF token. A new private collection with the name given (at most 20 per account); audited.',
        tags,
        summary: 'Makes a new (private) collection of the earner’s badges',
        consumes: [FORM],
        body: NameBody,
        response: { 303: seeOther('Created: back to the backpack'), ...errorResponses(400, 401, 403, ...openErrors) },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      await collections.create(session.accountId, request.body.name);
      return reply.redirect(back, 303);
    },
  );

  app.post(
    '/backpack/collections/:id/add',
    {
      schema: {
        ...change(
          'addToBackpackCollection',
          'Adds one of the earner’s badges to a collection',
          'Adds one of the earner’s own badges (credentialId; another’s is 404) to the collection, at most 100.',
        ),
        body: BadgeBody,
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      await collections.add(session.accountId, request.params.id, request.body.credentialId);
      return reply.redirect(back, 303);
    },
  );

  app.post(
    '/backpack/collections/:id/remove',
    {
      schema: {
        ...change('removeFromBackpackCollection', 'Takes a badge out of a collection', 'Takes the badge out.'),
        body: BadgeBody,
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      await collections.remove(session.accountId, request.params.id, request.body.credentialId);
      return reply.redirect(back, 303);
    },
  );

  app.post(
    '/backpack/collections/:id/visibility',
    {
      schema: {
        ...change(
          'setBackpackCollectionVisibility',
          'Makes a collection public (a page with the partial name) or private again',
          'public=true gives the collection a public page at a new random address, /collections/{publicId}; public=false removes that page (404 from then on).',
        ),
        body: VisibilityBody,
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      await collections.setPublic(session.accountId, request.params.id, request.body.public === 'true');
      return reply.redirect(back, 303);
    },
  );

  app.post(
    '/backpack/collections/:id/delete',
    {
      schema: {
        ...change('deleteBackpackCollection', 'Deletes a collection', 'Deletes the collection and its public page.'),
        body: CsrfBody,
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      await collections.delete(session.accountId, request.params.id);
      return reply.redirect(back, 303);
    },
  );

  app.get(
    '/collections/:publicId',
    {
      schema: {
        operationId: 'getPublicCollection',
        description:
          'Open. The public page of a collection an earner made public: its name, the earner’s partial name (first name and last initial, as the earners’ profiles) and its badges (revoked ones left out), each linking to its verification page. 404 once the earner makes it private or deletes it.',
        tags,
        summary: 'A public collection of an earner’s badges (HTML)',
        params: PublicParams,
        querystring: Type.Object({
          lang: Type.Optional(
            Type.String({
              maxLength: 35,
              description: 'The page language (BCP 47); else Accept-Language, else English',
            }),
          ),
        }),
        response: { 200: htmlPage('The collection'), 404: htmlPage('Not public'), ...errorResponses(...openErrors) },
      },
    },
    async (request, reply) => {
      const collection = await collections.publicView(request.params.publicId);
      const language = languageOf(request);
      if (!collection) return send(reply, 404, (nonce) => collectionGonePage(nonce, language), language);
      return send(reply, 200, (nonce) => publicCollectionPage(nonce, collection, language), language);
    },
  );
};
