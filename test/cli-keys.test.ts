import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli.js';
import { createDatabase, type Database, migrateToLatest } from '../src/db/database.js';
import { auth, dialects, freshDatabase, type TestDatabase, testConfig } from './helpers.js';

/** Issue 22 items 1, 6 (keys, plans) and 22: key rotation, console audit records, list headers, numeric options. */

async function cli(args: string[]): Promise<{ code: number; lines: string[]; errors: string[] }> {
  const lines: string[] = [];
  const errors: string[] = [];
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    errors.push(String(chunk));
    return true;
  });
  try {
    const code = await runCli(args, (line) => lines.push(line));
    return { code, lines, errors };
  } finally {
    stderr.mockRestore();
  }
}

const KEY = /acc_[A-Za-z0-9_-]{40}/;

describe.each(dialects)('console keys, plans and lists on %s', (dialect) => {
  let db: TestDatabase;
  let saved: string | undefined;
  let database: Database;
  let app: FastifyInstance;
  let counter = 0;

  async function createIssuer(): Promise<{ slug: string; key: string }> {
    const slug = `keys-${dialect}-${++counter}`;
    const created = await cli([
      ...['issuers', 'create', '--name', 'Keys', '--slug', slug],
      ...['--email', 'ops@keys.example', '--url', 'https://keys.example'],
    ]);
    expect(created.code, created.errors.join('')).toBe(0);
    return { slug, key: created.lines.join('\n').match(KEY)?.[0] ?? '' };
  }

  /** The CLI is another process to the app: its key changes reach the app's key cache through the change feed. */
  const status = async (key: string) => {
    await app.services.changeFeed?.fence();
    return (await app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(key) })).statusCode;
  };

  async function keyRows(slug: string): Promise<Record<string, string>[]> {
    const listed = await cli(['keys', 'list', '--issuer', slug]);
    const [header, ...rows] = listed.lines.map((l) => l.split('\t'));
    expect(header).toEqual(['ID', 'PREFIX', 'STATUS', 'CREATED', 'STOPS', 'LABEL']);
    return rows.map((row) => Object.fromEntries((header ?? []).map((name, i) => [name, row[i] ?? ''])));
  }

  async function auditOf(key: string): Promise<{ action: string; actor: string; targetId: string; details: never }[]> {
    const res = await app.inject({ method: 'GET', url: '/api/v1/audit?limit=200', headers: auth(key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().items;
  }

  beforeAll(async () => {
    db = await freshDatabase(dialect);
    saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = db.url;
    process.env.LOG_LEVEL = 'silent';
    database = createDatabase(testConfig(db.url).database);
    await migrateToLatest(database);
    app = await buildApp({ config: testConfig(db.url), database, logger: false });
    await app.ready();
    await app.services.changeFeed?.whenLive();
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    await app.close();
    await database.close();
    await db.drop();
  });

  it('a rotation without grace ends a key still in the grace of an earlier rotation, and the list shows stop times', async () => {
    const { slug, key: first } = await createIssuer();
    const graced = await cli(['keys', 'rotate', '--issuer', slug, '--all', '--grace', '3600']);
    const second = graced.lines.join('\n').match(KEY)?.[0] ?? '';
    expect(graced.lines.join('\n')).toMatch(/Previous key acc_.{4}… \(id [0-9a-f-]{36}\) stops working at \d{4}-/);
    expect([await status(first), await status(second)]).toEqual([200, 200]);
    const during = await keyRows(slug);
    expect(during.map((k) => [k.STATUS, k.LABEL])).toEqual([
      ['grace', 'initial'],
      ['active', 'rotated'],
    ]);
    expect(Date.parse(during[0]?.STOPS ?? '')).toBeGreaterThan(Date.now() + 3000_000);
    expect(during[1]?.STOPS).toBe('-');

    const rotated = await cli(['keys', 'rotate', '--issuer', slug, '--all']);
    const third = rotated.lines.join('\n').match(KEY)?.[0] ?? '';
    expect(rotated.lines.filter((l) => l.startsWith('Previous key'))).toHaveLength(2);
    expect(rotated.lines.filter((l) => l.endsWith('is revoked.'))).toHaveLength(2);
    expect([await status(first), await status(second), await status(third)]).toEqual([401, 401, 200]);
    const after = await keyRows(slug);
    expect(after.map((k) => k.STATUS)).toEqual(['revoked', 'revoked', 'active']);
    expect(Date.parse(after[0]?.STOPS ?? '')).toBeLessThanOrEqual(Date.now());
    expect(after[0]?.STOPS).toBe(after[1]?.STOPS);
  });

  it('rotating one key ends that key alone, keeps its label, and is audited with which key', async () => {
    const { slug, key: initial } = await createIssuer();
    const made = await cli(['keys', 'create', '--issuer', slug, '--label', 'LMS integration']);
    const lms = made.lines.join('\n').match(KEY)?.[0] ?? '';
    const lmsId = /\(id ([0-9a-f-]{36})\)/.exec(made.lines[0] ?? '')?.[1] ?? '';
    const rotated = await cli(['keys', 'rotate', '--issuer', slug, '--key', lmsId, '--grace', '3600']);
    expect(rotated.code, rotated.errors.join('')).toBe(0);
    const next = rotated.lines.join('\n').match(KEY)?.[0] ?? '';
    expect(rotated.lines[0]).toContain('label "LMS integration"');
    expect(rotated.lines.filter((l) => l.startsWith('Previous key'))).toEqual([
      expect.stringMatching(new RegExp(`^Previous key acc_.{4}… \\(id ${lmsId}\\) stops working at \\d{4}-`)),
    ]);
    const rows = await keyRows(slug);
    expect(rows.map((k) => [k.LABEL, k.STATUS])).toEqual([
      ['initial', 'active'],
      ['LMS integration', 'grace'],
      ['LMS integration', 'active'],
    ]);
    expect(rows[0]?.STOPS).toBe('-');
    expect(Date.parse(rows[1]?.STOPS ?? '')).toBeGreaterThan(Date.now() + 3000_000);
    expect([await status(initial), await status(lms), await status(next)]).toEqual([200, 200, 200]);

    // Without grace the rotated key stops at once; the initial key still works.
    const newId = rows[2]?.ID ?? '';
    const again = await cli(['keys', 'rotate', '--issuer', slug, '--key', newId]);
    expect(again.lines.some((l) => l.endsWith('is revoked.'))).toBe(true);
    expect([await status(initial), await status(next)]).toEqual([200, 401]);
    const records = (await auditOf(initial)).filter((r) => r.action === 'api_key.rotated');
    expect(records.map((r) => [r.actor, r.targetId])).toEqual(
      expect.arrayContaining([
        ['cli', lmsId],
        ['cli', newId],
      ]),
    );
    expect(records).toHaveLength(2);
    // A stopped key cannot be rotated, and neither --key nor --all is a usage error that changes nothing.
    expect((await cli(['keys', 'rotate', '--issuer', slug, '--key', newId])).code).toBe(1);
    const bare = await cli(['keys', 'rotate', '--issuer', slug]);
    expect(bare.code).toBe(64);
    expect(bare.errors.join('')).toContain('--key <id|prefix> (that key alone) or --all');
    expect((await cli(['keys', 'rotate', '--issuer', slug, '--all', '--key', newId])).code).toBe(64);
    expect((await keyRows(slug)).filter((k) => k.STATUS === 'active')).toHaveLength(2);
  });

  it('a longer grace never extends a sooner stop time', async () => {
    const { slug } = await createIssuer();
    await cli(['keys', 'rotate', '--issuer', slug, '--all', '--grace', '600']);
    const firstStop = (await keyRows(slug))[0]?.STOPS;
    await cli(['keys', 'rotate', '--issuer', slug, '--all', '--grace', '7200']);
    const rows = await keyRows(slug);
    expect(rows[0]?.STOPS).toBe(firstStop);
    expect(Date.parse(rows[1]?.STOPS ?? '')).toBeGreaterThan(Date.parse(firstStop ?? ''));
    expect(rows.map((k) => k.STATUS)).toEqual(['grace', 'grace', 'active']);
  });

  it('audits key and plan changes made in the console with the actor cli', async () => {
    const { slug, key } = await createIssuer();
    const extra = await cli(['keys', 'create', '--issuer', slug, '--label', 'ci']);
    const extraId = /\(id ([0-9a-f-]{36})\)/.exec(extra.lines[0] ?? '')?.[1] ?? '';
    expect((await cli(['keys', 'revoke', '--issuer', slug, '--key', extraId])).code).toBe(0);
    expect((await cli(['keys', 'revoke', '--issuer', slug, '--key', extraId])).code).toBe(1);
    const rotated = await cli(['keys', 'rotate', '--issuer', slug, '--all', '--grace', '60']);
    const current = rotated.lines.join('\n').match(KEY)?.[0] ?? '';
    expect((await cli(['plans', 'set', '--issuer', slug, '--plan', 'growth'])).code).toBe(0);
    expect((await cli(['plans', 'set', '--plan', 'growth', '--rpm', '2400'])).code).toBe(0);

    const records = await auditOf(current);
    const byAction = (action: string) => records.filter((r) => r.action === action);
    expect(records.every((r) => r.actor === 'cli')).toBe(true);
    expect(byAction('issuer.created')).toHaveLength(1);
    expect(
      byAction('api_key.created')
        .map((r) => (r.details as { label: string }).label)
        .sort(),
    ).toEqual(['ci', 'initial', 'rotated']);
    expect(byAction('api_key.revoked')).toEqual([expect.objectContaining({ targetId: extraId })]);
    const rotatedRecords = byAction('api_key.rotated');
    expect(rotatedRecords).toHaveLength(1);
    expect(rotatedRecords[0]?.details).toMatchObject({ stopsAt: expect.any(String), replacedBy: expect.any(String) });
    expect(byAction('issuer.plan_changed')[0]?.details).toMatchObject({
      from: 'free',
      to: 'growth',
      limits: { requestsPerMinute: expect.any(Number) },
    });
    expect(byAction('plan.updated')[0]?.details).toMatchObject({
      after: { requestsPerMinute: 2400 },
      before: { requestsPerMinute: expect.any(Number) },
    });
    expect(await status(key)).toBe(200);
    const verified = await cli(['audit', 'verify', '--issuer', slug]);
    expect(verified.code, verified.lines.join('\n')).toBe(0);
  });

  it('leaves no audit record when the change fails', async () => {
    const { slug, key } = await createIssuer();
    const before = (await auditOf(key)).length;
    expect((await cli(['keys', 'revoke', '--issuer', slug, '--key', 'acc_none'])).code).toBe(1);
    expect((await cli(['plans', 'set', '--issuer', slug, '--plan', 'no-such-plan'])).code).toBe(1);
    expect((await cli(['plans', 'set', '--plan', 'free', '--rpm', '0'])).code).toBe(64);
    expect(await auditOf(key)).toHaveLength(before);
  });

  it('prints a header row above every list', async () => {
    const { slug } = await createIssuer();
    expect((await cli(['issuers', 'list'])).lines[0]).toBe('SLUG\tID\tPLAN\tNAME');
    expect((await cli(['plans', 'list'])).lines[0]).toBe('PLAN\tQUOTA\tPREMIUM\tREQUESTS');
    expect((await cli(['keys', 'list', '--issuer', slug])).lines[0]).toBe('ID\tPREFIX\tSTATUS\tCREATED\tSTOPS\tLABEL');
    expect((await cli(['webhooks', 'list', '--issuer', slug])).lines).toEqual(['No webhooks.']);
  });

  it.each([
    [['plans', 'set', '--plan', 'starter', '--quota=1.5'], '--quota takes a whole number of at least 0, not "1.5"'],
    [['plans', 'set', '--plan', 'starter', '--quota', '-5'], '--quota takes a whole number of at least 0, not "-5"'],
    [['plans', 'set', '--plan', 'starter', '--quota', '1e3'], '--quota takes a whole number of at least 0, not "1e3"'],
    [['plans', 'set', '--plan', 'starter', '--rpm', '0'], '--rpm takes a whole number of at least 1, not "0"'],
    [['plans', 'set', '--plan', 'starter', '--rpm', '-1.5'], '--rpm takes a whole number of at least 1, not "-1.5"'],
    [['keys', 'rotate', '--issuer', 'any', '--grace', '2.5'], '--grace takes a whole number of at least 0, not "2.5"'],
    [['keys', 'rotate', '--issuer', 'any', '--grace', '-60'], '--grace takes a whole number of at least 0, not "-60"'],
    [
      ['bench-seed', '--issuer', 'any', '--credentials', '-1', '--verifications', '1'],
      '--credentials takes a whole number of at least 0, not "-1"',
    ],
  ])('refuses %j with a clear message and changes nothing', async (args, message) => {
    const before = (await cli(['plans', 'list'])).lines;
    const run = await cli(args);
    expect(run.code).toBe(64);
    expect(run.errors).toEqual([`error: ${message}\n`]);
    expect((await cli(['plans', 'list'])).lines).toEqual(before);
  });
});

describe('the help text describes rotation as it is (design.md, added 2026-11-27: per key)', () => {
  it('names --key and --all and no longer says that every older key stops', async () => {
    const help = (await cli(['--help'])).lines.join('\n');
    expect(help).toContain('keys rotate --issuer <slug> (--key <id|prefix> | --all) [--grace <seconds>]');
    expect(help).toMatch(/--key: .*same label; that key alone stops after/s);
    expect(help).toContain('--all: one new key now; every key of the issuer stops after the grace');
    expect(help).not.toContain('every older key');
  });
});
