import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

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
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKeyHeader', 'bearerAuth']);
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
      }
    }
    expect(doc.paths['/api/v1/credentials'].post.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
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

  it('serves the docs UI offline', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('swagger-ui');
  });
});
