import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.js';
import { errorResponses, openErrors, StringEnum, ValidationErrorBody } from '../../core/schemas.js';
import { backpackHttp } from './backpack.http.js';
import type { ImportSource } from './backpack.import.js';
import { importPage } from './backpack.import.pages.js';

const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';
/** A baked image or a pasted credential: an OB 3.0 credential with endorsements is well under this. */
const IMPORT_BODY_LIMIT = 2 * 1024 * 1024;
const IMAGE_TYPES = new Set(['image/png', 'image/svg+xml']);
/** A check may fetch several documents from other hosts: it is worth this many open requests. */
const IMPORT_COST = 10;

const ImportBody = Type.Object(
  {
    csrf: Type.String({ maxLength: 100 }),
    source: Type.Optional(
      Type.String({ maxLength: IMPORT_BODY_LIMIT, description: 'A URL, a JSON credential or a compact JWS' }),
    ),
    image: Type.Optional(
      Type.String({ maxLength: IMPORT_BODY_LIMIT * 2, contentEncoding: 'base64', description: 'A baked PNG or SVG' }),
    ),
    imageType: Type.Optional(StringEnum(['image/png', 'image/svg+xml'])),
  },
  { additionalProperties: false },
);
const CsrfBody = Type.Object({ csrf: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
const ImportParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
const htmlOrInvalid = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: Type.Ref(ValidationErrorBody) } },
});
const seeOther = (description: string) => ({ description, ...Type.Null() });

/** A multipart form's fields (WHATWG FormData, as Node's fetch parses it): text as is, a file as base64. */
async function multipartFields(body: Buffer, contentType: string): Promise<Record<string, string>> {
  const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  const fields: Record<string, string> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields[name] = value;
    else if (value.size > 0) {
      fields[name] = Buffer.from(await value.arrayBuffer()).toString('base64');
      fields[`${name}Type`] = value.type;
    }
  }
  return fields;
}

/**
 * Importing into the backpack (issue 47 §1): the form, the import itself (a pasted URL, JSON or
 * JWS, or a baked PNG or SVG as a multipart upload), checking an import again and removing it.
 * Every change is a POST with the session's CSRF token.
 */
export const backpackImportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { backpack } = app.services;
  const { send, sessionOf, changingSession, addressOf, languageOf } = backpackHttp(app);
  const tags = ['Backpack'];

  if (app.hasContentTypeParser(FORM)) app.removeContentTypeParser(FORM);
  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addContentTypeParser(MULTIPART, { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT }, (request, body, done) => {
    multipartFields(body as Buffer, String(request.headers['content-type'])).then(
      (fields) => done(null, fields),
      () => done(new AppError('validation_failed', 'The form could not be read.'), undefined),
    );
  });

  app.get(
    '/backpack/import',
    {
      schema: {
        operationId: 'getBackpackImport',
        description: 'Backpack session. The import form; without a session, back to the sign-in form.',
        tags,
        summary: 'The form that imports a badge from another platform',
        response: { 200: htmlPage('The form'), 303: seeOther('Not signed in'), ...errorResponses(...openErrors) },
      },
    },
    async (request, reply) => {
      const session = await sessionOf(request);
      if (!session) return reply.redirect('/backpack', 303);
      const language = languageOf(request);
      return send(reply, 200, (nonce) => importPage(nonce, session.csrfToken, undefined, language), language);
    },
  );

  app.post(
    '/backpack/imports',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      config: { rateLimitCost: () => IMPORT_COST },
      schema: {
        operationId: 'importIntoBackpack',
        description:
          'Backpack session and its CSRF token; a form post (source) or a multipart upload (image: a baked PNG or SVG). Imports an Open Badges 2.0 assertion (its URL or a baked image) or an Open Badges 3.0 credential (its URL, JSON, compact JWS or a baked image) from another host and checks it before showing it: hosted verification for OB 2.0; the proof (eddsa-rdfc-2022, Ed25519Signature2020, or a VC-JWT by the issuer’s DID key), the recipient and the status list for OB 3.0. One that cannot be checked is kept, marked not verified, with the reason. At most 20 checks per account per hour (429).',
        tags,
        summary: 'Imports a badge from another platform, checked before it is shown',
        consumes: [FORM, MULTIPART],
        body: ImportBody,
        response: {
          303: seeOther('Imported: on to the backpack, at the import'),
          400: htmlOrInvalid('Nothing to import, or not a badge'),
          ...errorResponses(401, 403, 413, 429, ...openErrors),
        },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      const { image, imageType, source } = request.body;
      let input: ImportSource;
      if (image !== undefined) {
        if (!imageType || !IMAGE_TYPES.has(imageType)) {
          const language = languageOf(request);
          const error = 'Choose a PNG or SVG badge image.';
          return send(reply, 400, (nonce) => importPage(nonce, session.csrfToken, error, language), language);
        }
        input = { image: Buffer.from(image, 'base64'), mediaType: imageType };
      } else input = { text: source ?? '' };
      try {
        const imported = await backpack.imports.importCredential(session.accountId, addressOf(request), input);
        return reply.redirect(`/backpack#import-${imported.id}`, 303);
      } catch (error) {
        if (!(error instanceof AppError) || (error.code !== 'validation_failed' && error.code !== 'invalid_image')) {
          throw error;
        }
        const language = languageOf(request);
        return send(reply, 400, (nonce) => importPage(nonce, session.csrfToken, error.message, language), language);
      }
    },
  );

  app.post(
    '/backpack/imports/:id/check',
    {
      config: { rateLimitCost: () => IMPORT_COST },
      schema: {
        operationId: 'checkBackpackImport',
        description:
          'Backpack session and its CSRF token. Checks one of the earner’s imports again (its status may have changed); counts against the 20 checks an hour. Another earner’s import is 404.',
        tags,
        summary: 'Checks an imported badge again',
        consumes: [FORM],
        params: ImportParams,
        body: CsrfBody,
        response: { 303: seeOther('Checked'), ...errorResponses(400, 401, 403, 404, 429, ...openErrors) },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      const checked = await backpack.imports.recheck(session.accountId, addressOf(request), request.params.id);
      return reply.redirect(`/backpack#import-${checked.id}`, 303);
    },
  );

  app.post(
    '/backpack/imports/:id/delete',
    {
      schema: {
        operationId: 'deleteBackpackImport',
        description:
          'Backpack session and its CSRF token. Removes one of the earner’s imports; another earner’s is 404.',
        tags,
        summary: 'Removes an imported badge from the backpack',
        consumes: [FORM],
        params: ImportParams,
        body: CsrfBody,
        response: { 303: seeOther('Removed'), ...errorResponses(400, 401, 403, 404, ...openErrors) },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      await backpack.imports.remove(session.accountId, request.params.id);
      return reply.redirect('/backpack', 303);
    },
  );
};
