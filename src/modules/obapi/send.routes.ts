import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { requestLanguageSources, textLanguages } from '../../core/locale.js';
import { errorResponses, openErrors, ValidationErrorBody } from '../../core/schemas.js';
import { backpackHttp } from '../backpack/backpack.http.js';
import { RemoteRefusal } from './send.client.js';
import { continuePage, sendDeclinedPage, sendFailedPage, sendPage, sentPage } from './send.pages.js';
import { SEND_CALLBACK_PATH, SEND_CREDENTIALS_MAX } from './send.service.js';

const FORM = 'application/x-www-form-urlencoded';
const FORM_LIMIT = 64 * 1024;
/** A start fetches the other platform's discovery document and may register there: worth this many open requests. */
const SEND_COST = 10;
/** The callback exchanges a code and upserts up to SEND_CREDENTIALS_MAX badges elsewhere. */
const CALLBACK_COST = 10;

const SendBody = Type.Object(
  {
    csrf: Type.String({ maxLength: 100 }),
    address: Type.String({ maxLength: 2048, description: 'The other platform’s base URL or its SDD URL' }),
    credential: Type.Optional(
      Type.Array(Type.String({ maxLength: 2048 }), {
        maxItems: SEND_CREDENTIALS_MAX * 2,
        description: 'The credential ids to send (repeat the field)',
      }),
    ),
  },
  { additionalProperties: false },
);
const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 2048 })),
    state: Type.Optional(Type.String({ maxLength: 200 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  // An authorization server may add parameters of its own (RFC 6749 §4.1.2); they are no error here.
  { additionalProperties: true },
);

const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
const htmlOrInvalid = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: Type.Ref(ValidationErrorBody) } },
});
const seeOther = (description: string) => ({ description, ...Type.Null() });

/**
 * "Send to another platform" (issue 47; OB 3.0 §6, the backpack as a Service Consumer (Write)):
 * the form, its start (a CSRF form post answered by a page that links to the other platform's
 * authorization) and the OAuth 2.0 callback that upserts the badges there and shows each outcome.
 */
