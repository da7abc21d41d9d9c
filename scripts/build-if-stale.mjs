import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

/**
 * `npm start`'s first step: runs `npm run build` only when dist/ is older than what it is built
 * from, so a start with nothing changed goes straight to the server (a full build took 16-25 s).
 *
 * dist/.build-stamp is given the time the last build began (scripts/build.mjs writes it); the build runs again when any file
 * or folder below is newer (a folder's time changes when a file in it is added, removed or renamed),
 * or when the stamp is missing. A plain Node script, so this check loads no TypeScript tooling.
 * FORCE_BUILD=1 builds whatever the times say.
 *
 * Before anything, the Node version is held to package.json's `engines`: on an older Node an
 * existing build fails with a SyntaxError about a missing export, which names nothing the operator
 * can act on (npm checks `engines` at install with engine-strict, never at `npm start`).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
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

/** The one line refusing this Node, or null when package.json's `engines.node` admits `version`. */
export function unsupportedNode(version = process.version, root = ROOT) {
  const range = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node;
  if (!range || semver.satisfies(version, range)) return null;
  return `accolade needs Node.js ${range}; this is Node.js ${version}. Install a supported Node.js and run npm start again.`;
}

function main() {
  const refusal = unsupportedNode();
  if (refusal !== null) {
    process.stderr.write(`${refusal}\n`);
    process.exit(1);
  }
  const reason = process.env.FORCE_BUILD === '1' ? 'FORCE_BUILD=1' : staleReason();
  if (reason === null) return;
  process.stderr.write(`building: ${reason}\n`);
  // The build writes the stamp itself (scripts/build.mjs), so a plain `npm run build` counts too.
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
