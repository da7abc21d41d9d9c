import { LRUCache } from 'lru-cache';
import type { ChangeFeed, FeedEvent } from './change-feed.js';

/** The issuer and definition a cached row shows; null when the row does not say (any such edit drops it). */
export type RowScope = { issuerId: string; definitionId: string } | null;

/**
 * The most text one cache holds, in characters of its rows' strings (each row counted 256 more for
 * its object): 16 Mi, about 20-25 MB of heap. The row count bounds a cache of ordinary rows first;
 * this bounds one of rows carrying long descriptions and criteria (a page row may hold 15,000
 * characters of them).
 */
export const CACHE_TEXT_BUDGET = 16 * 2 ** 20;

/** What a row is counted against CACHE_TEXT_BUDGET. */
export function rowWeight(row: object): number {
  let weight = 256;
  for (const value of Object.values(row)) if (typeof value === 'string') weight += value.length;
  return weight;
}

/** A finder of one row by its id, as `coalescedReads` returns. */
export type FindOne<R> = (id: string) => Promise<R | undefined>;

/**
 * The local writes a cache waits out: `public` ones can change what a public read shows (a write
 * request, src/app.ts), `keys` ones what an API key resolves to (the issuer service's key and plan
 * changes, which hold it themselves).
 */
export type WriteGate = 'public' | 'keys';

/** An API key lookup as cached: `id` is the key's hash, the rest is what its check needs. */
export interface CachedKey {
  id: string;
  issuerId: string;
  planCode: string;
}

export interface ReadCaches {
  /**
   * `find` answered from memory while the change feed is live: a found row is kept (a miss never
   * is) unless a change arrived, or the feed went down or up, while it was being read. Without a
   * feed (READ_CACHE=false) this is `find` itself.
   */
  cached<R extends { id: string }>(name: string, find: FindOne<R>, scope: (row: R) => RowScope): FindOne<R>;
  /**
   * The API key lookup, by key hash, kept the same way: a change to an issuer's keys or to the
   * issuer drops that issuer's keys, a change to a plan drops the keys on it. It waits out local
   * `keys` writes only, so issuance and every other write request keep it in use.
   */
  keys<R extends CachedKey>(find: FindOne<R>): FindOne<R>;
  /**
   * A write of this replica started; call the function returned when it has committed or failed.
   * From the start until a fence sent after its end has come back, every cache of its gate is
   * bypassed: a read asked after this replica answered a write never sees a row from before it,
   * even if the write's notification is still on its way.
   */
  localWrite(gate: WriteGate): () => void;
  /** Entries held now, by cache name (for tests and metrics). */
  sizes(): Record<string, number>;
}

/**
 * Applies one event to a cache's rows; false when it cannot concern them (so a read it overtook
 * may still be kept).
 */
type Hearing<R extends { id: string }> = (rows: LRUCache<string, R>, event: FeedEvent) => boolean;

/** Drops the rows `matches` picks; a full scan, which only edits of issuers, definitions and keys pay. */
function dropWhere<R extends { id: string }>(rows: LRUCache<string, R>, matches: (row: R) => boolean): void {
  for (const id of [...rows.keys()]) {
    const row = rows.peek(id);
    if (row && matches(row)) rows.delete(id);
  }
}

/**
 * Caches of public reads by credential id, and of API key lookups, kept exact by the database's
 * change feed (PostgreSQL: migrations 0053 and 0055 and src/db/change-feed.ts; SQLite:
 * src/db/sqlite-change-feed.ts). Each holds the raw rows as read: what depends on the clock (expiry,
 * a key's grace period) is computed from them by the caller at every answer. Each is an LRU of at
 * most `maxEntries` rows and CACHE_TEXT_BUDGET of text.
 *
 * A read that was asked before a change (or before the feed went down or came back) may have seen
 * the row before that change committed, so its result is answered but not kept: every cache counts
 * the events that concern it (a generation) and keeps a result only if none arrived during its read.
 * While the feed is down every cache is empty and bypassed, since a change may pass unheard.
 */
