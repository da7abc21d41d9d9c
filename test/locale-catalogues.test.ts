import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { registeredCatalogues, SUPPORTED_LANGUAGES } from '../src/core/locale.js';

const SRC = join(import.meta.dirname, '..', 'src');

/** Every `messages/index.ts` under src/: each surface registers its catalogue there. */
function catalogueIndexes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (!entry.isDirectory()) return [];
    if (entry.name === 'messages') {
      return readdirSync(path).includes('index.ts') ? [path + '/index.ts'] : [];
    }
    return catalogueIndexes(path);
  });
}

/** Each leaf of a catalogue by its dotted path: its text. */
function leaves(value: unknown, prefix = ''): Map<string, unknown> {
  if (value === null || typeof value !== 'object') return new Map([[prefix, value]]);
  return new Map(
    Object.entries(value).flatMap(([key, child]) => [...leaves(child, prefix ? `${prefix}.${key}` : key)]),
  );
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/**
 * The one check of every message catalogue in the codebase (issue 45 §2): each surface's catalogue
 * has every key of its English one in every supported language, each a non-empty text with the same
 * `{placeholders}`. Typecheck already refuses a missing key; this also catches an empty or
 * untranslated-by-mistake placeholder, and a catalogue a surface registers without a type.
 */
describe('message catalogues', () => {
  const indexes = catalogueIndexes(SRC);

  beforeAll(async () => {
    for (const index of indexes) await import(pathToFileURL(index).href);
  });

  it('finds every surface’s catalogue, and each registers one', () => {
    const found = indexes.map((index) => relative(SRC, index));
    for (const surface of ['verification', 'backpack', 'obapi', 'lti']) {
      expect(found).toContain(`modules/${surface}/messages/index.ts`);
    }
    expect(registeredCatalogues().size).toBeGreaterThanOrEqual(indexes.length);
  });

  it('has every key, non-empty, with the same placeholders, in every supported language', () => {
    for (const [surface, catalogue] of registeredCatalogues()) {
      const reference = leaves(catalogue.en);
      expect(reference.size, surface).toBeGreaterThan(0);
      for (const language of SUPPORTED_LANGUAGES) {
        const texts = leaves(catalogue[language]);
        expect([...texts.keys()].sort(), `${surface} ${language}`).toEqual([...reference.keys()].sort());
        for (const [key, english] of reference) {
          const text = texts.get(key);
          expect(typeof text, `${surface} ${language} ${key}`).toBe('string');
          expect((text as string).trim(), `${surface} ${language} ${key}`).not.toBe('');
          expect(placeholders(text as string), `${surface} ${language} ${key}`).toEqual(placeholders(String(english)));
        }
      }
    }
  });
});
