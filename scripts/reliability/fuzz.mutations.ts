import fc from 'fast-check';

/*
 * What one fuzz case is: fast-check draws a small description (a json-schema-faker seed, whether to
 * name real resources, which key header, one mutation); fuzz.cases.ts turns it into a request.
 * Same seed, same descriptions.
 */

export type AuthChoice = 'bearer' | 'x-api-key' | 'none' | 'invalid';

export type Mutation =
  | { kind: 'valid' }
  | { kind: 'valid-all-optionals' }
  | { kind: 'type-swap'; pick: number; value: unknown }
  | { kind: 'unknown-field'; name: string; value: unknown }
  | { kind: 'missing-required'; pick: number }
  | { kind: 'huge-string'; pick: number; unit: string; length: number }
  | { kind: 'control-chars'; pick: number; value: string }
  | { kind: 'grapheme-string'; pick: number; value: string }
  | { kind: 'proto-key'; key: string; nested: boolean }
  | { kind: 'injection'; pick: number; value: string; where: 'body' | 'path' | 'query' }
  | { kind: 'empty-body' }
  | { kind: 'wrong-content-type'; contentType: string }
  | { kind: 'malformed-json'; cut: number }
  | { kind: 'non-object-body'; value: unknown }
  | { kind: 'query-junk'; name: string; value: string }
  | { kind: 'deep-nesting'; depth: number }
  | { kind: 'duplicate-key'; value: unknown }
  | { kind: 'invalid-utf8'; byte: number }
  | { kind: 'undotted-email'; pick: number; value: string };

export interface CaseDraw {
  jsfSeed: number;
  realIds: boolean;
  pick: number;
  auth: AuthChoice;
  mutation: Mutation;
}

const INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE credentials; --",
  '1; SELECT pg_sleep(5)--',
  "') UNION SELECT key_hash, prefix FROM api_keys --",
  '" OR ""="',
  '\\',
  '%',
  '_',
  '=HYPERLINK("http://evil.example","x")',
  '+SUM(1,1)',
  '-2+3',
  '@cmd',
  '\t=1',
  '"a","b"\n"c","d"',
  '<script>window.__xss=1</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '</script><!--',
  '{{7*7}}<%= 7*7 %>',
  '../../../../etc/passwd',
  '%2e%2e%2f%2e%2e%2f',
  'null',
  'undefined',
  '0x7fffffff',
  '-1',
  '9007199254740993',
  '1e308',
  'NaN',
];

const CONTROL_UNITS = [
  '\u0000',
  '\u0001',
  '\u0008',
  '\u001b',
  '\u007f',
  '\r',
  '\n',
  '\t',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u200b',
  '\ud800',
  '\udfff',
  '\u202e',
];

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=latin1',
  'text/csv',
];

const UNKNOWN_FIELDS = ['issuerId', 'tenantId', 'plan', 'id', 'revoked', 'recipientHash', 'status', 'x', 'createdAt'];

/** Values of every JSON type, to put where another type belongs. */
const anyJson = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 30, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 10, arbitrary: fc.constant({ kind: 'valid-all-optionals' as const }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('type-swap' as const), pick: fc.nat(), value: anyJson }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('unknown-field' as const),
      name: fc.oneof(fc.constantFrom(...UNKNOWN_FIELDS), fc.string({ minLength: 1, maxLength: 12 })),
      value: anyJson,
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('missing-required' as const), pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('huge-string' as const),
      pick: fc.nat(),
      unit: fc.constantFrom('a', 'é', '👩‍👩‍👧‍👦', '\u0000', '<', "'", ','),
      length: fc.integer({ min: 10_000, max: 120_000 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('control-chars' as const),
      pick: fc.nat(),
      value: fc.string({ unit: fc.constantFrom(...CONTROL_UNITS, 'a', '@', '.'), minLength: 1, maxLength: 30 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('grapheme-string' as const),
      pick: fc.nat(),
      value: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('proto-key' as const),
      key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
      nested: fc.boolean(),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('injection' as const),
      pick: fc.nat(),
      value: fc.constantFrom(...INJECTIONS),
      where: fc.constantFrom('body' as const, 'path' as const, 'query' as const),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'empty-body' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('wrong-content-type' as const),
      contentType: fc.constantFrom(...WRONG_CONTENT_TYPES),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('malformed-json' as const), cut: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('non-object-body' as const), value: anyJson }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('query-junk' as const),
      name: fc.oneof(
        fc.constantFrom('limit', 'offset', 'status', 'from', 'to', 'definitionId'),
        fc.string({ maxLength: 8 }),
      ),
      value: fc.oneof(
        fc.constantFrom(...INJECTIONS),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.integer().map(String),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('deep-nesting' as const), depth: fc.integer({ min: 100, max: 5_000 }) }),
  },
  // The contract audit's inputs: a key named twice, bytes that are not UTF-8, an email without a dotted domain.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('duplicate-key' as const), value: anyJson }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('invalid-utf8' as const),
      byte: fc.constantFrom(0x80, 0xbf, 0xc0, 0xc3, 0xe9, 0xed, 0xf5, 0xff),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('undotted-email' as const),
      pick: fc.nat(),
      value: fc.constantFrom('0@com', 'ada@localhost', 'ada@[127.0.0.1]', 'ada@example.'),
    }),
  },
);

export const caseDraw: fc.Arbitrary<CaseDraw> = fc.record({
  jsfSeed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  realIds: fc.boolean(),
  pick: fc.nat(),
  auth: fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom('bearer' as const, 'x-api-key' as const) },
    { weight: 1, arbitrary: fc.constantFrom('none' as const, 'invalid' as const) },
  ),
  mutation,
});
