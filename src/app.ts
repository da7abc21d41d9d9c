import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import { registerAuth, SESSION_COOKIE } from './core/auth.js';
import { type Clock, type IdSource, randomIds, systemClock } from './core/clock.js';
import type { Core } from './core/context.js';
import { registerCors } from './core/cors.js';
import { answerClientError, registerErrorHandling } from './core/error-handler.js';
import { AppError } from './core/errors.js';
import { strictJsonParser } from './core/json-body.js';
import { REDACTED, redactUrl, scrubLogLine } from './core/log-redaction.js';
import { createMetrics, type Metrics } from './core/metrics.js';
import { documentDecorations } from './core/openapi.js';
import { createRateLimits } from './core/rate-limit.js';
import { sharedSchemas } from './core/schemas.js';
import { registerSecurityHeaders, responseHeaders } from './core/security-headers.js';
import { serializerFactory } from './core/serialization.js';
import { closeApiQueryStrings, createValidatorCompiler } from './core/validation.js';
import type { Database } from './db/database.js';
import { accountRoutes } from './modules/accounts/accounts.routes.js';
import { accountSchemas } from './modules/accounts/accounts.schemas.js';
import { alignmentRoutes } from './modules/alignments/alignments.routes.js';
import { alignmentSchemas } from './modules/alignments/alignments.schemas.js';
import { auditRoutes, auditSchemas } from './modules/audit/audit.routes.js';
import { backpackRoutes } from './modules/backpack/backpack.routes.js';
import { certificateRoutes } from './modules/certificates/certificates.routes.js';
import { certificateSchemas } from './modules/certificates/certificates.schemas.js';
import { clrRoutes } from './modules/clr/clr.routes.js';
import { clrSchemas } from './modules/clr/clr.schemas.js';
import { consoleUiRoutes } from './modules/console-ui/console-ui.routes.js';
import { credentialRoutes } from './modules/credentials/credentials.routes.js';
import { credentialSchemas } from './modules/credentials/credentials.schemas.js';
import { definitionRoutes, definitionSchemas } from './modules/definitions/definitions.routes.js';
import { documentRoutes } from './modules/documents/documents.routes.js';
import { documentSchemas } from './modules/documents/documents.schemas.js';
import { endorsementRoutes } from './modules/endorsements/endorsements.routes.js';
import { endorsementSchemas } from './modules/endorsements/endorsements.schemas.js';
import { gdprRoutes } from './modules/gdpr/gdpr.routes.js';
import { gdprSchemas } from './modules/gdpr/gdpr.schemas.js';
import { imageRoutes } from './modules/images/images.routes.js';
import { ingestRoutes, ingestSchemas } from './modules/ingest/ingest.routes.js';
import { issuerRoutes } from './modules/issuers/issuers.routes.js';
import { ApiKeySchema, IssuerSchema } from './modules/issuers/issuers.schemas.js';
import { ltiRoutes } from './modules/lti/lti.routes.js';
import { ltiSchemas } from './modules/lti/lti.schemas.js';
import { notificationRoutes } from './modules/notifications/notifications.routes.js';
import { notificationSchemas } from './modules/notifications/notifications.schemas.js';
import { oauthInteractionRoutes, oauthProviderRoutes } from './modules/obapi/oauth.routes.js';
import { obApiRoutes } from './modules/obapi/obapi.routes.js';
import { SCOPE_DESCRIPTIONS } from './modules/obapi/obapi.scopes.js';
import { backpackSendRoutes } from './modules/obapi/send.routes.js';
import { opsRoutes } from './modules/ops/ops.routes.js';
import { pathwayRoutes } from './modules/pathways/pathways.routes.js';
import { pathwaySchemas } from './modules/pathways/pathways.schemas.js';
import { reportRoutes } from './modules/reports/reports.routes.js';
import { reportSchemas } from './modules/reports/reports.schemas.js';
import { trustRoutes } from './modules/trust/trust.routes.js';
import { trustSchemas } from './modules/trust/trust.schemas.js';
import { usageRoutes, usageSchemas } from './modules/usage/usage.routes.js';
import { vcRoutes } from './modules/vc/vc.routes.js';
import { pageRoutes } from './modules/verification/page.routes.js';
import { profileRoutes } from './modules/verification/profiles.routes.js';
import { verificationRoutes } from './modules/verification/verification.routes.js';
import { verificationSchemas } from './modules/verification/verification.schemas.js';
import { walletRoutes } from './modules/wallet/wallet.routes.js';
import { walletSchemas } from './modules/wallet/wallet.schemas.js';
import { webhookRoutes } from './modules/webhooks/webhooks.routes.js';
import { webhookSchemas } from './modules/webhooks/webhooks.schemas.js';
import { createServices, type Services } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    core: Core;
    services: Services;
  }
}

