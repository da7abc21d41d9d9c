import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain Node script (npm start runs it before any TypeScript is built), without types.
import { staleReason } from '../scripts/build-if-stale.mjs';

const at = (root: string, path: string, seconds: number) => {
  const time = new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
  utimesSync(join(root, path), time, time);
};

describe('npm start builds only when dist/ is stale', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** A project whose every input dates from second 0 and whose stamp from second 10. */
  function project(): string {
    const root = mkdtempSync(join(tmpdir(), 'accolade-stale-'));
    roots.push(root);
    mkdirSync(join(root, 'src', 'core'), { recursive: true });
    mkdirSync(join(root, 'console', 'src'), { recursive: true });
    mkdirSync(join(root, 'dist'));
    for (const file of ['src/server.ts', 'src/core/a.ts', 'console/src/main.tsx', 'package.json', 'tsconfig.json']) {
      writeFileSync(join(root, file), '');
      at(root, file, 0);
    }
    for (const dir of ['src/core', 'src', 'console/src', 'console']) at(root, dir, 0);
    writeFileSync(join(root, 'dist', '.build-stamp'), '');
    at(root, 'dist/.build-stamp', 10);
    return root;
  }

  it('skips the build when nothing is newer than the last build', () => {
    expect(staleReason(project())).toBeNull();
  });

  it('builds without a stamp', () => {
    const root = project();
    rmSync(join(root, 'dist', '.build-stamp'));
    expect(staleReason(root)).toBe('no build stamp in dist/');
  });

  it('builds when a source file, a console file or the lockfile-level settings changed', () => {
    for (const [file, input] of [
      ['src/core/a.ts', 'src'],
      ['console/src/main.tsx', 'console'],
      ['package.json', 'package.json'],
    ] as const) {
      const root = project();
      at(root, file, 20);
      expect(staleReason(root)).toBe(`${input} changed since the last build`);
    }
  });

  it('builds when a source file was removed (its folder changed)', () => {
    const root = project();
    rmSync(join(root, 'src', 'core', 'a.ts'));
    at(root, 'src/core', 20);
    expect(staleReason(root)).toBe('src changed since the last build');
  });
});
