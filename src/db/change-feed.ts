import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { READ_CACHE_CHANNEL } from './migrations/0053_read_cache_notify.js';

/**
 * What a committed write changed, as the triggers of migrations 0053 and 0055 name it: credentials,
 * an issuer, a definition, the API keys of an issuer (by its id), a plan (by its code), or anything.
 */
export type Change =
  | { kind: 'credentials'; ids: readonly string[] }
  | { kind: 'issuer'; id: string }
  | { kind: 'definition'; id: string }
  | { kind: 'keys'; id: string }
  | { kind: 'plan'; code: string }
  | { kind: 'all' };

/**
 * What a subscriber hears: each change, `down` when the feed stops listening (a change may be
 * missed from then on), `up` once it listens again.
 */
export type FeedEvent = Change | { kind: 'down' } | { kind: 'up' };

export interface ChangeFeed {
  /**
   * True while every change can reach the feed: on PostgreSQL while the listening connection is up
   * and has answered its last heartbeat; on SQLite from its start to its stop.
   */
  readonly live: boolean;
  subscribe(listener: (event: FeedEvent) => void): void;
  /**
   * Hears, before a cached read, the changes that reach this feed only when it asks (on SQLite, the
   * commits of other processes). PostgreSQL's notifications arrive by themselves: nothing to do.
   */
  catchUp(): void;
  /**
   * Resolves once every change committed before the call has reached this feed: a notification sent
   * on the listening connection comes back after every earlier commit's. Rejects if the feed is not
   * live or the notification does not come back within the heartbeat interval.
   */
  fence(): Promise<void>;
  /** Resolves when the feed is live (at once if it is). */
  whenLive(): Promise<void>;
  /** The listening connection's backend process id while it is connected (for tests and logs). */
  readonly backendPid: number | null;
  name: string;
  start(): void;
  stop(): Promise<void>;
}

export interface ChangeFeedLogger {
  warn(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
}

export interface ChangeFeedOptions {
  url: string;
  log: ChangeFeedLogger;
  /** How often the connection is checked with a fence; a fence not back within it drops the connection. */
  heartbeatMs?: number;
  /** First wait before reconnecting; doubles to 30 s while connecting fails. */
  reconnectMs?: number;
}

/**
 * Reads one notification's payload: a change of `schema`, a fence's token, or null for another
 * schema's change. Anything unreadable is `all`, so a malformed notification can only empty a cache.
 */
export function parseNotification(payload: string, schema: string): Change | { kind: 'fence'; token: string } | null {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return { kind: 'all' };
  }
  if (typeof body !== 'object' || body === null) return { kind: 'all' };
  const b = body as Record<string, unknown>;
  if (typeof b.f === 'string') return { kind: 'fence', token: b.f };
  if (b.s !== schema) return null;
  if (Array.isArray(b.c) && b.c.every((id) => typeof id === 'string')) return { kind: 'credentials', ids: b.c };
  if (typeof b.i === 'string') return { kind: 'issuer', id: b.i };
  if (typeof b.d === 'string') return { kind: 'definition', id: b.d };
  if (typeof b.k === 'string') return { kind: 'keys', id: b.k };
  if (typeof b.p === 'string') return { kind: 'plan', code: b.p };
  return { kind: 'all' };
}

/**
 * One replica's LISTEN on READ_CACHE_CHANNEL, on a connection of its own (outside the pool). It
 * reconnects with backoff after a drop, and checks itself every heartbeat with a fence: a dead
 * connection that no error reported is dropped within two heartbeats. Subscribers hear `down` before
 * anything could be missed and `up` only once LISTEN is in place again.
 */
