import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from './context.js';
import { errors } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `key`: the route needs an issuer API key. Routes without it are open. */
    auth?: 'key';
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

/**
 * Resolves the key once per request (onRequest, before rate limiting, so the limiter can key on the
 * issuer and apply its plan), and refuses keyed routes without a valid key in preParsing, so a
 * request with a bad key is still counted against its client address and its body is never parsed.
 * `refuseFirst` answers before the lookup (an address already over its limit): a key costs a
 * database query only for a client the limiter still admits.
 */
export function registerAuth(
  app: FastifyInstance,
  authenticate: (key: string) => Promise<AuthContext | null>,
  refuseFirst: (request: FastifyRequest, reply: FastifyReply) => Error | null,
): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('issuerId', function (this: FastifyRequest) {
    if (!this.auth) throw errors.unauthorized();
    return this.auth.issuerId;
  });
  app.decorateRequest('actor', function (this: FastifyRequest) {
    return this.auth ? `key:${this.auth.apiKeyId}` : 'anonymous';
  });

  // Callback hooks: most requests (all open ones) carry no key, and need no promise to say so.
  app.addHook('onRequest', (request, reply, done) => {
    const key = presentedKey(request);
    if (!key) return done();
    const refused = refuseFirst(request, reply);
    if (refused) return done(refused);
    authenticate(key).then((auth) => {
      request.auth = auth;
      done();
    }, done);
  });

  app.addHook('preParsing', (request, _reply, _payload, done) => {
    if (request.routeOptions.config.auth !== 'key' || request.auth) return done();
    done(presentedKey(request) ? errors.unauthorized('The API key is invalid or revoked.') : errors.unauthorized());
  });
}
