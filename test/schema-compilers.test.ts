import type { FastifySchema } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { serializerFactory } from '../src/core/serialization.js';
import { createValidatorCompiler } from '../src/core/validation.js';
import { createDatabase } from '../src/db/database.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

const shared = { Name: { $id: 'Name', type: 'string', minLength: 2 } };
const route = { method: 'POST', url: '/things', httpStatus: '200' };
const broken = { type: 'object', properties: { a: { $ref: 'Missing#' } } };

describe('schema compilers at first use', () => {
  it('compile a serializer at its first answer, which then writes what an eager one writes', () => {
    const schema = { type: 'object', properties: { name: { $ref: 'Name#' }, n: { type: 'integer' } } };
    const lazy = serializerFactory(true)(shared)({ ...route, schema });
    const eager = serializerFactory(false)(shared)({ ...route, schema });
    const doc = { name: 'Ada', n: 3, secret: 'dropped' };
    expect(lazy(doc)).toBe('{"name":"Ada","n":3}');
    expect(lazy(doc)).toBe(eager(doc));
  });

  it('leave a broken response schema to its first answer instead of the start', () => {
    const serialize = serializerFactory(true)(shared)({ ...route, schema: broken });
    expect(() => serialize({ a: 1 })).toThrow(/Missing/);
    expect(() => serializerFactory(false)(shared)({ ...route, schema: broken })).toThrow(/Missing/);
  });

  it('give a validator the errors an eager one gives, call after call', () => {
    const schema = { type: 'object', properties: { name: { $ref: 'Name#' } }, required: ['name'] } as FastifySchema;
    const lazy = createValidatorCompiler(() => shared, true)({ schema, method: 'POST', url: '/', httpPart: 'body' });
    const eager = createValidatorCompiler(() => shared, false)({ schema, method: 'POST', url: '/', httpPart: 'body' });
    for (const body of [{ name: 'A' }, { name: 'Ada' }, { name: 'Ada', extra: 1 }, { name: 'x\u0000y' }, {}]) {
      const lazyOk = (lazy as (data: unknown) => boolean)(body);
      const eagerOk = (eager as (data: unknown) => boolean)(body);
      expect(lazyOk).toBe(eagerOk);
      expect((lazy as { errors?: unknown }).errors).toEqual((eager as { errors?: unknown }).errors);
    }
    expect((lazy as (data: unknown) => boolean)({ name: 'A' })).toBe(false);
    expect((lazy as { errors?: unknown[] }).errors?.[0]).toMatchObject({ keyword: 'minLength', instancePath: '/name' });
  });

  it('leave a broken request schema to its first request instead of the start', () => {
    const part = { schema: broken as FastifySchema, method: 'POST', url: '/', httpPart: 'querystring' };
    const validate = createValidatorCompiler(() => shared, true)(part) as (data: unknown) => boolean;
    expect(() => validate({ a: '1' })).toThrow(/Missing/);
    expect(() => createValidatorCompiler(() => shared, false)(part)).toThrow(/Missing/);
  });
});

describe.each(dialects)('the service compiled eagerly and at first use on %s', (dialect) => {
  let lazy: TestApp;
  let eager: Awaited<ReturnType<typeof buildApp>>;
  let issuer: TestIssuer;
  let dropEager: () => Promise<void>;
  beforeAll(async () => {
    lazy = await createTestApp(dialect);
    issuer = await lazy.issuer();
    // The same database behind both, so both answer about the same issuer.
    const database = createDatabase(lazy.config.database);
    eager = await buildApp({ config: lazy.config, database, logger: false, compileSchemasAtStart: true });
    // Every route's validators and serializers compile here: a schema that cannot is an error now.
    await eager.ready();
    dropEager = async () => {
      await eager.close();
      await database.close();
    };
    // Compiling every schema at once took 13 s of CPU on a loaded 2-core machine.
  }, 240_000);
  afterAll(async () => {
    await dropEager?.();
    await lazy.close();
  });

  const requests = [
    { method: 'GET' as const, url: '/api/v1/issuer' },
    { method: 'GET' as const, url: '/api/v1/credentials?status=pending' },
    { method: 'GET' as const, url: '/api/v1/credentials?limit=2' },
    { method: 'POST' as const, url: '/api/v1/definitions', payload: { name: 'x', unknown: true } },
    { method: 'POST' as const, url: '/api/v1/definitions', payload: { name: 'Badge', description: 'A badge.' } },
    { method: 'POST' as const, url: '/api/v1/verify', payload: { id: 'not-a-credential' } },
  ];

  it('answer every request with the same status and body', async () => {
    for (const request of requests) {
      const headers = auth(issuer.key);
      const a = await lazy.app.inject({ ...request, headers });
      const b = await eager.inject({ ...request, headers });
      expect(a.statusCode, request.url).toBe(b.statusCode);
      const strip = (body: string) => body.replace(/"(id|slug|createdAt|updatedAt)":"[^"]*"/g, '"$1":""');
      expect(strip(a.body), request.url).toBe(strip(b.body));
    }
  });
});
