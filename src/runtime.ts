import type { Redis } from 'ioredis';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createDatabase, type Database, migrateToLatest } from './db/database.js';
import { createWebhookSecrets, sealStoredSecrets } from './modules/webhooks/webhook-secrets.js';

/** Loads configuration or exits 1 with the reasons: shared by the server and the CLI. */
export function configOrExit(): Readonly<Config> {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/**
 * Opens the configured database and brings its schema up to date, then seals any webhook secret
 * still stored in the clear (written before secrets were sealed; the migrations cannot, having no
 * key-encryption key).
 */
export async function openDatabase(config: Readonly<Config>, log?: { error(o: unknown, m?: string): void }) {
  const database: Database = createDatabase(config.database, log);
  await migrateToLatest(database);
  await sealStoredSecrets(database.db, createWebhookSecrets(config));
  return database;
}

/** A Redis client when REDIS_URL is set; ioredis (about 40 modules) is loaded only then. */
export async function openRedis(config: Readonly<Config>): Promise<Redis | null> {
  if (!config.redisUrl) return null;
  const { Redis } = await import('ioredis');
  return new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
}
