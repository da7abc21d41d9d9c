import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Database, Db, Dialect } from '../db/database.js';
import type { Clock, IdSource } from './clock.js';
import type { Metrics } from './metrics.js';

/** What every service factory may depend on: the outside world, injected once. */
export interface Core {
  config: Readonly<Config>;
  database: Database;
  db: Db;
  dialect: Dialect;
  clock: Clock;
  ids: IdSource;
  metrics: Metrics;
  log: FastifyBaseLogger;
}

/** The issuer a request authenticated as, with the plan limits that apply to it. */
export interface AuthContext {
  issuerId: string;
  issuerSlug: string;
  apiKeyId: string;
  planCode: string;
  requestsPerMinute: number;
}
