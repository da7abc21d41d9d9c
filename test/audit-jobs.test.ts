import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';

/**
 * The audit invariant outside the API (docs/audit.md, "What is audited, and what is not"): each
 * command line command that changes state writes records with actor `cli`, and the expiry sweeper
 * writes one with actor `system` for each credential it announces.
 */
describe.each(dialects)('commands and jobs are audited, on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  const saved = { ...process.env };

  const cli = async (args: string[]) => {
    const lines: string[] = [];
    const code = await runCli(args, (line) => lines.push(line));
    expect(code, `${args.join(' ')}: ${lines.join('\n')}`).toBe(0);
    return lines.join('\n');
  };
  const recordIds = async () =>
    new Set((await t.database.db.selectFrom('audit_log').select('id').execute()).map((r) => r.id));
  const recordsSince = async (before: Set<string>) =>
    (await t.database.db.selectFrom('audit_log').select(['id', 'actor', 'action', 'target_id']).execute()).filter(
      (r) => !before.has(r.id),
    );

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' } });
    a = await t.issuer({ slug: `audit-jobs-${dialect}` });
    process.env.DATABASE_URL = t.testDb.url;
    process.env.LOG_LEVEL = 'silent';
    process.env.SIGNING_KEY_SECRET = 'test-signing-key-secret-0123456789abcdef';
    process.env.WEBHOOK_ALLOW_PRIVATE = 'true';
  });
  afterAll(async () => {
    for (const name of ['DATABASE_URL', 'LOG_LEVEL', 'SIGNING_KEY_SECRET', 'WEBHOOK_ALLOW_PRIVATE']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await t?.close();
  });

  it('writes records with actor cli for every command that changes state', async () => {
    const keyId = async () =>
      (
        await t.database.db
          .selectFrom('api_keys')
          .select('id')
          .where('issuer_id', '=', a.id)
          .where('revoked_at', 'is', null)
          .orderBy('created_at', 'desc')
          .executeTakeFirstOrThrow()
      ).id;
    const webhookId = async () =>
      (
        await t.database.db
          .selectFrom('webhook_subscriptions')
          .select('id')
          .where('issuer_id', '=', a.id)
          .executeTakeFirstOrThrow()
      ).id;
    const commands: (() => Promise<string[]>)[] = [
      async () => [
        'issuers',
        'create',
        '--name',
        'Cli Co',
        '--slug',
        `cli-co-${dialect}`,
        '--email',
        'ops@cli.example',
        '--url',
        'https://cli.example',
      ],
      async () => ['keys', 'create', '--issuer', a.slug, '--label', 'made by cli'],
      async () => ['keys', 'rotate', '--issuer', a.slug, '--key', await keyId()],
      async () => ['keys', 'rotate', '--issuer', a.slug, '--all'],
      async () => ['keys', 'revoke', '--issuer', a.slug, '--key', await keyId()],
      async () => ['plans', 'set', '--issuer', a.slug, '--plan', 'growth'],
      async () => ['plans', 'set', '--plan', 'growth', '--rpm', '600'],
      async () => ['keys', 'signing', 'rotate', '--issuer', a.slug],
      async () => ['users', 'invite', '--issuer', a.slug, '--email', 'staff@cli.example', '--role', 'owner'],
      async () => [
        'webhooks',
        'add',
        '--issuer',
        a.slug,
        '--url',
        'http://127.0.0.1:9/cli',
        '--events',
        'credential.issued',
      ],
      async () => ['webhooks', 'remove', '--issuer', a.slug, '--id', await webhookId()],
      async () => [
        'bench-seed',
        '--issuer',
        a.slug,
        '--credentials',
        '3',
        '--verifications',
        '2',
        '--definitions',
        '1',
      ],
    ];
    const unaudited: string[] = [];
    for (const command of commands) {
      const args = await command();
      const before = await recordIds();
      await cli(args);
      const added = await recordsSince(before);
      if (added.length === 0 || added.some((r) => r.actor !== 'cli')) {
        unaudited.push(`${args.slice(0, 2).join(' ')}: ${JSON.stringify(added.map((r) => [r.action, r.actor]))}`);
      }
    }
    expect(unaudited).toEqual([]);
  }, 120_000);

  it('the expiry sweeper writes credential.expired with actor system for each credential it announces', async () => {
    // The CLI walk above rotated and revoked the first issuer's keys.
    const b = await t.issuer({ slug: `audit-jobs-sweep-${dialect}` });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(b.key),
      payload: { name: 'Expiring', description: 'x' },
    });
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(b.key),
        payload: {
          definitionId: definition.json().id,
          recipientEmail: `exp${n}@example.org`,
          completionKey: `exp-${n}`,
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().credentialId);
    }
    await t.database.db
      .updateTable('credentials')
      .set({ expires_on: '2020-01-01T00:00:00.000Z' })
      .where('id', 'in', ids)
      .execute();
    const before = await recordIds();
    expect(await t.app.services.webhooks.expirySweeper.runOnce()).toBe(2);
    const added = await recordsSince(before);
    expect(added.map((r) => [r.action, r.actor, r.target_id]).sort()).toEqual(
      ids.map((id) => ['credential.expired', 'system', id]).sort(),
    );
    const again = await recordIds();
    expect(await t.app.services.webhooks.expirySweeper.runOnce()).toBe(0);
    expect(await recordsSince(again)).toEqual([]);
  });
});