export const backpackSendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { backpack, obapi } = app.services;
  const { send, sessionOf, changingSession, languageOf } = backpackHttp(app);
  const tags = ['Backpack'];

  if (app.hasContentTypeParser(FORM)) app.removeContentTypeParser(FORM);
  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
    const params = new URLSearchParams(body as string);
    const fields: Record<string, string | string[]> = Object.fromEntries(params);
    if (params.has('credential')) fields.credential = params.getAll('credential');
    done(null, fields);
  });

  /** What the earner can send: the badges issued here, then those apps sent into the backpack (by credential id). */
  async function badgesOf(request: FastifyRequest, accountId: string) {
    const language = languageOf(request);
    const [issued, upserted] = await Promise.all([
      backpack.badges(accountId, textLanguages(requestLanguageSources(request), language)),
      obapi.upsertedForAccount(accountId),
    ]);
    return [
      ...issued.map((b) => ({ credentialId: b.credentialId, name: b.name, issuerName: b.issuerName })),
      ...upserted.map((b) => ({ credentialId: b.key, name: b.name, issuerName: b.issuerName })),
    ];
  }

  async function form(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    session: { accountId: string; csrfToken: string },
    extra: { chosen?: string[]; address?: string; error?: string } = {},
  ) {
    const language = languageOf(request);
    const [badges, platforms] = await Promise.all([
      badgesOf(request, session.accountId),
      obapi.send.platforms(session.accountId),
    ]);
    return send(
      reply,
      status,
      (nonce) => sendPage(nonce, { csrf: session.csrfToken, badges, platforms, ...extra }, language),
      language,
    );
  }

  app.get(
    '/backpack/send',
    {
      schema: {
        operationId: 'getBackpackSend',
        description:
          'Backpack session. The form that sends badges to another platform; without a session, back to the sign-in form.',
        tags,
        summary: 'The form that sends badges to another platform (OB 3.0 API)',
        response: { 200: htmlPage('The form'), 303: seeOther('Not signed in'), ...errorResponses(...openErrors) },
      },
    },
    async (request, reply) => {
      const session = await sessionOf(request);
      if (!session) return reply.redirect('/backpack', 303);
      return form(request, reply, 200, session);
    },
  );

  app.post(
    '/backpack/send',
    {
      bodyLimit: FORM_LIMIT,
      config: { rateLimitCost: () => SEND_COST },
      schema: {
        operationId: 'startBackpackSend',
        description:
          'Backpack session and its CSRF token. Reads the other platform’s Service Description Document (OB 3.0 §6.3) through the SSRF guard, registers with it once per earner (RFC 7591; the registration is reused), and answers a page linking to its authorization (code, PKCE S256, state, scope credential.upsert). At most 10 starts an hour per account and 60 per platform (429). A platform that cannot be used answers 502 with the reason.',
        tags,
        summary: 'Starts sending badges to another platform',
        consumes: [FORM],
        body: SendBody,
        response: {
          200: htmlPage('On to the other platform: a link to its authorization'),
          400: htmlOrInvalid('No badge chosen, a badge not the earner’s, or no address'),
          429: htmlPage('Too many sends this hour'),
          502: htmlPage('The other platform could not be used: the reason'),
          ...errorResponses(401, 403, 413),
        },
      },
    },
    async (request, reply) => {
      const session = await changingSession(request, request.body.csrf);
      const chosen = request.body.credential ?? [];
      const address = request.body.address;
      try {
        const started = await obapi.send.start(session, { address, credentialIds: chosen });
        const language = languageOf(request);
        return send(reply, 200, (nonce) => continuePage(nonce, started, language), language);
      } catch (error) {
        if (error instanceof RemoteRefusal)
          return form(request, reply, 502, session, { chosen, address, error: error.message });
        if (error instanceof AppError && (error.code === 'validation_failed' || error.code === 'rate_limited')) {
          return form(request, reply, error.statusCode, session, { chosen, address, error: error.message });
        }
        throw error;
      }
    },
  );

  app.get(
    SEND_CALLBACK_PATH,
    {
      config: { rateLimitCost: () => CALLBACK_COST },
      schema: {
        operationId: 'finishBackpackSend',
        description:
          'Backpack session (the one that started the send). The OAuth 2.0 redirect of a send: its state is taken once (RFC 6749 §10.12), the code exchanged with the PKCE verifier, each chosen badge upserted at the other platform as the OB API answers it (its signed JSON), and the tokens revoked (RFC 7009). Answers each badge’s outcome: added (201), updated (200) or not sent, with the reason; when the earner pressed Deny there (`error=access_denied`), a page saying that nothing was sent. An unknown, used, expired or another session’s state is 400; a platform that refuses is 502.',
        tags,
        summary: 'Finishes sending badges to another platform',
        querystring: CallbackQuery,
        response: {
          200: htmlPage('What became of each badge, or that nothing was sent as the earner denied it'),
          400: htmlOrInvalid('The send is unknown, over, or another session’s'),
          502: htmlPage('The other platform refused'),
          ...errorResponses(401, ...openErrors),
        },
      },
    },
    async (request, reply) => {
      const session = await sessionOf(request);
      if (!session) throw new AppError('unauthorized', 'Sign in to your backpack first, then start the send again.');
      const language = languageOf(request);
      const query = request.raw.url?.split('?')[1] ?? '';
      try {
        const summary = await obapi.send.finish(session, query);
        const names = new Map((await badgesOf(request, session.accountId)).map((b) => [b.credentialId, b.name]));
        return send(reply, 200, (nonce) => sentPage(nonce, summary, names, language), language);
      } catch (error) {
        if (error instanceof RemoteRefusal && error.declinedAt !== null) {
          const host = error.declinedAt;
          return send(reply, 200, (nonce) => sendDeclinedPage(nonce, host, language), language);
        }
        if (error instanceof RemoteRefusal) {
          return send(reply, 502, (nonce) => sendFailedPage(nonce, error.message, language), language);
        }
        if (error instanceof AppError && error.code === 'validation_failed') {
          return send(reply, 400, (nonce) => sendFailedPage(nonce, error.message, language), language);
        }
        throw error;
      }
    },
  );
};
