import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run build`: the server (tsc, then the bundle), the console, and last dist/.build-stamp, given
 * the time the build began, so the `npm start` after it finds dist/ current instead of building
 * again (scripts/build-if-stale.mjs reads the stamp). A step that fails stops the build before the
 * stamp is written, so a broken build is built again at the next start.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(ROOT, 'package.json'));

/** Each step as [script, ...arguments], run with this Node from the project folder. */
export const STEPS = [
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  [join(ROOT, 'scripts', 'bundle-server.mjs')],
  [require.resolve('tsx/cli'), join(ROOT, 'scripts', 'build-console.ts')],
];

/** Runs `steps` in `root`, then stamps dist/ with the time they began. */
export function build(root = ROOT, steps = STEPS) {
  const began = new Date();
  for (const [script, ...args] of steps)
    execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  const stamp = join(root, 'dist', '.build-stamp');
  mkdirSync(dirname(stamp), { recursive: true });
  closeSync(openSync(stamp, 'a'));
  // The time the build began: a file saved while it ran is newer, and builds again next time.
  utimesSync(stamp, began, began);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) build();
