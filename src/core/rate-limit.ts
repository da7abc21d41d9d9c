import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from './errors.js';

const WINDOW_MS = 60_000;
const REDIS_PREFIX = 'accolade-rl:';
/** A shared count that takes longer than this is given up for the replica's own. */
const REDIS_TIMEOUT_MS = 500;
/** After Redis failed, how long each replica counts alone before asking Redis again. */
export const REDIS_RETRY_MS = 1_000;
/** Local windows kept at most (expired ones go first, then the oldest). */
const LOCAL_KEYS_MAX = 10_000;

interface Count {
  current: number;
  ttl: number;
}

/** Adds `units` to `key`'s count in the current window and answers the new count and the time left. */
export type Counter = (key: string, windowMs: number, units: number) => Promise<Count>;

/** One fixed window per key, counted in this process. */
function createLocalCounts() {
  const windows = new Map<string, { current: number; startedAt: number }>();
  return (key: string, windowMs: number, units: number): Count => {
    const now = Date.now();
    let window = windows.get(key);
    if (!window || window.startedAt + windowMs <= now) {
      windows.delete(key);
      if (windows.size >= LOCAL_KEYS_MAX) {
        for (const [k, w] of windows) if (w.startedAt + windowMs <= now) windows.delete(k);
        const oldest = windows.keys().next();
        if (windows.size >= LOCAL_KEYS_MAX && !oldest.done) windows.delete(oldest.value);
      }
      window = { current: 0, startedAt: now };
      windows.set(key, window);
    }
    window.current += units;
    return { current: window.current, ttl: window.startedAt + windowMs - now };
  };
}

/** INCRBY with the window set on the first hit of a window, and the time left: one round trip. */
const INCR_LUA = `local current = redis.call('INCRBY', KEYS[1], ARGV[2])
if current == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {current, ttl}`;

/**
 * The count shared by every replica through Redis. While Redis does not answer (down, restarting,
 * unreachable or stalled past REDIS_TIMEOUT_MS) each replica counts on its own instead, so requests
 * are still served and still limited (a client may then reach replicas × the limit) rather than
 * failing; Redis is asked again every REDIS_RETRY_MS and takes over once it answers.
 */
