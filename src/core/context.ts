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

/** A console user's role: owner > issuer > viewer (each may do what the ones after it may). */
export type Role = 'owner' | 'issuer' | 'viewer';

/** A console user signed in by the session cookie. */
export interface SessionAuth {
  userId: string;
  role: Role;
  /** The session's CSRF token, derived from the session token the request presented. */
  csrfToken: string;
  /** Its SHA-256 (hex) as stored with the session: what a change's X-CSRF-Token is checked against. */
  csrfHash: string;
  tokenHash: string;
}

/**
 * The issuer a request authenticated as, with the plan limits that apply to it: by an API key
 * (`apiKeyId`; full access) or by a console session (`session`; limited by its role).
 */
export interface AuthContext {
  issuerId: string;
  issuerSlug: string;
  apiKeyId: string | null;
  session: SessionAuth | null;
  planCode: string;
  requestsPerMinute: number;
}
