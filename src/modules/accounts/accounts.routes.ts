import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../core/auth.js';
import type { SessionAuth } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { Counter } from '../../core/rate-limit.js';
import { errorResponses, IdParams, keyedErrors, openErrors } from '../../core/schemas.js';
import {
  AcceptInviteBody,
  ChangeRoleBody,
  InvitedUser,
  InviteInfo,
  InviteParams,
  InviteUserBody,
  SessionSchema,
  SignInBody,
  TeamMemberSchema,
} from './accounts.schemas.js';
import { USE_PROVIDER } from './accounts.service.js';
import type { SignedIn } from './session.types.js';
import { setupRoutes } from './setup.routes.js';
import { createSignInLimits } from './sign-in-limits.js';
import { ssoRoutes } from './sso.routes.js';

const TAGS = ['Console'];

/**
 * Console accounts over the public API: sign-in and sessions, invites, and the team. The console
 * calls every other /api/v1 route with the same session cookie.
 */
export const accountRoutes: FastifyPluginAsyncTypebox<{ count: Counter }> = async (app, options) => {
  const { accounts } = app.services;
  const { config } = app.core;
  const limits = createSignInLimits(options.count);
  const maxAgeSeconds = config.consoleSession.maxHours * 3600;

  function secure(request: FastifyRequest): boolean {
    return request.protocol === 'https' || config.publicBaseUrl.startsWith('https://');
  }

  function setCookie(request: FastifyRequest, reply: FastifyReply, value: string, maxAge: number): void {
    reply.header(
      'set-cookie',
      stringifySetCookie({
        name: SESSION_COOKIE,
        value,
        httpOnly: true,
        sameSite: 'strict',
        path: '/',
        secure: secure(request),
        maxAge,
      }),
    );
  }

  function signedIn(request: FastifyRequest, reply: FastifyReply, session: SignedIn) {
    setCookie(request, reply, session.token, maxAgeSeconds);
    reply.header('cache-control', 'no-store');
    return { user: session.user, csrfToken: session.csrfToken };
  }

  function sessionOf(request: FastifyRequest): SessionAuth {
    const session = request.auth?.session;
    if (!session) throw new AppError('unauthorized', 'A console session is required.');
    return session;
  }

  app.post(
    '/api/v1/session',
    {
      schema: {
        operationId: 'signIn',
        tags: TAGS,
        summary: 'Sign in to the console: sets the session cookie and returns the CSRF token',
        body: SignInBody,
        response: { 200: Type.Ref(SessionSchema), ...errorResponses(400, 401, ...openErrors) },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      const admission = await limits.admit(email, request.ip);
      if ('retryAfterSeconds' in admission) {
        const wait = admission.retryAfterSeconds;
        reply.header('retry-after', wait);
        throw new AppError('rate_limited', `Too many sign-in attempts; retry in ${wait} s.`);
      }
      let session: SignedIn | typeof USE_PROVIDER | null = null;
      try {
        session = await accounts.signIn(email, password);
      } finally {
        if (!session) admission.ticket.failed();
      }
      if (!session) throw new AppError('unauthorized', 'Email or password is incorrect.');
      await admission.ticket.succeeded();
      if (session === USE_PROVIDER) {
        throw new AppError(
          'unauthorized',
          "Your organisation signs in with its own login: use its button on your organisation's sign-in page.",
        );
      }
      return signedIn(request, reply, session);
    },
  );

  app.get(
    '/api/v1/session',
    {
      config: { auth: 'session', role: 'viewer' },
      schema: {
        operationId: 'getSession',
        tags: TAGS,
        summary: 'The signed-in console user and the session CSRF token',
        response: { 200: Type.Ref(SessionSchema), ...errorResponses(...keyedErrors) },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      reply.header('cache-control', 'no-store');
      return { user: await accounts.currentUser(request.issuerId(), session.userId), csrfToken: session.csrfToken };
    },
  );

  app.delete(
    '/api/v1/session',
    {
      config: { auth: 'session', role: 'viewer' },
      schema: {
        operationId: 'signOut',
        tags: TAGS,
        summary: 'Sign out: ends the session (needs X-CSRF-Token)',
        response: { 204: Type.Null({ description: 'Signed out' }), ...errorResponses(...keyedErrors) },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      await accounts.signOut(request.issuerId(), session.userId, session.tokenHash);
      setCookie(request, reply, '', 0);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/v1/invites/:token',
    {
      schema: {
        operationId: 'getInvite',
        tags: TAGS,
        summary: 'An open console invite (unknown, used and expired invites are all 404)',
        params: InviteParams,
        response: { 200: InviteInfo, ...errorResponses(404, ...openErrors) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return accounts.describeInvite(request.params.token);
    },
  );

  app.post(
    '/api/v1/invites/:token/accept',
    {
      schema: {
        operationId: 'acceptInvite',
        tags: TAGS,
        summary: 'Accept a console invite: set the password (once) and sign in',
        description:
          "403 when the issuer has turned password sign-in off: its users sign in through the issuer's own provider.",
        params: InviteParams,
        body: AcceptInviteBody,
        response: { 200: Type.Ref(SessionSchema), ...errorResponses(400, 403, 404, ...openErrors) },
      },
    },
    async (request, reply) =>
      signedIn(request, reply, await accounts.acceptInvite(request.params.token, request.body.password)),
  );

  app.get(
    '/api/v1/users',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'listUsers',
        tags: TAGS,
        summary: "The issuer's console users (owner)",
        response: {
          200: Type.Object({ items: Type.Array(Type.Ref(TeamMemberSchema)) }),
          ...errorResponses(...keyedErrors),
        },
      },
    },
    async (request) => ({ items: await accounts.listUsers(request.issuerId()) }),
  );

  app.post(
    '/api/v1/users',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'inviteUser',
        tags: TAGS,
        summary: 'Invite a console user (owner); the invite link is returned only here',
        body: InviteUserBody,
        response: { 201: InvitedUser, ...errorResponses(400, 409, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      const invited = await accounts.invite(request.issuerId(), request.body.email, request.body.role, request.actor());
      return reply.status(201).send(invited);
    },
  );

  app.patch(
    '/api/v1/users/:id',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'changeUserRole',
        tags: TAGS,
        summary: "Change a console user's role (owner); their sessions end",
        params: IdParams,
        body: ChangeRoleBody,
        response: { 200: Type.Ref(TeamMemberSchema), ...errorResponses(400, 404, 409, ...keyedErrors) },
      },
    },
    async (request) => accounts.changeRole(request.issuerId(), request.params.id, request.body.role, request.actor()),
  );

  app.delete(
    '/api/v1/users/:id',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'removeUser',
        tags: TAGS,
        summary: 'Remove a console user (owner); their sessions end',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(404, 409, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      await accounts.removeUser(request.issuerId(), request.params.id, request.actor());
      return reply.status(204).send(null);
    },
  );

  await app.register(ssoRoutes, { startSession: signedIn });
  await app.register(setupRoutes, { startSession: signedIn });
};
