import { Readable } from 'node:stream';

/** Array items written per piece: about 160 KB of import report rows. */
const ITEMS_PER_PIECE = 1_000;

/**
 * The JSON text of `value`, whose last property `key` holds a long array, in pieces: the other
 * properties first, then the array `ITEMS_PER_PIECE` items at a time. The text is that of
 * `JSON.stringify(value)`. Whole, a 50,000-row import report is 7.8 MB of text, which Node's http
 * copies once more to put the headers in front, and both stay in the heap until a major collection;
 * in pieces, the largest string is one piece (docs/decisions.md).
 */
export function* jsonPieces<T extends object>(value: T, key: keyof T & string): Generator<string> {
  const { [key]: items, ...rest } = value;
  if (!Array.isArray(items)) throw new TypeError(`${key} is not an array`);
  const head = JSON.stringify(rest);
  yield `${head === '{}' ? '{' : `${head.slice(0, -1)},`}${JSON.stringify(key)}:[`;
  for (let start = 0; start < items.length; start += ITEMS_PER_PIECE) {
    const piece = JSON.stringify(items.slice(start, start + ITEMS_PER_PIECE));
    yield `${start === 0 ? '' : ','}${piece.slice(1, -1)}`;
  }
  yield ']}';
}

/** `jsonPieces` as a stream for `reply.send`: the response goes out chunked as it is written. */
export function jsonStream<T extends object>(value: T, key: keyof T & string): Readable {
  return Readable.from(jsonPieces(value, key), { objectMode: false });
}
