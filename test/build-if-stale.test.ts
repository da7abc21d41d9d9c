import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain Node script like the one above.
import { build } from '../scripts/build.mjs';
// @ts-expect-error: a plain Node script (npm start runs it before any TypeScript is built), without types.
import { staleReason, unsupportedNode } from '../scripts/build-if-stale.mjs';

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

  it('npm run build writes the stamp itself, dated when it began, so the next start does not build again', () => {
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.build).toBe('node scripts/build.mjs');
    const root = project();
    rmSync(join(root, 'dist', '.build-stamp'));
    const before = Date.now();
    // A step that takes a while and saves an input as it runs, as an editor might.
    build(root, [['-e', "require('node:fs').writeFileSync('src/server.ts', '')"]]);
    const stamp = statSync(join(root, 'dist', '.build-stamp')).mtimeMs;
    expect(stamp).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(staleReason(root)).toBe('src changed since the last build');
    at(root, 'src/server.ts', 0);
    at(root, 'src', 0);
    expect(staleReason(root)).toBeNull();
  });

  it('a failed build step leaves no stamp, so the next start builds again', () => {
    const root = project();
    rmSync(join(root, 'dist', '.build-stamp'));
    expect(() => build(root, [['-e', 'process.exit(3)']])).toThrow();
    expect(existsSync(join(root, 'dist', '.build-stamp'))).toBe(false);
    expect(staleReason(root)).toBe('no build stamp in dist/');
  });
});

describe('npm start on an unsupported Node names the version (issue 46)', () => {
  const range = JSON.parse(readFileSync('package.json', 'utf8')).engines.node;

  it("holds the version to package.json's engines", () => {
    expect(unsupportedNode('v24.21.0')).toBeNull();
    expect(unsupportedNode('v22.12.0')).toBeNull();
    expect(unsupportedNode('v20.20.2')).toBe(
      `accolade needs Node.js ${range}; this is Node.js v20.20.2. Install a supported Node.js and run npm start again.`,
    );
    expect(unsupportedNode('v23.1.0')).not.toBeNull();
  });

  // Debian's own Node on these machines is 20; where there is no such Node the rule above still holds.
  const oldNode = '/usr/bin/node';
  const oldVersion = existsSync(oldNode) ? spawnSync(oldNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
  it.skipIf(!oldVersion || unsupportedNode(oldVersion) === null)(
    'the first step of npm start refuses an old Node in one line instead of a SyntaxError',
    () => {
      const run = spawnSync(oldNode, ['scripts/build-if-stale.mjs'], { encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `accolade needs Node.js ${range}; this is Node.js ${oldVersion}. Install a supported Node.js and run npm start again.\n`,
      );
    },
  );
});
