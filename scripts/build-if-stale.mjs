import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm start`'s first step: runs `npm run build` only when dist/ is older than what it is built
 * from, so a start with nothing changed goes straight to the server (a full build took 16-25 s).
 *
 * dist/.build-stamp is given the time the last build here began; the build runs again when any file
 * or folder below is newer (a folder's time changes when a file in it is added, removed or renamed),
 * or when the stamp is missing. A plain Node script, so this check loads no TypeScript tooling.
 * FORCE_BUILD=1 builds whatever the times say.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const STAMP = join(ROOT, 'dist', '.build-stamp');
/** What `npm run build` reads: the server (and the bench data its CLI imports), the console, their settings. */
export const INPUTS = [
  'src',
  'bench/lib/bench-seed.ts',
  'console',
  'scripts/bundle-server.mjs',
  'scripts/build-console.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];

/** The newest modification time (ms) of `path` and, for a folder, of everything under it; 0 if absent. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** Why dist/ must be built again, or null when it is current. */
export function staleReason(root = ROOT) {
  const stamp = join(root, 'dist', '.build-stamp');
  if (!existsSync(stamp)) return 'no build stamp in dist/';
  const builtAt = statSync(stamp).mtimeMs;
  for (const input of INPUTS) {
    if (newest(join(root, input)) > builtAt) return `${input} changed since the last build`;
  }
  return null;
}

function main() {
  const reason = process.env.FORCE_BUILD === '1' ? 'FORCE_BUILD=1' : staleReason();
  if (reason === null) return;
  process.stderr.write(`building: ${reason}\n`);
  const began = new Date();
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  // The time the build began: a file saved while it ran is newer, and builds again next time.
  closeSync(openSync(STAMP, 'a'));
  utimesSync(STAMP, began, began);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
