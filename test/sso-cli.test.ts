import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { dialects, freshDatabase, type TestDatabase, testConfig } from './helpers.js';
import { CLIENT_ID, CLIENT_SECRET, startProvider, type TestProvider } from './sso.support.js';

const ENV = {
  LOG_LEVEL: 'silent',
  PUBLIC_BASE_URL: 'https://badges.test',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  SIGNING_KEY_SECRET: 'test-signing-key-secret-of-the-sso-cli',
  BOOTSTRAP_ISSUER: 'false',
};

async function cli(args: string[]): Promise<{ code: number; out: string; errors: string }> {
  const lines: string[] = [];
  const errors: string[] = [];
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    errors.push(String(chunk));
    return true;
  });
  try {
    const code = await runCli(args, (line) => lines.push(line));
    return { code, out: lines.join('\n'), errors: errors.join('') };
  } finally {
    stderr.mockRestore();
  }
}

describe.each(dialects)('sso command on %s', (dialect) => {
  let db: TestDatabase;
  let database: Database;
  let provider: TestProvider;
  const saved: Record<string, string | undefined> = {};
  const slug = `sso-cli-${dialect}`;
  let secretFile = '';

  beforeAll(async () => {
    provider = await startProvider('https://badges.test/sso/callback');
    db = await freshDatabase(dialect);
    for (const [name, value] of Object.entries({ ...ENV, DATABASE_URL: db.url })) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    secretFile = join(mkdtempSync(join(tmpdir(), 'sso-cli-')), 'client-secret');
    writeFileSync(secretFile, `${CLIENT_SECRET}\n`, { mode: 0o600 });
    const made = await cli([
      ...['issuers', 'create', '--name', 'CLI College', '--slug', slug],
      ...['--email', 'ops@college.example', '--url', 'https://college.example'],
    ]);
    expect(made.code, made.errors).toBe(0);
    database = createDatabase(testConfig(db.url).database);
  });
  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await database?.close();
    await provider?.close();
    await db?.drop();
  });

  it('sets the provider up (secret from a file), changes one setting keeping the rest, shows and removes it', async () => {
    const missing = await cli(['sso', 'set', '--issuer', slug, '--issuer-url', provider.issuer]);
    expect(missing.code).toBe(64);
    expect(missing.errors).toContain('--provider is required');

    const set = await cli([
      ...['sso', 'set', '--issuer', slug, '--provider', 'Staff Login', '--issuer-url', provider.issuer],
      ...['--client-id', CLIENT_ID, '--client-secret-file', secretFile, '--domain', 'college.example'],
    ]);
    expect(set.code, set.errors).toBe(0);
    expect(set.out).toContain('https://badges.test/sso/callback');
    expect(set.out).toContain(`https://badges.test/console/login?issuer=${slug}`);

    const off = await cli(['sso', 'set', '--issuer', slug, '--password', 'off']);
    expect(off.code, off.errors).toBe(0);
    const shown = await cli(['sso', 'show', '--issuer', slug]);
    expect(shown.out).toContain(`Provider: Staff Login (${provider.issuer}), client ${CLIENT_ID}`);
    expect(shown.out).toContain('Domain sign-in (viewer): college.example');
    expect(shown.out).toContain('Password sign-in: off');
    expect(shown.out).not.toContain(CLIENT_SECRET);

    const removed = await cli(['sso', 'remove', '--issuer', slug]);
    expect(removed.code, removed.errors).toBe(0);
    expect((await cli(['sso', 'show', '--issuer', slug])).code).toBe(1);
    const audit = await database.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('target_type', '=', 'console_sso')
      .orderBy('seq')
      .execute();
    expect(audit).toEqual([
      { actor: 'cli', action: 'console_sso.configured' },
      { actor: 'cli', action: 'console_sso.updated' },
      { actor: 'cli', action: 'console_sso.removed' },
    ]);
  });
});
