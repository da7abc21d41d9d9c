import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  for (const output of Object.keys(result.metafile.outputs)) {
    if (output.endsWith('.js')) asciiOnly(join(ROOT, output));
  }
  return result.metafile;
}

/**
 * Rewrites every character past ASCII in a chunk as a `\u` escape. esbuild's default charset
 * escapes them in string and regular expression literals, but not in the comments it keeps or in
 * template literals; one such character anywhere makes Node 24 hold the whole chunk's source as a
 * two-byte string (a Latin-1 one such as "\u00a7" is enough: measured, a 1.2 MB module held in
 * 2.44 MB of heap where the same module in ASCII took 1.22 MB). The main chunk is 2.2 MB, kept for as
 * long as the server runs (issue 48, peak RSS). An escape means the same in a comment, and a
 * template literal's cooked strings (the only ones the server's tags read) are unchanged by it.
 * Columns after such a character on its line shift in the source map; the lines do not.
 */
function asciiOnly(path) {
  const code = readFileSync(path, 'utf8');
  const ascii = code.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== code) writeFileSync(path, ascii);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await bundleServer();
