import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `entries` items whose storage grows with what it holds. lru-cache's `max`
 * allocates room for every entry at once (two arrays and three index arrays of `max` slots: 1.1 MB
 * for 50,000, held from start by caches that stay empty on most servers); counting each entry as
 * one unit of `maxSize` bounds the cache the same way without that (issue 48, peak RSS).
 */
export function growingLru<K extends {}, V extends {}>(
  entries: number,
  options: { ttl?: number } = {},
): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: entries, sizeCalculation: () => 1, ...options });
}
