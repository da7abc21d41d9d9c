import { describe, expect, it } from 'vitest';
import { jsonPieces, jsonStream } from '../src/core/json-pieces.js';

const row = (n: number) => ({
  rowNum: n + 2,
  outcome: 'issued',
  credentialId: `id-${n}`,
  message: n % 7 ? null : 'é "q" \u2028',
});

describe('JSON in pieces', () => {
  it.each([0, 1, 999, 1_000, 1_001, 2_500])('writes the text of JSON.stringify for %i rows', (count) => {
    const value = {
      batchId: 'b',
      total: count,
      columns: { recognised: [], ignored: ['x'] },
      rows: Array.from({ length: count }, (_, n) => row(n)),
    };
    const pieces = [...jsonPieces(value, 'rows')];
    expect(pieces.join('')).toBe(JSON.stringify(value));
    // No piece holds more than a thousand rows.
    expect(pieces.length).toBe(2 + Math.ceil(count / 1_000));
  });

  it('writes an object that holds only the array', () => {
    expect([...jsonPieces({ rows: [1, 2] }, 'rows')].join('')).toBe('{"rows":[1,2]}');
  });

  it('refuses a property that is not an array', () => {
    expect(() => [...jsonPieces({ rows: 'no' }, 'rows')]).toThrow(TypeError);
  });

  it('streams the same bytes', async () => {
    const value = { total: 1_500, rows: Array.from({ length: 1_500 }, (_, n) => row(n)) };
    const chunks: Buffer[] = [];
    for await (const chunk of jsonStream(value, 'rows')) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(JSON.stringify(value));
  });
});
