import { describe, expect, it } from 'vitest';
import { growingLru } from '../src/core/growing-lru.js';

describe('growingLru', () => {
  it('holds at most its number of entries, dropping the least recently used first', () => {
    const cache = growingLru<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
  });

  it('allocates no room up front: lru-cache preallocates only for a `max`', () => {
    expect(growingLru<string, true>(50_000).max).toBe(0);
  });
});
