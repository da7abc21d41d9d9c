import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { expect } from 'vitest';
import { buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import type { Clock } from '../src/core/clock.js';
import { createDatabase, type Database, migrateToLatest } from '../src/db/database.js';

export type TestDialect = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const dialects: TestDialect[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  url: string;
  /** SQLite file path, for tests that scan the stored bytes. */
  file: string | null;
  /** PostgreSQL schema holding this database's tables. */
  schema: string | null;
  drop(): Promise<void>;
}

/** A fresh, empty database: a temp SQLite file, or a new PostgreSQL schema reached via search_path. */
export async function freshDatabase(dialect: TestDialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'accolade-test-'));
    const file = join(dir, 'test.db');
    return {
      url: `sqlite:${file}`,
      file,
      schema: null,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    file: null,
    schema,
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    },
  };
}

export function testConfig(databaseUrl: string, env: Record<string, string> = {}): Readonly<Config> {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: 'https://badges.test',
    LOG_LEVEL: 'silent',
    BOOTSTRAP_ISSUER: 'false',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_DISPATCH: 'off',
    OPEN_RATE_LIMIT_PER_MINUTE: '100000',
    // A deployment on PostgreSQL must set it (server.ts refuses to start without it); so do the tests.
    // On SQLite the generated secret file beside the database is used, as it would be there.
    ...(databaseUrl.startsWith('postgres') ? { SIGNING_KEY_SECRET: 'test-signing-key-secret-not-for-production' } : {}),
    ...env,
  });
}

export interface TestIssuer {
  id: string;
  slug: string;
  key: string;
  salt: string;
}

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  testDb: TestDatabase;
  config: Readonly<Config>;
  /** Creates an issuer with a key; plan defaults to enterprise so quotas never interfere. */
  issuer(options?: { plan?: string; slug?: string; name?: string; brandPrimaryColor?: string }): Promise<TestIssuer>;
  close(): Promise<void>;
}

let issuerCounter = 0;

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  logger?: false | object;
  redis?: Redis | null;
}

export async function createTestApp(dialect: TestDialect, options: TestAppOptions = {}): Promise<TestApp> {
  const testDb = await freshDatabase(dialect);
  const config = testConfig(testDb.url, options.env);
  const database = createDatabase(config.database);
  await migrateToLatest(database);
  const app = await buildApp({
    config,
    database,
    ...(options.clock ? { clock: options.clock } : {}),
    logger: options.logger ?? false,
    redis: options.redis ?? null,
  });
  await app.ready();
  return {
    app,
    database,
    testDb,
    config,
    async issuer(opts = {}) {
      issuerCounter++;
      const slug = opts.slug ?? `issuer-${process.pid}-${issuerCounter}`;
      const { issuer, key } = await app.services.issuers.createIssuer({
        name: opts.name ?? `Issuer ${issuerCounter}`,
        slug,
        email: `contact@${slug}.example`,
        url: `https://${slug}.example`,
        plan: opts.plan ?? 'enterprise',
        brandPrimaryColor: opts.brandPrimaryColor ?? '#123456',
      });
      return { id: issuer.id, slug: issuer.slug, key: key.key, salt: issuer.recipient_salt };
    },
    async close() {
      await app.close();
      await database.close();
      await testDb.drop();
    },
  };
}

export function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

export function redisUrl(): string | null {
  return process.env.REDIS_URL ?? null;
}

/** A controllable clock for expiry and window tests. */
export function manualClock(start = '2026-11-21T10:00:00.000Z') {
  let now = Date.parse(start);
  return {
    now: () => new Date(now),
    set(iso: string) {
      now = Date.parse(iso);
    },
    advance(ms: number) {
      now += ms;
    },
  };
}

export function expectErrorBody(res: LightMyRequestResponse, status: number, code: string): Record<string, unknown> {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json() as Record<string, unknown>;
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe('string');
  return body;
}

type RequestSpec = Omit<InjectOptions, 'headers'> & { headers?: Record<string, string> };

/**
 * The shared security matrix every keyed route gets: no key, a malformed key, an unknown well-formed
 * key → 401 Error body, under both header forms.
 */
export async function expectKeyRequired(app: FastifyInstance, request: RequestSpec): Promise<void> {
  const cases: Record<string, string>[] = [
    {},
    { authorization: 'Bearer not-a-key' },
    { authorization: `Bearer acc_${'x'.repeat(40)}` },
    { 'x-api-key': `acc_${'y'.repeat(40)}` },
    { authorization: 'Basic dXNlcjpwYXNz' },
  ];
  for (const headers of cases) {
    const res = await app.inject({ ...request, headers: { ...request.headers, ...headers } } as InjectOptions);
    expectErrorBody(res, 401, 'unauthorized');
  }
}

/**
 * Another issuer's resource must look exactly like a missing one: same status, same body, under
 * both key headers. `missing` is the same request with an id that does not exist.
 */
export async function expectHiddenFromOtherIssuer(
  app: FastifyInstance,
  otherKey: string,
  foreign: RequestSpec,
  missing: RequestSpec,
): Promise<void> {
  for (const header of [{ authorization: `Bearer ${otherKey}` }, { 'x-api-key': otherKey }]) {
    const a = await app.inject({ ...foreign, headers: { ...foreign.headers, ...header } } as InjectOptions);
    const b = await app.inject({ ...missing, headers: { ...missing.headers, ...header } } as InjectOptions);
    expect(a.statusCode, a.body).toBe(404);
    expect(b.statusCode).toBe(404);
    expect(a.body.replace(/[0-9a-f-]{36}/g, 'ID')).toBe(b.body.replace(/[0-9a-f-]{36}/g, 'ID'));
  }
}

export function redisClient(): Redis | null {
  const url = redisUrl();
  return url ? new Redis(url) : null;
}