export interface AppDeps {
  config: Readonly<Config>;
  database: Database;
  clock?: Clock;
  ids?: IdSource;
  metrics?: Metrics;
  redis?: Redis | null;
  /** Pino options or `false`; defaults to JSON logs at config.logLevel with secrets redacted. */
  logger?: FastifyServerOptions['logger'];
  https?: { key: Buffer; cert: Buffer } | null;
  /** The built web console; defaults to dist/console (tests point it elsewhere). */
  consoleDir?: string;
  /**
   * Compile every request validator and response serializer while routes register, as Fastify
   * does by default, instead of at each one's first use (tests set it to prove that all compile).
   */
  compileSchemasAtStart?: boolean;
}

export const API_VERSION = '1.1.0';
const JSON_BODY_LIMIT = 1024 * 1024;
/** POST routes that write nothing a cached public read shows (verification events, premium usage). */
const CACHE_NEUTRAL_POSTS = new Set(['/api/v1/verify', '/api/v1/verify/bulk', '/api/v1/verify/premium']);

/** Longer request URLs answer 414 before anything else looks at them (and are not logged). */
export const MAX_URL_LENGTH = 8 * 1024;
/** How often Node looks for connections past their request or headers timeout (its default is 30 s). */
const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** Paths every origin may call without credentials (public verification, documents, embed). */
const OPEN_CORS = [/^\/api\/v1\/verify(\/bulk)?(\?|$)/, /^\/v1\//, /^\/embed\/v1\.js/];

/**
 * The request as each log line shows it (Fastify's default fields, less the API version header,
 * which this service does not use), its URL without email addresses, keys or tokens
 * (core/log-redaction.ts). A URL over MAX_URL_LENGTH is refused unread, and logged as its length.
 */
function requestForLog(request: FastifyRequest) {
  const url = typeof request.url === 'string' ? request.url : undefined;
  const tooLong = url !== undefined && url.length > MAX_URL_LENGTH;
  return {
    method: request.method,
    url: url === undefined ? undefined : tooLong ? REDACTED : redactUrl(url),
    ...(tooLong ? { urlLength: url.length } : {}),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * One log line per request, written once it is answered, with the request, the status and the time
 * taken, instead of Fastify's two (one on arrival that carried nothing the answer's line could not).
 * At the default level of `info`, the second line cost a sixth to a quarter of an open read's
 * throughput (docs/decisions.md, "The request path's fixed costs").
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/**
 * The service's logger: JSON lines at `level`. A request is logged by `requestForLog` alone (no
 * headers, its URL redacted), and every finished line is scrubbed of email addresses and API keys
 * (`scrubLogLine`), so neither reaches log storage whichever field or message carries it. pino's
 * own redaction by field path did this job until 2026-11-27: its wildcard paths (`*.email`) ran
 * over every key of every line and every request's child logger, about two thirds of the cost of
 * a request's log line (docs/decisions.md, "Logs scrubbed line by line").
 */
export function logOptions(level: string) {
  return {
    level,
    serializers: { req: requestForLog },
    hooks: { streamWrite: scrubLogLine },
  };
}

/**
 * A query parameter with a default is optional to the client: ajv fills the default in. TypeBox
 * lists it as required (so handlers see a number), which the document would repeat as `required`.
 */
function defaultsOptional(schema: unknown): unknown {
  const object = schema as { properties?: Record<string, { default?: unknown }>; required?: string[] };
  if (!object.properties || !object.required) return schema;
  const properties = object.properties;
  return { ...object, required: object.required.filter((name) => properties[name]?.default === undefined) };
}

/**
 * Fastify's trustProxy for TRUST_PROXY. Addresses/CIDRs trust exactly those peers. A hop count
 * trusts that many hops from this process (the socket's peer and the X-Forwarded-For entries the
 * proxies appended, right to left), never the client-written entries left of them; Fastify itself
 * reads a bare number as "trust nothing", since a hop count cannot check who the peer is, so it is
 * only for replicas that nothing but the proxies can reach (docs/deployment.md).
 */
function trustProxyOption(trust: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}

/** Builds the whole service without listening: server.ts listens, tests inject. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  // A request (headers and body) must arrive within these; Node looks for overdue connections every
  // CONNECTIONS_CHECK_INTERVAL_MS, so a body trickled a byte at a time is cut off, not held for good.
  const serverTimeouts = {
    headersTimeout: config.http.headersTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(CONNECTIONS_CHECK_INTERVAL_MS, config.http.headersTimeoutMs),
  };
  const headers = responseHeaders({ hsts: config.tls !== null || config.publicBaseUrl.startsWith('https://') });
  const schemasAtFirstUse = deps.compileSchemasAtStart !== true;
  const app = Fastify({
    logger: deps.logger ?? logOptions(config.logLevel),
    logController: new OneLinePerRequest(),
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy: trustProxyOption(config.trustProxy),
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: serverTimeouts,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
    ...(deps.https ? { https: { ...deps.https, ...serverTimeouts, minVersion: 'TLSv1.2' as const } } : {}),
    ajv: { customOptions: { strict: false } },
    // Response serializers compile at each route's first answer (src/core/serialization.ts).
    schemaController: { compilersFactory: { buildSerializer: serializerFactory(schemasAtFirstUse) } },
    // Node refuses a request line over its 16 KiB header limit (431); every parameter under that reaches
    // its route, whose own schema and lookup answer for it (a list under an unknown id is empty).
    routerOptions: { maxParamLength: 16_384 },
    // What Node's HTTP parser refuses (headers over 16 KiB: 431) answers with the Error body too.
    clientErrorHandler: answerClientError(headers),
    // Errors the router raises before any route runs still answer with the Error body: an
    // undecodable URL is a bad request, and an over-long path parameter names nothing that exists.
    // These answers skip every hook, so they set the response headers and write their log line here.
    frameworkErrors: (error, request, frameworkReply) => {
      const reply = frameworkReply as FastifyReply;
      for (const [name, value] of headers) reply.raw.setHeader(name, value);
      reply.header('x-request-id', request.id);
      request.log.info({ req: request, code: error.code }, 'request refused by the router');
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        return reply.status(404).send({ error: 'not_found', message: 'Resource not found.' });
      }
      return reply
        .status(400)
        .send({ error: 'validation_failed', message: 'The request URL is malformed.', issues: [] });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const core: Core = {
    config,
    database,
    db: database.db,
    dialect: database.dialect,
    clock: deps.clock ?? systemClock,
    ids: deps.ids ?? randomIds,
    metrics: deps.metrics ?? createMetrics(),
    log: app.log,
  };
  const services = createServices(core);
  app.decorate('core', core);
  app.decorate('services', services);

  for (const schema of [
    ...sharedSchemas,
    IssuerSchema,
    ApiKeySchema,
    ...auditSchemas,
    ...usageSchemas,
    ...definitionSchemas,
    ...credentialSchemas,
    ...ingestSchemas,
    ...alignmentSchemas,
    ...endorsementSchemas,
    ...documentSchemas,
    ...webhookSchemas,
    ...verificationSchemas,
    ...pathwaySchemas,
    ...clrSchemas,
    ...gdprSchemas,
    ...trustSchemas,
    ...reportSchemas,
    ...notificationSchemas,
    ...accountSchemas,
    ...walletSchemas,
    ...ltiSchemas,
    ...certificateSchemas,
  ]) {
    app.addSchema(schema);
  }
  app.setValidatorCompiler(createValidatorCompiler(() => app.getSchemas(), schemasAtFirstUse));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, strictJsonParser(app));
  closeApiQueryStrings(app);
  const refuseShadowedMethods = registerErrorHandling(app);

  registerSecurityHeaders(app, headers);
  // First of the request's own work: an over-long URL is refused before keys, limits or routes read it.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.length <= MAX_URL_LENGTH) return done();
    done(new AppError('uri_too_long', `The request URL is longer than ${MAX_URL_LENGTH} characters.`));
  });
  // A write keeps this replica's read caches out of use until its changes are known heard
  // (src/db/read-cache.ts); the verify POSTs write only events and usage, which no cached read shows.
  // A handler hook: a request refused before its handler (unknown route, no key, invalid body)
  // writes nothing, so a flood of them cannot keep the caches out of use.
  app.addHook('preHandler', (request, reply, done) => {
    if (
      request.routeOptions.url !== undefined &&
      request.method !== 'GET' &&
      request.method !== 'HEAD' &&
      request.method !== 'OPTIONS' &&
      !CACHE_NEUTRAL_POSTS.has(request.routeOptions.url ?? '')
    ) {
      reply.raw.once('close', services.readCaches.localWrite('public'));
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    core.metrics.httpRequests.inc(labels);
    core.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  registerCors(app, OPEN_CORS);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Accolade: Open Badges 2.0 credentials service',
        version: API_VERSION,
        description:
          'Issue, manage and verify Open Badges 2.0 credentials. Partner calls carry the issuer API key; verification and the hosted documents are open.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          OAuth2ACG: {
            type: 'oauth2',
            description:
              'The Open Badges API (OB 3.0 §6): OAuth 2.0 authorization code grant with PKCE S256, for an earner; clients register at /ims/ob/v3p0/oauth/register (RFC 7591).',
            flows: {
              authorizationCode: {
                authorizationUrl: `${config.publicBaseUrl}/ims/ob/v3p0/oauth/authorize`,
                tokenUrl: `${config.publicBaseUrl}/ims/ob/v3p0/oauth/token`,
                refreshUrl: `${config.publicBaseUrl}/ims/ob/v3p0/oauth/token`,
                scopes: SCOPE_DESCRIPTIONS,
              },
            },
          },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description: 'The web console session (POST /api/v1/session); changes also need the X-CSRF-Token header.',
          },
        },
      },
    },
    ...documentDecorations,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true }, staticCSP: true });
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, rateLimitExempt: true };
    if (route.config?.auth === 'key' && route.schema) {
      route.schema = { ...route.schema, security: [{ bearerAuth: [] }, { apiKeyHeader: [] }, { consoleSession: [] }] };
    }
    if (route.config?.auth === 'session' && route.schema) {
      route.schema = { ...route.schema, security: [{ consoleSession: [] }] };
    }
    if (route.schema?.querystring) {
      route.schema = { ...route.schema, querystring: defaultsOptional(route.schema.querystring) };
    }
  });

  const limits = createRateLimits({
    openPerMinute: config.openRateLimitPerMinute,
    redis: deps.redis ?? null,
    log: app.log,
  });
  registerAuth(
    app,
    (key) => services.issuers.authenticate(key),
    (token) => services.accounts.authenticate(token),
    (request, reply) => limits.refusalBeforeKeyLookup(request, reply),
  );
  await limits.register(app);

  app.get('/openapi.json', { schema: { hide: true }, config: { rateLimitExempt: true } }, async () => app.swagger());

  await app.register(opsRoutes);
  await app.register(accountRoutes, { count: limits.count });
  await app.register(issuerRoutes);
  await app.register(auditRoutes);
  await app.register(usageRoutes);
  await app.register(definitionRoutes);
  await app.register(credentialRoutes);
  await app.register(ingestRoutes);
  await app.register(alignmentRoutes);
  await app.register(endorsementRoutes);
  await app.register(documentRoutes);
  await app.register(imageRoutes);
  await app.register(webhookRoutes);
  await app.register(profileRoutes);
  await app.register(verificationRoutes);
  await app.register(pageRoutes);
  await app.register(pathwayRoutes);
  await app.register(clrRoutes);
  await app.register(gdprRoutes);
  await app.register(trustRoutes);
  await app.register(reportRoutes);
  await app.register(notificationRoutes);
  await app.register(vcRoutes);
  await app.register(walletRoutes);
  await app.register(backpackRoutes);
  await app.register(ltiRoutes, { count: limits.count });
  await app.register(oauthProviderRoutes);
  await app.register(oauthInteractionRoutes);
  await app.register(obApiRoutes);
  await app.register(backpackSendRoutes);
  await app.register(certificateRoutes);
  await app.register(consoleUiRoutes, deps.consoleDir ? { dir: deps.consoleDir } : {});
  refuseShadowedMethods();

  app.addHook('onReady', async () => {
    for (const job of services.jobs) job.start();
  });
  app.addHook('onClose', async () => {
    for (const job of services.jobs) await job.stop();
  });

  return app;
}
