import { describe, expect, it } from 'vitest';
import { loadedOnce } from '../src/core/loaded-once.js';

describe('loadedOnce', () => {
  it('loads at the first call and shares that load with every call after it, concurrent or not', async () => {
    let loads = 0;
    const get = loadedOnce(async () => ({ n: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([get(), get()]);
    expect(await get()).toBe(a);
    expect(b).toBe(a);
    expect(loads).toBe(1);
  });

  it('shows the load under way or done, and none before the first call or after a failure', async () => {
    let fail = true;
    const get = loadedOnce(async () => {
      if (fail) throw new Error('no');
      return 'loaded';
    });
    expect(get.current()).toBeUndefined();
    await expect(get()).rejects.toThrow('no');
    expect(get.current()).toBeUndefined();
    fail = false;
    const loading = get();
    expect(get.current()).toBe(loading);
    expect(await get.current()).toBe('loaded');
  });

  it('does not keep a failed load: the next call loads again', async () => {
    let loads = 0;
    const get = loadedOnce(async () => {
      loads++;
      if (loads === 1) throw new Error('first load fails');
      return 'loaded';
    });
    await expect(get()).rejects.toThrow('first load fails');
    expect(await get()).toBe('loaded');
    expect(await get()).toBe('loaded');
    expect(loads).toBe(2);
  });
});
