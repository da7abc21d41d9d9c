import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';

/**
 * `npm run lint:openapi`: builds the service (in-memory SQLite, nothing listening), writes the
 * document it serves at /openapi.json to a temp file and lints it with Redocly CLI under
 * redocly.yaml. Exits with Redocly's status: non-zero when it finds an error. Runs offline: the
 * linter's telemetry and update notices are off and its rules are built in.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REDOCLY = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

/** The document exactly as a client fetches it from GET /openapi.json. */
export async function servedDocument(): Promise<string> {
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    PUBLIC_BASE_URL: 'https://badges.example.org',
    LOG_LEVEL: 'silent',
    BOOTSTRAP_ISSUER: 'false',
    WEBHOOK_DISPATCH: 'off',
  });
  const database = createDatabase(config.database);
  try {
    await migrateToLatest(database);
    const app = await buildApp({ config, database, logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
      return JSON.stringify(res.json(), null, 2);
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}

/** Redocly's verdict on a document: its exit status and what it printed. */
export function lintDocument(document: string): { status: number; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'accolade-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, document);
    const run = spawnSync(
      process.execPath,
      [REDOCLY, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'stylish'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    return { status: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { status, output } = lintDocument(await servedDocument());
  process.stdout.write(output);
  process.exitCode = status;
}
