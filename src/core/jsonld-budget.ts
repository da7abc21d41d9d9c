import { errors, type ValidationIssue } from './errors.js';

/*
 * What JSON-LD work (expansion, toRDF, RDF canonicalisation: jsonld under @digitalbazaar/vc and
 * Data Integrity) grows with is the number of values a document holds, not its size in bytes nor
 * its count of objects: `toRDF` is quadratic in the values of one property, so 11,000 numbers in
 * one array under an `@vocab` context (56 KB) took 3–12 s of the event loop (issue 48.1). Every
 * document given from outside is measured here, once, before any JSON-LD step, and refused when
 * any count passes its cap; the caps are the same on every entry point (design.md, "Added
 * 2026-12-01"): verification of a credential given as JSON, the Learner Credential Wallet's
 * presentation, and every import that checks or signs a document it was given.
 */

/**
 * The caps. A signed Open Badges 3.0 credential of this service is 3–5 KB with 15–30 objects,
 * about 20 array elements, 60–100 scalars and 6 levels; embedded endorsements multiply that by
 * their number. The worst document within every cap is checked in well under 100 ms
 * (bench/jsonld-budget.ts, docs/performance.md "JSON-LD budget").
 */
export const JSONLD_BUDGET = {
  /** Objects and arrays, the document itself included. */
  objects: 256,
  /** Elements of all arrays together. */
  arrayElements: 512,
  /** Strings, numbers, booleans and nulls that are values (keys are counted by their bytes). */
  scalars: 1024,
  /** UTF-8 bytes of every string, keys included. */
  stringBytes: 64 * 1024,
  /** Levels of nesting; the document is level 1. */
  depth: 16,
} as const;

/**
 * A context given inline (an object under `@context`, anywhere in the document) is refused: its
 * cost is not bounded by the values counted, since a property- or type-scoped context is processed
 * again for every object that uses it (113 objects using one scoped context of 860 terms took
 * 1–2 s, bench/jsonld-budget.ts). Contexts are named by URL, and only the published contexts this
 * service holds resolve (modules/vc/contexts.ts): their cost is known and bounded by the counts.
 */
const CONTEXT = '@context';

export type JsonLdBudgetCount = keyof typeof JSONLD_BUDGET;

/** What a refusal names: a count past its cap, or a context given inline. */
export type JsonLdBudgetCode = JsonLdBudgetCount | 'inlineContext';

/** What a document holds, as counted against JSONLD_BUDGET. */
export interface JsonLdWork {
  objects: number;
  arrayElements: number;
  scalars: number;
  stringBytes: number;
  depth: number;
}

const WORDING: Record<JsonLdBudgetCount, string> = {
  objects: 'objects and arrays',
  arrayElements: 'array elements in all',
  scalars: 'strings, numbers, booleans and nulls',
  stringBytes: 'bytes of strings and keys (UTF-8)',
  depth: 'levels deep',
};

function overIssue(count: JsonLdBudgetCount, path: string): ValidationIssue {
  const cap = JSONLD_BUDGET[count];
  const message =
    count === 'depth'
      ? `must be at most ${cap} levels deep (JSON-LD processing is bounded before it starts)`
      : `must hold at most ${cap} ${WORDING[count]} (JSON-LD processing is bounded before it starts)`;
  return { path, message, code: count };
}

/** True when a `@context` value is a URL or a list of URLs (JSON-LD 1.1 §3.1), no inline definition. */
function namesContextsByUrl(value: unknown): boolean {
  return typeof value === 'string' || (Array.isArray(value) && value.every((entry) => typeof entry === 'string'));
}

function inlineContextIssue(path: string): ValidationIssue {
  return {
    path,
    message:
      'must name its JSON-LD contexts by URL: a context given inline (an object under @context) is not processed',
    code: 'inlineContext',
  };
}

/**
 * Counts `value` (a parsed JSON value) against JSONLD_BUDGET in one iterative walk (no recursion,
 * so no depth can overflow the stack), stopping at the first count past its cap or the first
 * context given inline: the walk itself costs at most the caps, whatever the document. `path` names the document in the answer
 * (`/proof` for a member, '' for the body).
 */
