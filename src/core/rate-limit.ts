import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from './errors.js';

const WINDOW_MS = 60_000;
const REDIS_PREFIX = 'accolade-rl:';
/** A shared count that takes longer than this is given up for the replica's own. */
const REDIS_TIMEOUT_MS = 500;
/** After Redis failed, how long each replica counts alone before asking Redis again. */
const REDIS_RETRY_MS = 1_000;
/** Local windows kept at most (expired ones go first, then the oldest). */
const LOCAL_KEYS_MAX = 10_000;

interface Count {
  current: number;
  ttl: number;
}

/** One fixed window per key, counted in this process. */
function createLocalCounts() {
  const windows = new Map<string, { current: number; startedAt: number }>();
  return (key: string, windowMs: number): Count => {
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
    window.current++;
    return { current: window.current, ttl: window.startedAt + windowMs - now };
  };
}

/** INCR with the window set on the first hit of a window, and the time left: one round trip. */
const INCR_LUA = `local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {current, ttl}`;

/**
 * The count shared by every replica through Redis. While Redis does not answer (down, restarting,
 * unreachable or stalled past REDIS_TIMEOUT_MS) each replica counts on its own instead, so requests
 * are still served and still limited (a client may then reach replicas × the limit) rather than
 * failing; Redis is asked again every REDIS_RETRY_MS and takes over once it answers.
 */
function sharedStore(redis: Redis, log: FastifyBaseLogger): FastifyRateLimitStoreCtor {
  const local = createLocalCounts();
  let retryAt = 0;

  async function sharedCount(key: string, windowMs: number): Promise<Count> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const [current, ttl] = (await Promise.race([
        redis.eval(INCR_LUA, 1, `${REDIS_PREFIX}${key}`, windowMs),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_TIMEOUT_MS} ms`)), REDIS_TIMEOUT_MS);
        }),
      ])) as [number, number];
      return { current, ttl };
    } finally {
      clearTimeout(timer);
    }
  }

  return class SharedStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: Count) => void, windowMs: number = WINDOW_MS): void {
      if (Date.now() < retryAt) {
        callback(null, local(key, windowMs));
        return;
      }
      sharedCount(key, windowMs).then(
        (count) => {
          if (retryAt !== 0) log.info('rate limits: Redis answers again; counts are shared by the replicas');
          retryAt = 0;
          callback(null, count);
        },
        (err: unknown) => {
          if (retryAt === 0) log.warn({ err }, 'rate limits: Redis does not answer; each replica counts on its own');
          retryAt = Date.now() + REDIS_RETRY_MS;
          callback(null, local(key, windowMs));
        },
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * Per API key at the plan's requests/minute; per client address at the open limit where no valid
 * key is presented. Redis makes every replica share one count.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: { openPerMinute: number; redis: Redis | null },
): Promise<void> {
  // Awaited before any route is declared: otherwise the plugin applies no limit at all.
  await app.register(rateLimit, {
    global: true,
    timeWindow: WINDOW_MS,
    hook: 'onRequest',
    ...(options.redis ? { store: sharedStore(options.redis, app.log) } : {}),
    keyGenerator: (request: FastifyRequest) => (request.auth ? `key:${request.auth.apiKeyId}` : `ip:${request.ip}`),
    max: (request: FastifyRequest) => request.auth?.requestsPerMinute ?? options.openPerMinute,
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
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'rate_limited',
        `Rate limit of ${context.max} requests per minute exceeded; retry in ${Math.ceil(context.ttl / 1000)} s.`,
      ),
  });
}
