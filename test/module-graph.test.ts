import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULES = 'src/modules';

/** Each module folder and the other module folders its files import (type imports included). */
function moduleGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const module of readdirSync(MODULES)) {
    const imports = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
          for (const [, target] of readFileSync(path, 'utf8').matchAll(
            /from '\.\.\/(?:\.\.\/modules\/)?([a-z-]+)\//g,
          )) {
            if (target && target !== module && readdirSync(MODULES).includes(target)) imports.add(target);
          }
        }
      }
    };
    walk(join(MODULES, module));
    graph.set(module, imports);
  }
  return graph;
}

/**
 * Each source file under `roots` and the files it imports by a relative path (type imports, re-exports
 * and dynamic imports included): a circle between two files of one folder is as much a circle as one
 * between folders.
 */
function fileGraph(roots: string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const imports = new Set<string>();
        for (const [, specifier] of readFileSync(path, 'utf8').matchAll(
          /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g,
        )) {
          const target = resolve(dirname(path), specifier ?? '').replace(/\.js$/, '.ts');
          imports.add(relative('.', existsSync(target) ? target : target.replace(/\.ts$/, '.tsx')));
        }
        graph.set(path, imports);
      }
    }
  };
  for (const root of roots) walk(root);
  return graph;
}

/** A cycle of module folders, or null when the graph only points one way. */
function findCycle(graph: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('src/modules', () => {
  it('is a one-way graph: no module imports, through others, a module that imports it', () => {
    const graph = moduleGraph();
    expect(graph.get('credentials')?.has('notifications')).toBe(true);
    expect(findCycle(graph)).toBeNull();
  });

  it('has no circle between files, inside one folder either (src/ and console/src/)', () => {
    const graph = fileGraph(['src', 'console/src']);
    expect(graph.get('src/modules/accounts/accounts.service.ts')?.has('src/modules/accounts/sso.service.ts')).toBe(
      true,
    );
    expect(findCycle(graph)).toBeNull();
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
  });
});
