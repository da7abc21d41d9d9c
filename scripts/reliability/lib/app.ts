import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../../src/app.js';
import { type Config, loadConfig } from '../../../src/config.js';
import { createDatabase, type Database, migrateToLatest } from '../../../src/db/database.js';

export type Dialect = 'sqlite' | 'postgres';

/** The PostgreSQL server the reliability scripts use: CI's TEST_DATABASE_URL, else the local one. */
function postgresBaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

export interface HarnessDatabase {
  dialect: Dialect;
  url: string;
  /** SQLite file (its -wal and -shm sit beside it). */
  file: string | null;
  /** PostgreSQL schema holding the tables, when the database is a schema of the shared one. */
  schema: string | null;
  /** PostgreSQL database created for this run alone (for pg_dump and statement logging). */
  pgDatabase: string | null;
  drop(): Promise<void>;
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty database. PostgreSQL gets a schema in the shared database, or with `ownDatabase`
 * a database of its own, optionally logging every statement (a database-level setting: the
 * server's configuration is shared and left alone).
 */
export async function freshDatabase(
  dialect: Dialect,
  options: { ownDatabase?: boolean; logStatements?: boolean } = {},
): Promise<HarnessDatabase> {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'accolade-reliability-'));
    const file = join(dir, 'reliability.db');
    return {
      dialect,
      url: `sqlite:${file}`,
      file,
      schema: null,
      pgDatabase: null,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = postgresBaseUrl();
  if (options.ownDatabase) {
    const name = `rel_${suffix}`;
    await adminQuery(base, `create database ${name}`);
    if (options.logStatements) await adminQuery(base, `alter database ${name} set log_statement = 'all'`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    return {
      dialect,
      url: url.toString(),
      file: null,
      schema: null,
      pgDatabase: name,
      drop: () => adminQuery(base, `drop database if exists ${name} with (force)`),
    };
  }
  const schema = `rel_${suffix}`;
  await adminQuery(base, `create schema ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    dialect,
    url: url.toString(),
    file: null,
    schema,
    pgDatabase: null,
    drop: () => adminQuery(base, `drop schema ${schema} cascade`),
  };
}

export interface HarnessIssuer {
  id: string;
  slug: string;
  key: string;
  salt: string;
}

export interface HarnessApp {
  app: FastifyInstance;
  database: Database;
  storage: HarnessDatabase;
  config: Readonly<Config>;
  /** An issuer on the enterprise plan (no quota, premium verification) with a fresh API key. */
  issuer(label: string): Promise<HarnessIssuer>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  logger?: FastifyServerOptions['logger'];
  storage?: HarnessDatabase;
}

/** Far above anything a harness sends, so a 429 never hides what a request would have answered. */
const UNLIMITED_PER_MINUTE = 100_000_000;

/**
 * The production app (buildApp) on a fresh database, with rate limits lifted out of the way:
 * the enterprise plan and the open endpoints both allow far more requests than a run sends.
 */
export async function startHarnessApp(dialect: Dialect, options: HarnessOptions = {}): Promise<HarnessApp> {
  const storage = options.storage ?? (await freshDatabase(dialect));
  const config = loadConfig({
    DATABASE_URL: storage.url,
    PUBLIC_BASE_URL: 'https://badges.test',
    LOG_LEVEL: 'silent',
    BOOTSTRAP_ISSUER: 'false',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_DISPATCH: 'off',
    OPEN_RATE_LIMIT_PER_MINUTE: String(UNLIMITED_PER_MINUTE),
    // Durability is measured by the crash tests; here an fsync per commit would only slow the run.
    SQLITE_SYNCHRONOUS: 'NORMAL',
    // A deployment on PostgreSQL must set it (server.ts refuses to start without it); so do the harnesses.
    ...(dialect === 'postgres' ? { SIGNING_KEY_SECRET: 'reliability-signing-key-secret-not-for-production' } : {}),
    ...options.env,
  });
  const database = createDatabase(config.database);
  await migrateToLatest(database);
  const app = await buildApp({ config, database, logger: options.logger ?? false, redis: null });
  await app.ready();
  await app.services.issuers.updatePlan('enterprise', { requestsPerMinute: UNLIMITED_PER_MINUTE });
  let issued = 0;
  return {
    app,
    database,
    storage,
    config,
    async issuer(label) {
      issued++;
      const slug = `${label}-${randomBytes(3).toString('hex')}-${issued}`;
      const { issuer, key } = await app.services.issuers.createIssuer({
        name: `Reliability ${label} ${issued}`,
        slug,
        email: `contact@${slug}.example`,
        url: `https://${slug}.example`,
        plan: 'enterprise',
        brandPrimaryColor: '#123456',
      });
      return { id: issuer.id, slug: issuer.slug, key: key.key, salt: issuer.recipient_salt };
    },
    async close() {
      await app.close();
      await database.close();
      await storage.drop();
    },
  };
}
