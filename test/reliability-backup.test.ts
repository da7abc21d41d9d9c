import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackup } from '../scripts/reliability/backup.js';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';
import { runCli } from '../src/cli.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { freshDatabase, type TestDatabase, testConfig } from './helpers.js';

async function cli(args: string[], databaseUrl: string): Promise<{ code: number; text: string }> {
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = databaseUrl;
  process.env.LOG_LEVEL = 'silent';
  try {
    const lines: string[] = [];
    const code = await runCli(args, (line) => lines.push(line));
    return { code, text: lines.join('\n') };
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}

describe('accolade backup <file>', () => {
  let source: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    source = await freshDatabase('sqlite');
    const database = createDatabase(testConfig(source.url).database);
    await migrateToLatest(database);
    await database.close();
    dir = mkdtempSync(join(tmpdir(), 'accolade-backup-cli-'));
  });
  afterAll(async () => {
    await source.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies the SQLite database, checks the copy and refuses to overwrite a file', async () => {
    const file = join(dir, 'copy.db');
    const first = await cli(['backup', file], source.url);
    expect(first.code, first.text).toBe(0);
    expect(first.text).toMatch(/quick_check ok/);
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.partial`)).toBe(false);
    expect(await cli(['backup', file], source.url)).toMatchObject({ code: 64 });
    expect(await cli(['backup'], source.url)).toMatchObject({ code: 64 });
  });

  it.runIf(process.env.TEST_DATABASE_URL)('on PostgreSQL prints the pg_dump way and exits 2', async () => {
    // A schema of its own: the CLI migrates the database it is given, and the shared one's public
    // schema may hold another checkout's migrations.
    const target = await freshDatabase('postgres');
    try {
      const result = await cli(['backup', join(dir, 'pg.db')], target.url);
      expect(result.code).toBe(2);
      expect(result.text).toMatch(/pg_dump --format=custom/);
      expect(result.text).toMatch(/pg_restore/);
      expect(existsSync(join(dir, 'pg.db'))).toBe(false);
    } finally {
      await target.drop();
    }
  });
});

describe('reliability: backup and restore (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('online backup → fresh instance with identical credentials and a verifying audit chain (PostgreSQL: pg_dump | pg_restore)', async () => {
    const report = await runBackup({ full: false, postgresUrl: process.env.TEST_DATABASE_URL ?? null, log: () => {} });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    expect(report.figures.sqlite).toMatchObject({
      backupAtRest: { credentialsIdentical: true, auditIdentical: true },
      restore: { auditVerifyExit: 0 },
    });
  }, 240_000);
});
