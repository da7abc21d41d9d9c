import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type Database, migrateToLatest } from '../../src/db/database.js';

export interface Seeded {
  app: FastifyInstance;
  database: Database;
  issuerId: string;
  issuerSlug: string;
  key: string;
  definitionId: string;
  close(): Promise<void>;
}

/**
 * Opens a database in this process, migrates it and creates an enterprise issuer whose rate limit
 * never interferes, with one definition. The app is built (not listening) for in-process rates.
 */
export async function seed(databaseUrl: string, env: Record<string, string> = {}): Promise<Seeded> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    BOOTSTRAP_ISSUER: 'false',
    WEBHOOK_DISPATCH: 'off',
    // PostgreSQL refuses to start without it; the same secret as the harness's servers, so a server
    // started on a seeded database reads the keys the seed made.
    SIGNING_KEY_SECRET: 'bench-harness-signing-secret-not-for-production',
    ...env,
  });
  const database = createDatabase(config.database);
  await migrateToLatest(database);
  const app = await buildApp({ config, database, logger: false });
  await app.services.issuers.updatePlan('enterprise', { requestsPerMinute: 100_000_000 });
  const { issuer, key } = await app.services.issuers.createIssuer({
    name: 'Bench Institute',
    slug: 'bench',
    email: 'bench@bench.example',
    url: 'https://bench.example',
    plan: 'enterprise',
  });
  const definition = await app.services.definitions.create(issuer.id, 'system', {
    name: 'Benchmark Badge',
    description: 'Issued by the benchmark harness',
  });
  return {
    app,
    database,
    issuerId: issuer.id,
    issuerSlug: issuer.slug,
    key: key.key,
    definitionId: definition.id,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
