import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain Node script (the build runs it without TypeScript tooling), without types.
import { bundleServer } from '../scripts/bundle-server.mjs';
import { dialects, freshDatabase } from './helpers.js';

/** Libraries the server loads at their first use, never to answer its first request. */
const LOADED_AT_FIRST_USE = [
  '@digitalbazaar/vc',
  '@digitalbazaar/data-integrity',
  '@digitalbazaar/eddsa-rdfc-2022-cryptosuite',
  '@openid4vc/openid4vci',
  'nodemailer',
  'jsdom',
  'dompurify',
  'undici',
  'qrcode',
  // Only with REDIS_URL set.
  'ioredis',
];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The packages the bundle imports, split by whether loading dist/src/server.js imports them before any request. */
function externalImports(metafile: Metafile, entry: string): { atStart: Set<string>; later: Set<string> } {
  const atStart = new Set<string>();
  const later = new Set<string>();
  const seen = new Set<string>();
  const walk = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind === 'dynamic-import') {
        if (imported.external) later.add(imported.path);
      } else if (imported.external) atStart.add(imported.path);
      else walk(imported.path);
    }
  };
  walk(entry);
  // server.ts itself only turns the compile cache on, then imports the server dynamically.
  for (const imported of metafile.outputs[entry]?.imports ?? []) {
    if (imported.kind === 'dynamic-import' && !imported.external) walk(imported.path);
  }
  for (const output of Object.keys(metafile.outputs)) {
    if (seen.has(output)) continue;
    for (const imported of metafile.outputs[output]?.imports ?? []) if (imported.external) later.add(imported.path);
  }
  return { atStart, later };
}

describe('the bundled server (dist/src/server.js)', () => {
  let root = '';
  let metafile: Metafile;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'accolade-bundle-'));
    symlinkSync(join(process.cwd(), 'node_modules'), join(root, 'node_modules'));
    mkdirSync(join(root, 'dist', 'console'), { recursive: true });
    writeFileSync(join(root, 'dist', 'console', 'index.html'), '<!doctype html><title>bundle test console</title>');
    metafile = await bundleServer(join(root, 'dist', 'src'));
  }, 240_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('imports the first-use libraries only from chunks loaded at their first use', () => {
    const entry = Object.keys(metafile.outputs).find((output) => output.endsWith('dist/src/server.js')) ?? '';
    const { atStart, later } = externalImports(metafile, entry);
    expect(atStart).toContain('fastify');
    expect(atStart).toContain('better-sqlite3');
    for (const library of LOADED_AT_FIRST_USE) {
      expect(atStart).not.toContain(library);
      expect(later).toContain(library);
    }
    // Bundled, not imported: the two ESM packages of hundreds of files.
    expect([...atStart].filter((path) => /^(kysely|@sinclair\/typebox)(\/|$)/.test(path))).toEqual([]);
  });

  it('holds no character past ASCII, so V8 keeps each chunk one byte a character', () => {
    // esbuild escapes such characters in strings but not in template literals or comments, and one
    // of them (even a Latin-1 one, such as a section sign in a comment) made Node hold the whole
    // 2.2 MB main chunk as a two-byte string, 4.5 MB of heap for as long as the server runs (issue
    // 48, peak RSS). The bundle step writes them as \u escapes.
    const scripts = Object.keys(metafile.outputs).filter((output) => output.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(1);
    for (const output of scripts) {
      const beyond = readFileSync(join(process.cwd(), output), 'utf8').match(/.{0,40}[^\0-\x7f]/u);
      expect(beyond?.[0] ?? null, output).toBeNull();
    }
  });

  for (const dialect of dialects) {
    it(`starts on ${dialect}, answers ready, serves the console from dist/console and stops on SIGTERM`, async () => {
      const db = await freshDatabase(dialect);
      const port = await freePort();
      const child = spawn(process.execPath, [join(root, 'dist', 'src', 'server.js')], {
        env: {
          PATH: process.env.PATH ?? '',
          PORT: String(port),
          HOST: '127.0.0.1',
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
          DATABASE_URL: db.url,
          LOG_LEVEL: 'silent',
          BOOTSTRAP_ISSUER: 'false',
          SIGNING_KEY_SECRET: 'bundle-test-signing-secret-not-for-production',
          NODE_DISABLE_COMPILE_CACHE: '1',
        },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        // Ready when it says so: a loaded 2-core machine may take long to start (issue 46), so the
        // bound is generous; a server that exits is seen at once.
        await expect
          .poll(
            async () => {
              if (child.exitCode !== null) return `exited with ${child.exitCode}`;
              const ok = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
                (r) => r.ok,
                () => false,
              );
              return ok ? 'ready' : 'starting';
            },
            { timeout: 150_000, interval: 200 },
          )
          .toMatch(/^(ready|exited)/);
        expect(child.exitCode).toBeNull();
        const console = await fetch(`http://127.0.0.1:${port}/console`);
        expect(console.status).toBe(200);
        expect(await console.text()).toContain('bundle test console');
        const spec = await fetch(`http://127.0.0.1:${port}/openapi.json`);
        expect(spec.status).toBe(200);
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await db.drop();
      }
    }, 240_000);
  }
});
