import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * `npm run build`'s second step: writes dist/src/server.js as one bundle of the server's own modules
 * and of the two ESM packages that come as hundreds of small files (kysely 262 files at start,
 * TypeBox 247), in place of the 1,700 files `tsc` leaves for Node to resolve and load one by one.
 *
 * Every other package stays external and loads from node_modules as before: CommonJS packages, the
 * native better-sqlite3, packages that read their own files (swagger-ui's assets, pino's workers),
 * and the libraries the server imports only at first use (`import()`), which stay lazy because
 * `splitting` keeps each dynamic import a separate chunk. Neither bundled package is imported by an
 * external one, so no package exists twice in the process.
 *
 * The chunks sit two folders below dist/src, as src/modules/<name>/*.js do in tsc's output, so code
 * that finds files from its own `import.meta.url` (the console's dist/console) resolves the same.
 * The rest of dist/ (the CLI, the migrations it runs) is tsc's output, unbundled.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(ROOT, 'dist', 'src');
export const CHUNK_DIR = 'server-bundle/chunks';
const BUNDLED = new Set(['kysely', '@sinclair/typebox']);

const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Bundles src/server.ts into `outDir` (dist/src by default); returns esbuild's metafile. */
export async function bundleServer(outDir = OUT_DIR) {
  rmSync(join(outDir, CHUNK_DIR), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/server.ts'],
    outdir: outDir,
    chunkNames: `${CHUNK_DIR}/[name]-[hash]`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'external-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, ({ path }) =>
            BUNDLED.has(packageName(path)) ? undefined : { path, external: true },
          );
        },
      },
    ],
  });
  return result.metafile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await bundleServer();
