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

describe('random tokens', () => {
  it('have the asked length in the URL-safe alphabet, and never repeat across refills of the random pool', () => {
    // 21 random bytes a token: 2,000 of them draw the 4 KiB pool about ten times over.
    const tokens = Array.from({ length: 2_000 }, () => randomIds.token(24));
    expect(tokens.every((token) => /^[A-Za-z0-9_-]{24}$/.test(token))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
    // Past the pool's size a token is drawn on its own.
    const long = randomIds.token(8_000);
    expect(long).toMatch(/^[A-Za-z0-9_-]{8000}$/);
    expect(new Set(long).size).toBeGreaterThan(60);
  });
});
