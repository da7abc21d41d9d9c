import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli.js';
import { createDatabase, type Database, migrateToLatest } from '../src/db/database.js';
import { auth, dialects, freshDatabase, type TestDatabase, testConfig } from './helpers.js';

async function cli(args: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runCli(args, (line) => lines.push(line));
  return { code, lines };
}

describe.each(dialects)('console (CLI) on %s', (dialect) => {
  let db: TestDatabase;
  let saved: string | undefined;
  let database: Database;

  beforeAll(async () => {
    db = await freshDatabase(dialect);
    saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = db.url;
    process.env.LOG_LEVEL = 'silent';
    database = createDatabase(testConfig(db.url).database);
    await migrateToLatest(database);
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    await database.close();
    await db.drop();
  });

  it('creates an issuer whose printed key works over HTTP, then rotates and revokes keys', async () => {
    const created = await cli([
      'issuers',
      'create',
      '--name',
      'Acme Training',
      '--slug',
      `acme-${dialect}`,
      '--email',
      'ops@acme.example',
      '--url',
      'https://acme.example',
      '--plan',
      'growth',
    ]);
    expect(created.code).toBe(0);
    const key = created.lines.join('\n').match(/acc_[A-Za-z0-9_-]{40}/)?.[0];
    expect(key).toBeDefined();
    expect(created.lines.join('\n')).toContain('curl -H "Authorization: Bearer');

    const config = testConfig(db.url);
    const app = await buildApp({ config, database, logger: false });
    try {
      await app.ready();
      await app.services.changeFeed?.whenLive();
      const me = await app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(key ?? '') });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ slug: `acme-${dialect}`, name: 'Acme Training' });

      const listed = await cli(['issuers', 'list']);
      expect(listed.lines.some((l) => l.startsWith(`acme-${dialect}\t`))).toBe(true);

      const rotated = await cli(['keys', 'rotate', '--issuer', `acme-${dialect}`, '--all']);
      const newKey = rotated.lines.join('\n').match(/acc_[A-Za-z0-9_-]{40}/)?.[0] ?? '';
      // The CLI is another process to the app: its changes reach the app's key cache through the change feed.
      await app.services.changeFeed?.fence();
      expect((await app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(key ?? '') })).statusCode).toBe(
        401,
      );
      expect((await app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(newKey) })).statusCode).toBe(
        200,
      );

      const keys = await cli(['keys', 'list', '--issuer', `acme-${dialect}`]);
      const active = keys.lines.find((l) => l.includes('\tactive\t'));
      const activeId = active?.split('\t')[0] ?? '';
      expect((await cli(['keys', 'revoke', '--issuer', `acme-${dialect}`, '--key', activeId])).code).toBe(0);
      await app.services.changeFeed?.fence();
      expect((await app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(newKey) })).statusCode).toBe(
        401,
      );
    } finally {
      await app.close();
    }
  });

  it('lists and edits plans, assigns a plan, verifies the audit chain', async () => {
    const plans = await cli(['plans', 'list']);
    expect(plans.lines.map((l) => l.split('\t')[0])).toEqual(['PLAN', 'free', 'starter', 'growth', 'enterprise']);
    expect((await cli(['plans', 'set', '--plan', 'starter', '--quota', '2000', '--premium', 'true'])).code).toBe(0);
    expect((await cli(['plans', 'list'])).lines.find((l) => l.startsWith('starter'))).toContain('\t2000/month\tyes\t');
    expect((await cli(['plans', 'set', '--issuer', `acme-${dialect}`, '--plan', 'starter'])).code).toBe(0);
    const verify = await cli(['audit', 'verify']);
    expect(verify.code).toBe(0);
  });

  it('fails with a usage message on bad input', async () => {
    expect((await cli(['issuers', 'create', '--name', 'x'])).code).toBe(64);
    expect((await cli(['bogus'])).code).toBe(64);
    expect(
      (
        await cli([
          'issuers',
          'create',
          '--name',
          'Dup',
          '--slug',
          `acme-${dialect}`,
          '--email',
          'a@b.example',
          '--url',
          'https://b.example',
        ])
      ).code,
    ).toBe(1);
  });

  it.each([
    ['--logo-url', 'logo.jpg', 'The issuer logo url must be an http(s) URL.'],
    ['--image-url', 'javascript:alert(1)', 'The issuer image url must be an http(s) URL.'],
    ['--brand-color', 'red;}', 'The issuer brand colour must be a hex colour such as #1f5fbf.'],
  ])(
    'refuses an issuer whose %s is %s: it would reach the Profile document and the page',
    async (flag, value, message) => {
      const slug = `brand-${dialect}-${flag.slice(2)}`;
      const base = [
        'issuers',
        'create',
        '--name',
        'Brand',
        '--slug',
        slug,
        '--email',
        'a@b.example',
        '--url',
        'https://b.example',
      ];
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        expect((await cli([...base, flag, value])).code).toBe(1);
        expect(stderr).toHaveBeenCalledWith(`error: ${message}\n`);
      } finally {
        stderr.mockRestore();
      }
      expect((await cli(['issuers', 'list'])).lines.some((l) => l.startsWith(`${slug}\t`))).toBe(false);
    },
  );
});
