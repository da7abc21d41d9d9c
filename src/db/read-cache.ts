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

/** A finder of one row by credential id, as `coalescedReads` returns. */
export type FindOne<R> = (id: string) => Promise<R | undefined>;

export interface ReadCaches {
  /**
   * `find` answered from memory while the change feed is live: a found row is kept (a miss never
   * is) unless a change arrived, or the feed went down or up, while it was being read. Without a
   * feed (READ_CACHE=false) this is `find` itself.
   */
  cached<R extends { id: string }>(name: string, find: FindOne<R>, scope: (row: R) => RowScope): FindOne<R>;
  /**
   * A write request of this replica started; call the function returned when it has ended. From
   * the start until a fence sent after its end has come back, every cache is bypassed: a read asked
   * after this replica answered a write never sees a row from before it, even if the write's
   * notification is still on its way.
   */
  localWrite(): () => void;
  /** Entries held now, by cache name (for tests and metrics). */
  sizes(): Record<string, number>;
}

/**
 * Caches of public reads by credential id, kept exact by the database's change feed (PostgreSQL:
 * migration 0053 and src/db/change-feed.ts; SQLite: src/db/sqlite-change-feed.ts). Each holds the
 * raw rows as read: what depends on the clock (expiry) is computed from them by the caller at every
 * answer. Each is an LRU of at most `maxEntries` rows and CACHE_TEXT_BUDGET of text.
 *
 * A read that was asked before a change (or before the feed went down or came back) may have seen
 * the row before that change committed, so its result is answered but not kept: every cache counts
 * the events it hears (a generation) and keeps a result only if none arrived during its read.
 * While the feed is down every cache is empty and bypassed, since a change may pass unheard.
 */
export function createReadCaches(feed: ChangeFeed | null, options: { maxEntries: number }): ReadCaches {
  const sizes: Record<string, () => number> = {};
  /** Write requests started and not yet followed by a fence that came back. */
  let openWrites = 0;
  /** Of those, the ones that have ended and wait for the next fence. */
  let endedWrites = 0;
  let fencing = false;

  function fenceEndedWrites(): void {
    if (fencing || endedWrites === 0 || !feed) return;
    fencing = true;
    const covered = endedWrites;
    endedWrites = 0;
    // A failed fence drops the feed's connection, which empties every cache: nothing stale survives.
    void feed
      .fence()
      .catch(() => {})
      .finally(() => {
        openWrites -= covered;
        fencing = false;
        fenceEndedWrites();
      });
  }

  return {
    cached<R extends { id: string }>(name: string, find: FindOne<R>, scope: (row: R) => RowScope): FindOne<R> {
      if (!feed) return find;
      const rows = new LRUCache<string, R>({
        max: options.maxEntries,
        maxSize: CACHE_TEXT_BUDGET,
        sizeCalculation: rowWeight,
      });
      sizes[name] = () => rows.size;
      let generation = 0;
      feed.subscribe((event: FeedEvent) => {
        generation++;
        switch (event.kind) {
          case 'credentials':
            for (const id of event.ids) rows.delete(id);
            return;
          case 'issuer':
          case 'definition':
            for (const id of [...rows.keys()]) {
              const of = scope(rows.peek(id) as R);
              if (!of || (event.kind === 'issuer' ? of.issuerId : of.definitionId) === event.id) rows.delete(id);
            }
            return;
          default:
            rows.clear();
        }
      });
      return async (id) => {
        feed.catchUp();
        if (!feed.live || openWrites > 0) return find(id);
        const hit = rows.get(id);
        if (hit) return hit;
        const asked = generation;
        const row = await find(id);
        if (row && row.id === id && feed.live && openWrites === 0 && generation === asked) rows.set(id, row);
        return row;
      };
    },
    localWrite() {
      if (!feed) return () => {};
      openWrites++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        endedWrites++;
        fenceEndedWrites();
      };
    },
    sizes: () => Object.fromEntries(Object.entries(sizes).map(([name, size]) => [name, size()])),
  };
}