export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const firstReconnectMs = options.reconnectMs ?? 250;
  const listeners: ((event: FeedEvent) => void)[] = [];
  const fences = new Map<string, () => void>();
  const fencePrefix = randomUUID();
  let fenceCount = 0;
  let client: pg.Client | null = null;
  let schema = '';
  let live = false;
  let stopped = true;
  let backendPid: number | null = null;
  let reconnectMs = firstReconnectMs;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let heartbeatTimer: NodeJS.Timeout | null = null;
  let liveWaiters: (() => void)[] = [];

  const emit = (event: FeedEvent) => {
    for (const listener of listeners) listener(event);
  };

  function goDown(): Promise<void> {
    if (live) {
      live = false;
      emit({ kind: 'down' });
    }
    backendPid = null;
    if (heartbeatTimer) clearInterval(heartbeatTimer);
    heartbeatTimer = null;
    const dropped = client;
    client = null;
    dropped?.removeAllListeners('notification');
    const ended = dropped ? dropped.end().catch(() => {}) : Promise.resolve();
    if (!stopped && !reconnectTimer) {
      reconnectTimer = setTimeout(() => {
        reconnectTimer = null;
        void connect();
      }, reconnectMs);
      reconnectMs = Math.min(reconnectMs * 2, 30_000);
    }
    return ended;
  }

  function onNotification(message: pg.Notification): void {
    const read = parseNotification(message.payload ?? '', schema);
    if (read?.kind === 'fence') fences.get(read.token)?.();
    else if (read) emit(read);
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    const next = new pg.Client({
      connectionString: options.url,
      keepAlive: true,
      application_name: 'accolade-read-cache',
      connectionTimeoutMillis: 5_000,
      query_timeout: heartbeatMs,
    });
    client = next;
    next.on('error', (err) => {
      options.log.warn({ err }, 'read cache: change feed connection lost');
      if (client === next) void goDown();
    });
    next.on('end', () => {
      if (client === next) void goDown();
    });
    next.on('notification', onNotification);
    try {
      await next.connect();
      const { rows } = await next.query<{ schema: string; pid: number }>(
        'select current_schema() as schema, pg_backend_pid() as pid',
      );
      await next.query(`listen ${READ_CACHE_CHANNEL}`);
      if (client !== next) return;
      schema = rows[0]?.schema ?? '';
      backendPid = rows[0]?.pid ?? null;
      reconnectMs = firstReconnectMs;
      live = true;
      emit({ kind: 'up' });
      for (const resolve of liveWaiters) resolve();
      liveWaiters = [];
      heartbeatTimer = setInterval(() => fence().catch(() => {}), heartbeatMs);
      heartbeatTimer.unref();
    } catch (err) {
      options.log.warn({ err }, 'read cache: change feed could not listen');
      if (client === next) void goDown();
    }
  }

  function fence(): Promise<void> {
    const current = client;
    if (!live || !current) return Promise.reject(new Error('the change feed is not listening'));
    const token = `${fencePrefix}:${++fenceCount}`;
    // A fence that does not come back means changes may be passing unheard: the connection is dropped.
    const fail = (err: unknown, reject: (err: unknown) => void) => {
      fences.delete(token);
      if (client === current) {
        options.log.warn({ err }, 'read cache: change feed fence failed');
        void goDown();
      }
      reject(err);
    };
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('the change feed fence did not come back'), reject), heartbeatMs);
      timer.unref();
      fences.set(token, () => {
        clearTimeout(timer);
        fences.delete(token);
        resolve();
      });
      current
        .query('select pg_notify($1, $2)', [READ_CACHE_CHANNEL, JSON.stringify({ f: token })])
        .catch((err: unknown) => {
          clearTimeout(timer);
          fail(err, reject);
        });
    });
  }

  return {
    name: 'read-cache-change-feed',
    get live() {
      return live;
    },
    get backendPid() {
      return backendPid;
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    catchUp() {},
    fence,
    whenLive() {
      return live ? Promise.resolve() : new Promise<void>((resolve) => liveWaiters.push(resolve));
    },
    start() {
      if (!stopped) return;
      stopped = false;
      void connect();
    },
    async stop() {
      stopped = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = null;
      await goDown();
    },
  };
}
