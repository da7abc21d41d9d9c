import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintDocument } from '../scripts/lint-openapi.js';
import { NO_NUL_PATTERN, RATE_LIMIT_EXEMPT } from '../src/core/openapi.js';
import { EMAIL_PATTERN, HTTPS_URL_PATTERN, WEB_URL_PATTERN } from '../src/core/schemas.js';
import { createWebhookBody } from '../src/modules/webhooks/webhooks.schemas.js';
import { type ConsoleUser, consoleUser } from './console.support.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

type Operation = {
  security?: Record<string, unknown>[];
  'x-rate-limit'?: string;
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};

function operations(doc: { paths: Record<string, Record<string, Operation>> }): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );
}

/** Every object schema in `schema` that lists properties, with its JSON pointer. */
function objectSchemas(schema: unknown, at = ''): [string, Record<string, unknown>][] {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const own: [string, Record<string, unknown>][] = node.type === 'object' && node.properties ? [[at, node]] : [];
  return [...own, ...Object.entries(node).flatMap(([key, child]) => objectSchemas(child, `${at}/${key}`))];
}

const RATE_LIMIT_HEADERS = ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

describe('OpenAPI document on sqlite', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('is a valid OpenAPI 3.0.3 document at /openapi.json', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('1.1.0');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'OAuth2ACG',
      'apiKeyHeader',
      'bearerAuth',
      'consoleSession',
    ]);
    expect(doc.components.schemas.Error).toBeDefined();
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('gives every operation an operationId, tags and responses; keyed ones declare security', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ids = new Set<string>();
    for (const [path, methods] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.operationId, `${method} ${path}`).toEqual(expect.any(String));
        expect(ids.has(op.operationId as string), `duplicate ${op.operationId}`).toBe(false);
        ids.add(op.operationId as string);
        expect(op.tags, `${method} ${path}`).toEqual(expect.any(Array));
        expect(Object.keys(op.responses as object).length).toBeGreaterThan(0);
        const responses = op.responses as Record<string, unknown>;
        if (responses['401'] && path.startsWith('/api/v1')) expect(op.security, `${method} ${path}`).toBeDefined();
        // Found by Redocly (security-defined): an open operation says it is open.
        expect(op.security, `${method} ${path}`).toEqual(expect.any(Array));
      }
    }
    expect(doc.paths['/api/v1/credentials'].post.security).toEqual([
      { bearerAuth: [] },
      { apiKeyHeader: [] },
      { consoleSession: [] },
    ]);
    expect(doc.paths['/api/v1/users'].get.security).toEqual([{ consoleSession: [] }]);
    expect(doc.paths['/api/v1/verify'].post.security).toEqual([]);
    expect(doc.paths['/v1/issuers/{slug}'].get.security).toEqual([]);
    const listParams = doc.paths['/api/v1/credentials'].get.parameters as { name: string; required?: boolean }[];
    expect(listParams.filter((p) => p.required).map((p) => p.name)).toEqual([]);
  });

  it('documents the 400, 413 and 415 the error handler answers before any route runs', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [path, methods] of Object.entries<Record<string, { parameters?: unknown[]; responses: object }>>(
      doc.paths,
    )) {
      for (const [method, op] of Object.entries(methods)) {
        const statuses = Object.keys(op.responses);
        if (['post', 'put', 'patch', 'delete'].includes(method)) {
          expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '413', '415']));
        } else if ((op.parameters ?? []).length > 0) {
          expect(statuses, `${method} ${path}`).toContain('400');
        }
      }
    }
    // Found by the OpenAPI fuzzer: a body of another media type answered an undocumented 415.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { 'content-type': 'application/xml' },
      payload: '<id>x</id>',
    });
    expect(res.statusCode).toBe(415);
    expect(doc.paths['/api/v1/verify'].post.responses['415'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });

  it('writes every fixed set of strings as one enum, not a union of single values', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const { schemas } = doc.components;
    expect(schemas.VerificationResult.properties.status).toEqual({
      type: 'string',
      enum: ['valid', 'expired', 'revoked', 'unknown'],
    });
    expect(schemas.CredentialDetail.properties.status).toEqual({
      type: 'string',
      enum: ['valid', 'expired', 'revoked'],
    });
    const unions: string[] = [];
    const walk = (value: unknown, path: string): void => {
      if (value === null || typeof value !== 'object') return;
      const anyOf = (value as { anyOf?: { enum?: unknown[] }[] }).anyOf;
      if (anyOf?.every((branch) => branch.enum?.length === 1)) unions.push(path);
      for (const [key, child] of Object.entries(value)) walk(child, `${path}/${key}`);
    };
    walk(doc, '');
    expect(unions).toEqual([]);
  });

  it('passes Redocly CLI with no error, and Redocly fails an operation that does not say who may call it', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const clean = lintDocument(JSON.stringify(doc, null, 2));
    expect(clean.output).toContain('Your API description is valid');
    expect(clean.status).toBe(0);
    delete doc.paths['/api/v1/verify'].post.security;
    const broken = lintDocument(JSON.stringify(doc, null, 2));
    expect(broken.output).toContain('security-defined');
    expect(broken.status).not.toBe(0);
  }, 120_000);

  it('serves the docs UI offline', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('swagger-ui');
  });
});

