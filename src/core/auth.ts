import { createHash, timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext, Role } from './context.js';
import { errors } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `key`: the route needs an API key or a console session. `session`: a console session only
     * (console-only routes; an API key is refused). Routes without it are open.
     */
    auth?: 'key' | 'session';
    /**
     * The least console role the route needs; default `viewer` for GET/HEAD and `issuer` for other
     * methods. API keys are not limited by roles.
     */
    role?: Role;
    /** Exempt from rate limiting (liveness, readiness, metrics, docs). */
    rateLimitExempt?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
    /** The authenticated issuer's id; only call on `auth: 'key'` routes. */
    issuerId(): string;
    /** Who the audit log names for this request's changes. */
    actor(): string;
  }
}

/** The console's session cookie. */
export const SESSION_COOKIE = 'accolade_session';

const ROLE_RANK: Record<Role, number> = { viewer: 0, issuer: 1, owner: 2 };
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The key from `Authorization: Bearer <key>` or `X-API-Key: <key>`; null when neither is present. */
export function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1]) return match[1];
  }
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return null;
}

/** The session token from the cookie; only read on authenticated routes and only when no key is sent. */
export function presentedSession(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (typeof header !== 'string' || !header.includes(SESSION_COOKIE)) return null;
  return parseCookie(header)[SESSION_COOKIE] || null;
}

/** The least role a route needs from a console user. */
export function requiredRole(method: string, role: Role | undefined): Role {
  return role ?? (READ_METHODS.has(method) ? 'viewer' : 'issuer');
}

/** Whether the presented token's SHA-256 is the stored hash (compared in constant time). */
function matchesHash(presented: string | string[] | undefined, hash: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = createHash('sha256').update(presented).digest();
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Why a resolved request may not go on: the console-only check, the CSRF token and the role. */
function refusal(request: FastifyRequest, auth: AuthContext): Error | null {
  const config = request.routeOptions.config;
  const session = auth.session;
  if (!session) {
    return config.auth === 'session'
      ? errors.forbidden('This route is for the web console: it needs a console session, not an API key.')
      : null;
  }
  if (!READ_METHODS.has(request.method) && !matchesHash(request.headers['x-csrf-token'], session.csrfHash)) {
    return errors.csrfFailed();
  }
  const needed = requiredRole(request.method, config.role);
  if (ROLE_RANK[session.role] < ROLE_RANK[needed]) {
    return errors.forbidden(`The ${session.role} role may not do this; it needs the ${needed} role.`);
  }
  return null;
}

/**
 * Resolves the key (or, on authenticated routes without a key, the console session cookie) once per
 * request (onRequest, before rate limiting, so the limiter can key on the issuer and apply its
 * plan), and refuses authenticated routes without valid credentials, a session without its CSRF
 * token or a role short of the route's in preParsing, so a refused request is still counted
 * against its client address and its body is never parsed. `refuseFirst` answers before the lookup
 * (an address already over its limit): a key or cookie costs a database query only for a client the
 * limiter still admits. Open routes never read the cookie.
 */
export function registerAuth(
  app: FastifyInstance,
  authenticate: (key: string) => Promise<AuthContext | null>,
  authenticateSession: (token: string) => Promise<AuthContext | null>,
  refuseFirst: (request: FastifyRequest, reply: FastifyReply) => Error | null,
): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('issuerId', function (this: FastifyRequest) {
    if (!this.auth) throw errors.unauthorized();
    return this.auth.issuerId;
  });
  app.decorateRequest('actor', function (this: FastifyRequest) {
    if (!this.auth) return 'anonymous';
    return this.auth.session ? `user:${this.auth.session.userId}` : `key:${this.auth.apiKeyId}`;
  });

  // Callback hooks: most requests (all open ones) carry no key, and need no promise to say so.
  app.addHook('onRequest', (request, reply, done) => {
    const key = presentedKey(request);
    const session = key || !request.routeOptions.config.auth ? null : presentedSession(request);
    if (!key && !session) return done();
    const refused = refuseFirst(request, reply);
    if (refused) return done(refused);
    (key ? authenticate(key) : authenticateSession(session as string)).then((auth) => {
      request.auth = auth;
      done();
    }, done);
  });

  app.addHook('preParsing', (request, _reply, _payload, done) => {
    if (!request.routeOptions.config.auth) return done();
    if (request.auth) return done(refusal(request, request.auth));
    if (presentedKey(request)) return done(errors.unauthorized('The API key is invalid or revoked.'));
    if (presentedSession(request)) return done(errors.unauthorized('The console session has ended; sign in again.'));
    done(errors.unauthorized());
  });
}
