import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildConsole, CONSOLE_OUT } from '../scripts/build-console.js';

/**
 * The console bundle the tests serve: built once per test process unless dist/console is newer than
 * a minute (another file in the same run built it). esbuild takes well under a second.
 */
export async function consoleBundle(): Promise<string> {
  const index = join(CONSOLE_OUT, 'index.html');
  if (!existsSync(index) || Date.now() - statSync(index).mtimeMs > 60_000) await buildConsole();
  return CONSOLE_OUT;
}