export function measureJsonLd(value: unknown, path = ''): { work: JsonLdWork } | { issue: ValidationIssue } {
  const work: JsonLdWork = { objects: 0, arrayElements: 0, scalars: 0, stringBytes: 0, depth: 0 };
  const pending: [unknown, number][] = [[value, 1]];
  const over = (count: JsonLdBudgetCount) => work[count] > JSONLD_BUDGET[count];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, level] = next;
    if (item === null || typeof item !== 'object') {
      work.scalars += 1;
      if (typeof item === 'string') work.stringBytes += Buffer.byteLength(item);
      if (over('scalars')) return { issue: overIssue('scalars', path) };
      if (over('stringBytes')) return { issue: overIssue('stringBytes', path) };
      continue;
    }
    work.objects += 1;
    if (level > work.depth) work.depth = level;
    if (over('depth')) return { issue: overIssue('depth', path) };
    if (over('objects')) return { issue: overIssue('objects', path) };
    if (Array.isArray(item)) {
      work.arrayElements += item.length;
      if (over('arrayElements')) return { issue: overIssue('arrayElements', path) };
      for (const child of item) pending.push([child, level + 1]);
      continue;
    }
    for (const key in item) {
      if (!Object.hasOwn(item, key)) continue;
      const child = (item as Record<string, unknown>)[key];
      if (key === CONTEXT && !namesContextsByUrl(child)) return { issue: inlineContextIssue(path) };
      work.stringBytes += Buffer.byteLength(key);
      if (over('stringBytes')) return { issue: overIssue('stringBytes', path) };
      pending.push([child, level + 1]);
    }
  }
  return { work };
}

/** The counts of `value`, or a 400 `validation_failed` naming the cap it passes (before any JSON-LD step). */
export function requireJsonLdBudget(value: unknown, path = ''): JsonLdWork {
  const measured = measureJsonLd(value, path);
  if ('issue' in measured) {
    const { issue } = measured;
    throw errors.validation(`${path === '' ? 'The document' : path} ${issue.message}.`, [issue]);
  }
  return measured.work;
}

/**
 * How a document is weighed for its price (bench/jsonld-budget.ts): an object (or array) costs
 * about eight times a scalar or an array element to expand and canonicalise (486 objects in one
 * array take longer than 1,009 numbers), and every STRING_BYTES_PER_VALUE bytes of strings weigh
 * one value (the whole string budget in one string is hashed and canonicalised too).
 */
const OBJECT_WEIGHT = 8;
const STRING_BYTES_PER_VALUE = 64;
/** Weighed values a signed credential of this service holds with room to spare: the base price covers them. */
export const JSONLD_BASE_VALUES = 512;
/** Weighed values one rate-limit unit pays for beyond JSONLD_BASE_VALUES. */
export const JSONLD_VALUES_PER_UNIT = 16;

/**
 * The rate-limit units a JSON-LD check of `work` costs: `base` (what one signature check costs)
 * plus one per JSONLD_VALUES_PER_UNIT weighed values past JSONLD_BASE_VALUES, so a client pays in
 * proportion to what its document makes the server do. Measured (docs/performance.md, "JSON-LD
 * budget"), each unit of any document within the caps pays for no more milliseconds than a unit of
 * a signed credential of this service at `base` 10; the worst document within the caps costs
 * 10 + (8·256 + 512 + 1,024 + 65,536 / 64 − 512) / 16 = 266 units.
 */
export function jsonLdCost(work: JsonLdWork, base: number): number {
  const weighed =
    OBJECT_WEIGHT * work.objects +
    work.arrayElements +
    work.scalars +
    Math.floor(work.stringBytes / STRING_BYTES_PER_VALUE);
  return base + Math.ceil(Math.max(0, weighed - JSONLD_BASE_VALUES) / JSONLD_VALUES_PER_UNIT);
}
