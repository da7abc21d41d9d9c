import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * Builds the web console (console/src) into dist/console: one hashed, minified JS and CSS bundle
 * under assets/, an index.html that names them (no inline script, so the console's CSP needs no
 * nonce), the favicon (an SVG, hashed like the bundles), and a .br and .gz copy of each text file so the server sends them compressed as they are.
 * Run by `npm run build`, and by the browser tests' setup.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CONSOLE_SOURCE = join(ROOT, 'console');
export const CONSOLE_OUT = join(ROOT, 'dist', 'console');

function compressed(file: string): void {
  const bytes = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
  writeFileSync(
    `${file}.br`,
    brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
  );
}

export async function buildConsole(out = CONSOLE_OUT): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  const assets = join(out, 'assets');
  mkdirSync(assets, { recursive: true });
  const result = await build({
    entryPoints: [join(CONSOLE_SOURCE, 'src', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: assets,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: join(CONSOLE_SOURCE, 'tsconfig.json'),
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => resolve(ROOT, path));
  const script = outputs.find((path) => path.endsWith('.js'));
  const style = outputs.find((path) => path.endsWith('.css'));
  if (!script || !style) throw new Error('the console build made no script or no stylesheet');
  const icon = readFileSync(join(CONSOLE_SOURCE, 'favicon.svg'));
  const iconName = `favicon-${createHash('sha256').update(icon).digest('hex').slice(0, 8)}.svg`;
  writeFileSync(join(assets, iconName), icon);
  const template = readFileSync(join(CONSOLE_SOURCE, 'index.html'), 'utf8');
  const html = template
    .replace('%ICON%', `/console/assets/${iconName}`)
    .replace('%SCRIPT%', `/console/assets/${script.slice(assets.length + 1)}`)
    .replace('%STYLE%', `/console/assets/${style.slice(assets.length + 1)}`);
  writeFileSync(join(out, 'index.html'), html);
  compressed(join(out, 'index.html'));
  for (const name of readdirSync(assets)) compressed(join(assets, name));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildConsole();
}
