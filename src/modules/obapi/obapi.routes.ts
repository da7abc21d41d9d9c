import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import {
  CompactJws,
  CredentialObject,
  CredentialsQuery,
  GetCredentialsResponse,
  imsxErrors,
  Profile,
  ServiceDescription,
} from './obapi.schemas.js';
import { OB_API, SCOPES } from './obapi.scopes.js';
import type { ApiGrant } from './obapi.service.js';

const MINOR_BY_STATUS: Record<number, string> = {
  400: 'invalid_data',
  401: 'unauthorizedrequest',
  403: 'forbidden',
  404: 'not_found',
  405: 'not_allowed',
  406: 'not_acceptable',
  413: 'invalid_data',
  415: 'invalid_data',
  429: 'server_busy',
};

function imsx(status: number, description: string) {
  return {
    imsx_codeMajor: 'failure',
    imsx_severity: 'error',
    imsx_description: description,
    imsx_codeMinor: {
      imsx_codeMinorField: [
        {
          imsx_codeMinorFieldName: 'TargetEndSystem',
          imsx_codeMinorFieldValue: MINOR_BY_STATUS[status] ?? 'internal_server_error',
        },
      ],
    },
  };
}

function bearer(request: FastifyRequest): string | null {
  const match = /^Bearer\s+(\S{1,200})\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1] ?? null;
}

/**
 * The Open Badges API (OB 3.0 §6; 1EdTech Host: Service Provider Read and Write): the Service
 * Description Document, getCredentials, upsertCredential, getProfile and putProfile, for an
 * earner's access token. Errors answer Imsx_StatusInfo. An issuer's API key is no access token
 * here, and an access token is no key on /api/v1.
 */