describe.each(dialects)('OpenAPI document says what the service does on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let owner: ConsoleUser;
  let doc: {
    info: { description: string };
    paths: Record<string, Record<string, Operation>>;
    components: Record<string, Record<string, unknown>>;
  };
  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { METRICS_TOKEN: 'scrape-token-0123456789' } });
    issuer = await t.issuer();
    owner = await consoleUser(t.app, issuer.id, 'owner');
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  afterAll(async () => t.close());

  it('declares the rate-limit headers of every 429 and marks the exempt operations', async () => {
    const exempt: string[] = [];
    for (const [name, op] of operations(doc)) {
      if (op['x-rate-limit'] === RATE_LIMIT_EXEMPT) {
        exempt.push(name);
        expect(op.responses['429'], name).toBeUndefined();
      } else {
        expect(Object.keys(op.responses['429']?.headers ?? {}), name).toEqual(RATE_LIMIT_HEADERS);
      }
    }
    expect(exempt.sort()).toEqual(['GET /health', 'GET /health/ready', 'GET /metrics']);
    for (const header of Object.values(doc.paths['/api/v1/verify']?.post?.responses['429']?.headers ?? {})) {
      const ref = (header as { $ref: string }).$ref.replace('#/components/headers/', '');
      expect(doc.components.headers?.[ref], ref).toBeDefined();
    }
  });

  it('sends every header a 429 declares, and never limits the exempt operations', async () => {
    const limited = await createTestApp(dialect, { env: { OPEN_RATE_LIMIT_PER_MINUTE: '1' } });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await limited.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      }
      await limited.app.inject({ method: 'GET', url: '/api/v1/webhooks/catalog' });
      const res = await limited.app.inject({ method: 'GET', url: '/api/v1/webhooks/catalog' });
      expect(res.statusCode).toBe(429);
      for (const header of RATE_LIMIT_HEADERS) expect(res.headers[header.toLowerCase()], header).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });

  it('says revoke and reissue take an optional body, and takes the call without one', async () => {
    for (const path of ['/api/v1/credentials/{id}/revoke', '/api/v1/credentials/{id}/reissue']) {
      expect(doc.paths[path]?.post?.requestBody?.required, path).toBe(false);
    }
    const text = JSON.stringify(doc);
    expect(text).not.toContain('x-optional-body');
    expect(text).not.toContain('x-nul-checked-by-handler');
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Body-less', description: 'Revoked without a body' },
    });
    const credential = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId: definition.json().id, recipientEmail: 'bodyless@example.test', completionKey: 'k-1' },
    });
    const id = credential.json().credentialId as string;
    const reissued = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/reissue`,
      headers: auth(issuer.key),
    });
    expect(reissued.statusCode).toBe(201);
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${reissued.json().credentialId}/revoke`,
      headers: auth(issuer.key),
    });
    expect(revoked.statusCode).toBe(200);
  });

  it('closes every request body object, as the validator does, and the service refuses unknown properties', async () => {
    const bodies = operations(doc).filter(([, op]) => op.requestBody?.content['application/json']);
    expect(bodies.length).toBeGreaterThan(20);
    const open: string[] = [];
    for (const [name, op] of bodies) {
      const schema = op.requestBody?.content['application/json']?.schema;
      for (const [at, object] of objectSchemas(schema)) {
        expect(object.additionalProperties, `${name} ${at}`).toBeDefined();
      }
      // A connector body is a raw record itself when it has no `records`: it takes any property.
      if (schema?.additionalProperties === true) {
        open.push(name);
        continue;
      }
      expect(schema?.additionalProperties, name).toBe(false);
      const [method, path] = name.split(' ') as [string, string];
      // Console-only routes take the console session, every other one the API key.
      const consoleOnly = (op.security ?? []).every((s) => 'consoleSession' in s) && (op.security ?? []).length > 0;
      const res = await t.app.inject({
        method: method as 'POST',
        url: path.replace(/\{[^}]+\}/g, 'x'),
        headers: consoleOnly ? owner.headers : auth(issuer.key),
        payload: { notInTheDocument: 1 },
      });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().issues, name).toContainEqual(expect.objectContaining({ code: 'additionalProperties' }));
    }
    // So is a credential or a Profile given to the Open Badges API: any JSON-LD the earner's apps hold.
    expect(open).toEqual([
      'POST /api/v1/connectors/axcelerate/completions',
      'POST /api/v1/connectors/{provider}/completions',
      'POST /ims/ob/v3p0/credentials',
      'PUT /ims/ob/v3p0/profile',
    ]);
  });

  it('says in its schemas what the service refuses: a dotted email domain, U+0000, an http webhook in production', async () => {
    const issue = doc.paths['/api/v1/credentials']?.post?.requestBody?.content['application/json']?.schema ?? {};
    const email = (issue.properties as Record<string, { pattern?: string; format?: string }>).recipientEmail;
    expect(email).toEqual(expect.objectContaining({ pattern: EMAIL_PATTERN }));
    expect(email?.format).toBeUndefined();
    const emailPattern = new RegExp(EMAIL_PATTERN, 'u');
    for (const refused of ['0@com', 'ada@localhost', 'ada@[127.0.0.1]']) expect(emailPattern.test(refused)).toBe(false);
    expect(emailPattern.test(' ada@example.org ')).toBe(true);
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Contract', description: 'd' },
    });
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId: definition.json().id, recipientEmail: '0@com' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().issues).toContainEqual(expect.objectContaining({ path: '/recipientEmail' }));

    // Every request string says it takes no U+0000: by this pattern, or by a format, pattern or enum of its own.
    const open: string[] = [];
    const visit = (schema: unknown, at: string) => {
      if (schema === null || typeof schema !== 'object') return;
      const node = schema as Record<string, unknown>;
      if (node.type === 'string' && !node.pattern && !node.format && !node.enum) open.push(at);
      for (const [key, child] of Object.entries(node)) if (key !== 'enum') visit(child, `${at}/${key}`);
    };
    for (const [name, op] of operations(doc)) {
      visit(op.requestBody, name);
      visit((op as { parameters?: unknown[] }).parameters, name);
    }
    expect(open).toEqual([]);
    const definitionBody = doc.paths['/api/v1/definitions']?.post?.requestBody?.content['application/json']?.schema;
    const definitionFields = (definitionBody?.properties ?? {}) as Record<string, { pattern?: string }>;
    expect(definitionFields.description?.pattern).toBe(NO_NUL_PATTERN);
    const nul = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Contract', description: 'a\u0000b' },
    });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().issues).toEqual([expect.objectContaining({ path: '/description', code: 'nul' })]);

    // These tests run with WEBHOOK_ALLOW_PRIVATE (http allowed); a production deployment's document says https.
    const webhook = doc.paths['/api/v1/webhooks']?.post?.requestBody?.content['application/json']?.schema ?? {};
    expect((webhook.properties as Record<string, { pattern?: string }>).url?.pattern).toBe(WEB_URL_PATTERN);
    const production = createWebhookBody(false).properties.url;
    expect(production.pattern).toBe(HTTPS_URL_PATTERN);
    expect(new RegExp(production.pattern ?? '', 'u').test('http://hooks.example.com/a')).toBe(false);
    expect(new RegExp(production.pattern ?? '', 'u').test('https://hooks.example.com/a')).toBe(true);
  });

  it('documents the image upload body with its media types, and takes an SVG under it', async () => {
    const upload = doc.paths['/api/v1/images']?.post;
    expect(upload?.requestBody?.required).toBe(true);
    expect(upload?.requestBody?.content).toEqual({
      'image/png': { schema: { type: 'string', format: 'binary' } },
      'image/svg+xml': { schema: { type: 'string', format: 'binary' } },
    });
    expect(JSON.stringify(upload)).not.toContain('x-raw-body');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/images',
      headers: { ...auth(issuer.key), 'content-type': 'image/svg+xml' },
      payload: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="4" height="4"/></svg>',
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('refuses unknown query parameters on every /api/ operation and ignores them on public pages, as its info says', async () => {
    expect(doc.info.description).toContain('answers 400 validation_failed to a query parameter it does not list');
    const reads = operations(doc).filter(([name]) => name.startsWith('GET /api/'));
    expect(reads.length).toBeGreaterThan(20);
    for (const [name, op] of reads) {
      const path = name.slice('GET '.length).replace(/\{[^}]+\}/g, '0f8fad5b-d9cb-469f-a165-70867728950e');
      const consoleOnly = (op.security ?? []).every((s) => 'consoleSession' in s) && (op.security ?? []).length > 0;
      const res = await t.app.inject({
        method: 'GET',
        url: `${path}?notInTheDocument=1`,
        headers: consoleOnly ? owner.headers : auth(issuer.key),
      });
      expect(res.statusCode, name).toBe(400);
      expect(op.responses['400'], name).toBeDefined();
      expect(res.json().issues, name).toContainEqual({
        path: '/notInTheDocument',
        message: 'querystring/notInTheDocument is not a known property',
        code: 'additionalProperties',
      });
    }
    // A documented parameter is still taken, and public links keep working with what gets added to them.
    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/credentials?limit=5', headers: auth(issuer.key) });
    expect(listed.statusCode).toBe(200);
    for (const url of ['/health?utm_source=x', '/openapi.json?v=2', '/embed/v1.js?cache=1']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
  });

  it('takes the largest bulk verification its schema allows: schema and body limit agree', async () => {
    const body = doc.paths['/api/v1/verify/bulk']?.post?.requestBody?.content['application/json']?.schema ?? {};
    const forms = (body.properties as { ids: { anyOf: { maxItems: number; items: { maxLength: number } }[] } }).ids
      .anyOf;
    expect(forms.length).toBe(2);
    for (const form of forms) {
      const ids = Array.from({ length: form.maxItems }, (_, i) => String(i).padEnd(form.items.maxLength, 'x'));
      const payload = JSON.stringify({ ids });
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(1024 * 1024);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify/bulk',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      expect(res.json().results).toHaveLength(form.maxItems);
    }
    const tooMany = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify/bulk',
      payload: { ids: Array.from({ length: 121 }, () => 'x'.repeat(1001)) },
    });
    expect(tooMany.statusCode).toBe(400);
  });

  it('documents the 414 and 431 every operation may answer before routing', async () => {
    for (const [name, op] of operations(doc)) {
      for (const status of ['414', '431']) {
        expect(op.responses[status]?.content, `${name} ${status}`).toEqual({
          'application/json': { schema: { $ref: '#/components/schemas/Error' } },
        });
      }
    }
  });

  it('gives the webhook url the format the service enforces', async () => {
    const body = doc.paths['/api/v1/webhooks']?.post?.requestBody?.content['application/json']?.schema ?? {};
    expect((body.properties as Record<string, { format?: string }>).url?.format).toBe('uri');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth(issuer.key),
      payload: { url: 'https://hooks.example.com/a b', events: ['credential.issued'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().issues).toEqual([expect.objectContaining({ path: '/url', code: 'format' })]);
  });

  it('documents the /metrics 401 as the JSON it is, and a Location on every redirect', async () => {
    const metrics = doc.paths['/metrics']?.get;
    expect(Object.keys(metrics?.responses['401']?.content ?? {})).toEqual(['application/json']);
    expect(Object.keys(metrics?.responses['200']?.content ?? {})).toEqual(['text/plain']);
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().error).toBe('unauthorized');
    const redirects = operations(doc).flatMap(([name, op]) =>
      Object.entries(op.responses)
        .filter(([status]) => /^3\d\d$/.test(status) && status !== '304')
        .map(([status, response]) => [`${name} ${status}`, response.headers?.Location] as const),
    );
    expect(redirects.map(([name]) => name).sort()).toEqual([
      'GET /backpack/account/delete 303',
      'GET /backpack/import 303',
      'GET /backpack/send 303',
      'GET /lti/login 302',
      'GET /sso/callback 302',
      'GET /sso/start/{slug} 302',
      'GET /v1/issuers/{slug}/assertions/{id} 303',
      'GET /verify/{slug}/{id}/share/{action} 302',
      'POST /backpack/apps/{clientId}/revoke 303',
      'POST /backpack/collections 303',
      'POST /backpack/collections/{id}/add 303',
      'POST /backpack/collections/{id}/delete 303',
      'POST /backpack/collections/{id}/remove 303',
      'POST /backpack/collections/{id}/visibility 303',
      'POST /backpack/imports 303',
      'POST /backpack/imports/{id}/check 303',
      'POST /backpack/imports/{id}/delete 303',
      'POST /backpack/sent/check 303',
      'POST /backpack/sign-in/{link} 303',
      'POST /backpack/sign-out 303',
      'POST /lti/login 302',
    ]);
    for (const [name, location] of redirects) expect(location, name).toEqual({ $ref: '#/components/headers/Location' });
  });
});
