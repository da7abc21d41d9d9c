import { describe, expect, it } from 'vitest';
import { randomIds } from '../src/core/clock.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('time-ordered ids', () => {
  it('are version 7 UUIDs whose first 48 bits are the current Unix milliseconds', () => {
    const before = Date.now();
    const id = randomIds.ordered();
    const after = Date.now();
    expect(id).toMatch(V7);
    const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('sort in creation order across milliseconds and never repeat', async () => {
    const first = randomIds.ordered();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = randomIds.ordered();
    expect(first < second).toBe(true);
    const many = Array.from({ length: 20_000 }, () => randomIds.ordered());
    expect(many.every((id) => V7.test(id))).toBe(true);
    expect(new Set(many).size).toBe(many.length);
    // Within a millisecond the random part differs: not every id of one millisecond is the same.
    const suffixes = new Set(many.map((id) => id.slice(15)));
    expect(suffixes.size).toBe(many.length);
  });
});