function sharedCounter(redis: Redis, log: FastifyBaseLogger): Counter {
  const local = createLocalCounts();
  let retryAt = 0;

  async function sharedCount(key: string, windowMs: number, units: number): Promise<Count> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const [current, ttl] = (await Promise.race([
        redis.eval(INCR_LUA, 1, `${REDIS_PREFIX}${key}`, windowMs, units),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_TIMEOUT_MS} ms`)), REDIS_TIMEOUT_MS);
        }),
      ])) as [number, number];
      return { current, ttl };
    } finally {
      clearTimeout(timer);
    }
  }

  return async (key, windowMs, units) => {
    if (Date.now() < retryAt) return local(key, windowMs, units);
    try {
      const count = await sharedCount(key, windowMs, units);
      if (retryAt !== 0) log.info('rate limits: Redis answers again; counts are shared by the replicas');
      retryAt = 0;
      return count;
    } catch (err) {
      if (retryAt === 0) log.warn({ err }, 'rate limits: Redis does not answer; each replica counts on its own');
      retryAt = Date.now() + REDIS_RETRY_MS;
      return local(key, windowMs, units);
    }
  };
}

/** The plugin's store over a counter: one unit per request. */
function storeOver(counter: Counter): FastifyRateLimitStoreCtor {
  return class CounterStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: Count) => void, windowMs: number = WINDOW_MS): void {
      counter(key, windowMs, 1).then(
        (count) => callback(null, count),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * Client addresses this replica has refused under the open limit, until their window ends: a request
 * from one of them is refused before its key is looked up, so a flood of made-up keys from an address
 * over its limit costs no database query (each replica looks up at most one key after the address
 * went over). Bounded like the local counts.
 */
function createAddressBlocks() {
  const until = new Map<string, number>();
  return {
    block(address: string, ttlMs: number): void {
      const now = Date.now();
      until.delete(address);
      if (until.size >= LOCAL_KEYS_MAX) {
        for (const [a, end] of until) if (end <= now) until.delete(a);
        const oldest = until.keys().next();
        if (until.size >= LOCAL_KEYS_MAX && !oldest.done) until.delete(oldest.value);
      }
      until.set(address, now + ttlMs);
    },
    /** Milliseconds left of the address's refused window; 0 when it is not refused. */
    remaining(address: string): number {
      const end = until.get(address);
      if (end === undefined) return 0;
      const left = end - Date.now();
      if (left <= 0) until.delete(address);
      return Math.max(0, left);
    },
  };
}

/** A bulk verification costs one unit of the open limit per this many ids (rounded up) that are not VC-JWTs. */
export const BULK_IDS_PER_UNIT = 50;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What one request costs in units of the rate limit (default 1), known once the body is parsed. */
    rateLimitCost?: (request: FastifyRequest) => number;
  }
}

export interface RateLimits {
  /**
   * For a request from an address this replica already refused in the current window: the 429 (its
   * headers set on `reply`), answered without looking at the key; otherwise null.
   */
  refusalBeforeKeyLookup(request: FastifyRequest, reply: FastifyReply): AppError | null;
  register(app: FastifyInstance): Promise<void>;
  /** The same counts (shared through Redis when configured), for limits of their own (sign-in). */
  count: Counter;
}

function refusal(max: number, ttlMs: number): AppError {
  return new AppError(
    'rate_limited',
    `Rate limit of ${max} requests per minute exceeded; retry in ${Math.ceil(ttlMs / 1000)} s.`,
  );
}

function setRefusalHeaders(reply: FastifyReply, max: number, ttlMs: number): void {
  const seconds = Math.ceil(ttlMs / 1000);
  reply
    .header('x-ratelimit-limit', max)
    .header('x-ratelimit-remaining', 0)
    .header('x-ratelimit-reset', seconds)
    .header('retry-after', seconds);
}

/**
 * Per API key at the plan's requests/minute; per client address at the open limit where no valid
 * key is presented. Redis makes every replica share one count. A route may cost more than one unit
 * (`rateLimitCost`, charged once its body is parsed), and an address over the open limit is refused
 * before any key it sends is looked up.
 */
export function createRateLimits(options: {
  openPerMinute: number;
  redis: Redis | null;
  log: FastifyBaseLogger;
}): RateLimits {
  const local = createLocalCounts();
  const counter: Counter = options.redis
    ? sharedCounter(options.redis, options.log)
    : async (key, windowMs, units) => local(key, windowMs, units);
  const blocks = createAddressBlocks();
  const keyOf = (request: FastifyRequest) => {
    const auth = request.auth;
    if (!auth) return `ip:${request.ip}`;
    return auth.session ? `user:${auth.session.userId}` : `key:${auth.apiKeyId}`;
  };
  const maxOf = (request: FastifyRequest) => request.auth?.requestsPerMinute ?? options.openPerMinute;
  const refused = (request: FastifyRequest, max: number, ttlMs: number) => {
    if (!request.auth) blocks.block(request.ip, ttlMs);
    return refusal(max, ttlMs);
  };

  return {
    count: counter,

    refusalBeforeKeyLookup(request, reply) {
      if (request.routeOptions.config.rateLimitExempt === true) return null;
      const ttlMs = blocks.remaining(request.ip);
      if (ttlMs === 0) return null;
      setRefusalHeaders(reply, options.openPerMinute, ttlMs);
      return refusal(options.openPerMinute, ttlMs);
    },

    async register(app) {
      // Awaited before any route is declared: otherwise the plugin applies no limit at all.
      await app.register(rateLimit, {
        global: true,
        timeWindow: WINDOW_MS,
        hook: 'onRequest',
        store: storeOver(counter),
        keyGenerator: keyOf,
        max: maxOf,
        allowList: (request: FastifyRequest) => request.routeOptions.config.rateLimitExempt === true,
        addHeadersOnExceeding: {
          'x-ratelimit-limit': true,
          'x-ratelimit-remaining': true,
          'x-ratelimit-reset': true,
        },
        addHeaders: {
          'x-ratelimit-limit': true,
          'x-ratelimit-remaining': true,
          'x-ratelimit-reset': true,
          'retry-after': true,
        },
        errorResponseBuilder: (request, context) => refused(request, context.max, context.ttl),
      });

      // The units past the first, once the body says what the request costs.
      app.addHook('preHandler', async (request, reply) => {
        const config = request.routeOptions.config;
        if (!config.rateLimitCost || config.rateLimitExempt === true) return;
        const extra = config.rateLimitCost(request) - 1;
        if (extra <= 0) return;
        const max = maxOf(request);
        const count = await counter(keyOf(request), WINDOW_MS, extra);
        if (count.current > max) {
          setRefusalHeaders(reply, max, count.ttl);
          throw refused(request, max, count.ttl);
        }
        reply.header('x-ratelimit-remaining', max - count.current);
      });
    },
  };
}