export function createReadCaches(feed: ChangeFeed | null, options: { maxEntries: number }): ReadCaches {
  const sizes: Record<string, () => number> = {};
  /** Write requests started and not yet followed by a fence that came back, by gate. */
  const openWrites: Record<WriteGate, number> = { public: 0, keys: 0 };
  /** Of those, the ones that have ended and wait for the next fence. */
  let endedWrites: Record<WriteGate, number> = { public: 0, keys: 0 };
  let fencing = false;

  function fenceEndedWrites(): void {
    if (fencing || (endedWrites.public === 0 && endedWrites.keys === 0) || !feed) return;
    fencing = true;
    const covered = endedWrites;
    endedWrites = { public: 0, keys: 0 };
    // A failed fence drops the feed's connection, which empties every cache: nothing stale survives.
    void feed
      .fence()
      .catch(() => {})
      .finally(() => {
        openWrites.public -= covered.public;
        openWrites.keys -= covered.keys;
        fencing = false;
        fenceEndedWrites();
      });
  }

  function cache<R extends { id: string }>(
    live: ChangeFeed,
    name: string,
    find: FindOne<R>,
    gate: WriteGate,
    hear: Hearing<R>,
  ): FindOne<R> {
    // Each row counts at least its share of the budget, so at most maxEntries rows fit, as with
    // lru-cache's `max`, but without the room for all of them that `max` allocates at once
    // (src/core/growing-lru.ts). The budget rounds up by less than one character per row.
    const share = Math.ceil(CACHE_TEXT_BUDGET / options.maxEntries);
    const rows = new LRUCache<string, R>({
      maxSize: share * options.maxEntries,
      sizeCalculation: (row) => Math.max(share, rowWeight(row)),
    });
    sizes[name] = () => rows.size;
    let generation = 0;
    live.subscribe((event) => {
      if (hear(rows, event)) generation++;
    });
    return async (id) => {
      live.catchUp();
      if (!live.live || openWrites[gate] > 0) return find(id);
      const hit = rows.get(id);
      if (hit) return hit;
      const asked = generation;
      const row = await find(id);
      if (row && row.id === id && live.live && openWrites[gate] === 0 && generation === asked) rows.set(id, row);
      return row;
    };
  }

  return {
    cached<R extends { id: string }>(name: string, find: FindOne<R>, scope: (row: R) => RowScope): FindOne<R> {
      if (!feed) return find;
      return cache(feed, name, find, 'public', (rows, event) => {
        switch (event.kind) {
          case 'keys':
          case 'plan':
            return false;
          case 'credentials':
            for (const id of event.ids) rows.delete(id);
            return true;
          case 'issuer':
          case 'definition':
            dropWhere(rows, (row) => {
              const of = scope(row);
              return !of || (event.kind === 'issuer' ? of.issuerId : of.definitionId) === event.id;
            });
            return true;
          default:
            rows.clear();
            return true;
        }
      });
    },
    keys<R extends CachedKey>(find: FindOne<R>): FindOne<R> {
      if (!feed) return find;
      return cache(feed, 'keys', find, 'keys', (rows, event) => {
        switch (event.kind) {
          case 'credentials':
          case 'definition':
            return false;
          case 'issuer':
          case 'keys':
            dropWhere(rows, (row) => row.issuerId === event.id);
            return true;
          case 'plan':
            dropWhere(rows, (row) => row.planCode === event.code);
            return true;
          default:
            rows.clear();
            return true;
        }
      });
    },
    localWrite(gate) {
      if (!feed) return () => {};
      openWrites[gate]++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        endedWrites[gate]++;
        fenceEndedWrites();
      };
    },
    sizes: () => Object.fromEntries(Object.entries(sizes).map(([name, size]) => [name, size()])),
  };
}