export const obApiRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { obapi } = app.services;
  const base = app.core.config.publicBaseUrl;
  const tags = ['Open Badges API'];
  const sdd = obapi.serviceDescription();
  const sddText = JSON.stringify(sdd);
  const sddTag = `"${sha256Hex(sddText).slice(0, 32)}"`;

  app.addContentTypeParser(['text/plain'], { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) =>
    done(null, String(body).trim()),
  );
  app.addContentTypeParser(
    ['application/vc+ld+json'],
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_request, body, done) => {
      try {
        done(null, JSON.parse(String(body)));
      } catch {
        done(new AppError('validation_failed', 'The body is not JSON.'), undefined);
      }
    },
  );

  app.setErrorHandler(
    (error: Error & { statusCode?: number; validation?: unknown; code?: string }, _request, reply) => {
      // Refused before any route ran (an over-long URL): the service's Error body, as everywhere.
      if (error instanceof AppError && error.code === 'uri_too_long') {
        return reply.status(414).send({ error: error.code, message: error.message });
      }
      let status = 500;
      if (error.validation) status = 400;
      else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500)
        status = error.statusCode;
      if (status >= 500) reply.log.error({ err: error }, 'Open Badges API request failed');
      const message = status >= 500 ? 'The service could not answer; retry later.' : error.message;
      return reply.status(status).header('content-type', 'application/json; charset=utf-8').send(imsx(status, message));
    },
  );

  /** The request's grant, or a 401 (no or unusable token) or 403 (the token lacks `scope`). */
  async function authorized(request: FastifyRequest, reply: FastifyReply, scope: string): Promise<ApiGrant | null> {
    const grant = await obapi.grantOf(bearer(request));
    if (!grant) {
      reply
        .status(401)
        .header('www-authenticate', 'Bearer error="invalid_token"')
        .send(imsx(401, 'A valid access token of the Open Badges API is required (Authorization: Bearer).'));
      return null;
    }
    if (!grant.scopes.has(scope)) {
      reply
        .status(403)
        .header('www-authenticate', `Bearer error="insufficient_scope", scope="${scope}"`)
        .send(imsx(403, `The access token lacks the scope ${scope}.`));
      return null;
    }
    return grant;
  }

  app.get(
    `${OB_API}/discovery`,
    {
      schema: {
        operationId: 'getObServiceDescription',
        tags,
        summary: 'The Service Description Document of the Open Badges API (OB 3.0 §6.3)',
        description:
          'Open. The OAuth 2.0 authorization code grant: registration, authorization, token and refresh URLs and the four scopes.',
        response: { 200: ServiceDescription, 304: { description: 'Not modified', type: 'null' }, ...imsxErrors(429) },
      },
    },
    async (request, reply) => {
      reply.header('etag', sddTag).header('cache-control', 'public, max-age=3600');
      if (request.headers['if-none-match'] === sddTag) return reply.status(304).send();
      return reply.header('content-type', 'application/json; charset=utf-8').send(sddText);
    },
  );

  app.get(
    `${OB_API}/credentials`,
    {
      schema: {
        operationId: 'getObCredentials',
        tags,
        summary: "The earner's credentials (OB 3.0 §6.2 getCredentials; scope credential.readonly)",
        description:
          'Paged by limit and offset, filtered by since; X-Total-Count and Link (first, last, next, prev) say where the page is.',
        querystring: CredentialsQuery,
        security: [{ OAuth2ACG: [SCOPES.credentialRead] }],
        response: { 200: GetCredentialsResponse, ...imsxErrors(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const grant = await authorized(request, reply, SCOPES.credentialRead);
      if (!grant) return reply;
      const { limit, offset, since } = request.query;
      const page = await obapi.credentials(grant.accountId, {
        limit,
        offset,
        since: since ? new Date(since).toISOString() : null,
      });
      const link = (at: number, rel: string) => {
        const url = new URL(`${base}${OB_API}/credentials`);
        url.searchParams.set('limit', String(limit));
        url.searchParams.set('offset', String(at));
        if (since) url.searchParams.set('since', since);
        return `<${url.toString()}>; rel="${rel}"`;
      };
      const last = page.total === 0 ? 0 : Math.floor((page.total - 1) / limit) * limit;
      const links = [
        ...(offset + limit < page.total ? [link(offset + limit, 'next')] : []),
        link(last, 'last'),
        link(0, 'first'),
        ...(offset > 0 ? [link(Math.max(0, offset - limit), 'prev')] : []),
      ];
      return reply
        .header('x-total-count', String(page.total))
        .header('link', links.join(', '))
        .header('cache-control', 'no-store')
        .send({ credential: page.credential, compactJwsString: page.compactJwsString });
    },
  );

  app.post(
    `${OB_API}/credentials`,
    {
      schema: {
        operationId: 'upsertObCredential',
        tags,
        summary:
          'Adds or replaces a credential in the earner’s backpack (OB 3.0 §6.2 upsertCredential; scope credential.upsert)',
        description:
          'JSON (application/json or application/vc+ld+json) or a compact JWS (text/plain). 201 added, 200 replaced (same credential id); the body is what was sent.',
        body: {
          content: {
            'application/json': { schema: CredentialObject },
            'application/vc+ld+json': { schema: CredentialObject },
            'text/plain': { schema: CompactJws },
          },
        },
        security: [{ OAuth2ACG: [SCOPES.credentialUpsert] }],
        response: {
          200: {
            description: 'Replaced: the credential as sent',
            content: { 'application/json': { schema: CredentialObject }, 'text/plain': { schema: CompactJws } },
          },
          201: {
            description: 'Added: the credential as sent',
            content: { 'application/json': { schema: CredentialObject }, 'text/plain': { schema: CompactJws } },
          },
          ...imsxErrors(400, 401, 403, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const grant = await authorized(request, reply, SCOPES.credentialUpsert);
      if (!grant) return reply;
      const body = request.body as unknown;
      const jws = typeof body === 'string';
      if (!jws && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw new AppError(
          'validation_failed',
          'The body must be an AchievementCredential (JSON) or a compact JWS (text/plain).',
        );
      }
      const { created } = await obapi.upsert(
        grant,
        jws ? { format: 'jws', jws: body } : { format: 'json', credential: body as Record<string, unknown> },
      );
      reply.status(created ? 201 : 200).header('cache-control', 'no-store');
      if (jws) return reply.header('content-type', 'text/plain; charset=utf-8').send(body);
      return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
    },
  );

  app.get(
    `${OB_API}/profile`,
    {
      schema: {
        operationId: 'getObProfile',
        tags,
        summary: "The earner's Profile (OB 3.0 §6.2 getProfile; scope profile.readonly)",
        description:
          'The Profile as last PUT, else `{type: Profile, id: urn:uuid:<account>}`. 401 without a live access token, 403 without the scope.',
        security: [{ OAuth2ACG: [SCOPES.profileRead] }],
        response: { 200: Profile, ...imsxErrors(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const grant = await authorized(request, reply, SCOPES.profileRead);
      if (!grant) return reply;
      return reply.header('cache-control', 'no-store').send(await obapi.profile(grant.accountId));
    },
  );

  app.put(
    `${OB_API}/profile`,
    {
      schema: {
        operationId: 'putObProfile',
        tags,
        summary: "Replaces the earner's Profile (OB 3.0 §6.2 putProfile; scope profile.update)",
        description:
          'The whole Profile (its type includes Profile), kept as sent and answered as sent. Priced by the JSON-LD budget; audited.',
        body: Profile,
        security: [{ OAuth2ACG: [SCOPES.profileUpdate] }],
        response: { 200: Profile, ...imsxErrors(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const grant = await authorized(request, reply, SCOPES.profileUpdate);
      if (!grant) return reply;
      return reply
        .header('cache-control', 'no-store')
        .send(await obapi.putProfile(grant, request.body as Record<string, unknown>));
    },
  );
};
