import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli.js';
import { createDatabase, type Database, migrateToLatest } from '../src/db/database.js';
import { ACCOUNT_FREE_FAILURES, ADDRESS_FAILURES_MAX } from '../src/modules/accounts/sign-in-limits.js';
import { consoleUser, PASSWORD } from './console.support.js';
import {
  createTestApp,
  dialects,
  expectErrorBody,
  freshDatabase,
  type TestApp,
  type TestDatabase,
  testConfig,
} from './helpers.js';

describe.each(dialects)('console team and sign-in limits on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  it('an owner invites, lists, changes roles and removes; the last owner stays', async () => {
    const issuer = await t.issuer();
    const owner = await consoleUser(t.app, issuer.id, 'owner');
    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: owner.headers,
      payload: { email: 'Registrar@Example.org', role: 'issuer' },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const body = invited.json();
    expect(body.user).toMatchObject({
      email: 'registrar@example.org',
      role: 'issuer',
      status: 'invited',
      lastSignInAt: null,
    });
    expect(body.inviteUrl).toMatch(/^https:\/\/badges\.test\/console\/invite\/[A-Za-z0-9_-]{43}$/);

    const taken = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: owner.headers,
      payload: { email: ' registrar@example.ORG', role: 'viewer' },
    });
    expectErrorBody(taken, 409, 'email_taken');

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: owner.headers });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().items.map((u: { email: string; status: string }) => [u.email, u.status])).toEqual([
      [owner.email, 'active'],
      ['registrar@example.org', 'invited'],
    ]);

    const demoteSelf = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${owner.userId}`,
      headers: owner.headers,
      payload: { role: 'viewer' },
    });
    expectErrorBody(demoteSelf, 409, 'last_owner');
    const removeSelf = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${owner.userId}`,
      headers: owner.headers,
    });
    expectErrorBody(removeSelf, 409, 'last_owner');

    const member = await consoleUser(t.app, issuer.id, 'issuer');
    const changed = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${member.userId}`,
      headers: owner.headers,
      payload: { role: 'viewer' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ id: member.userId, role: 'viewer', status: 'active' });
    // A role change ends the user's sessions.
    expectErrorBody(
      await t.app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie: member.cookie } }),
      401,
      'unauthorized',
    );

    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { email: member.email, password: PASSWORD },
    });
    expect(again.statusCode).toBe(200);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${member.userId}`,
      headers: owner.headers,
    });
    expect(removed.statusCode, removed.body).toBe(204);
    const cookie = String(again.headers['set-cookie']).split(';')[0] ?? '';
    expectErrorBody(
      await t.app.inject({ method: 'GET', url: '/api/v1/session', headers: { cookie } }),
      401,
      'unauthorized',
    );
    const gone = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { email: member.email, password: PASSWORD },
    });
    expectErrorBody(gone, 401, 'unauthorized');

    const actions = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'details'])
      .where('issuer_id', '=', issuer.id)
      .where('action', 'like', 'console_user.%')
      .where('actor', '=', `user:${owner.userId}`)
      .where('target_id', '!=', owner.userId)
      .execute();
    expect(actions.map((a) => a.action).sort()).toEqual([
      'console_user.invited',
      'console_user.removed',
      'console_user.role_changed',
    ]);
    expect(JSON.stringify(actions)).not.toContain('@');
  });

  it('two owners demoting each other at once leave one owner (the invariant is checked under a lock)', async () => {
    for (let round = 0; round < 4; round++) {
      const issuer = await t.issuer();
      const a = await consoleUser(t.app, issuer.id, 'owner');
      const b = await consoleUser(t.app, issuer.id, 'owner');
      const [ab, ba] = await Promise.all([
        t.app.inject({
          method: 'PATCH',
          url: `/api/v1/users/${b.userId}`,
          headers: a.headers,
          payload: { role: 'viewer' },
        }),
        t.app.inject({
          method: 'PATCH',
          url: `/api/v1/users/${a.userId}`,
          headers: b.headers,
          payload: { role: 'viewer' },
        }),
      ]);
      const statuses = [ab.statusCode, ba.statusCode].sort();
      // One demotion wins; the other is refused as the last owner's, or finds its author's session ended.
      expect(statuses[0], `${ab.body} ${ba.body}`).toBe(200);
      expect([401, 409]).toContain(statuses[1]);
      const owners = await t.database.db
        .selectFrom('console_users')
        .select('id')
        .where('issuer_id', '=', issuer.id)
        .where('role', '=', 'owner')
        .execute();
      expect(owners).toHaveLength(1);
    }
  }, 120_000);

  it('an owner removing the other owner while being demoted by them leaves one owner', async () => {
    for (let round = 0; round < 3; round++) {
      const issuer = await t.issuer();
      const a = await consoleUser(t.app, issuer.id, 'owner');
      const b = await consoleUser(t.app, issuer.id, 'owner');
      await Promise.all([
        t.app.inject({ method: 'DELETE', url: `/api/v1/users/${b.userId}`, headers: a.headers }),
        t.app.inject({
          method: 'PATCH',
          url: `/api/v1/users/${a.userId}`,
          headers: b.headers,
          payload: { role: 'viewer' },
        }),
      ]);
      const owners = await t.database.db
        .selectFrom('console_users')
        .select('id')
        .where('issuer_id', '=', issuer.id)
        .where('role', '=', 'owner')
        .where('password_hash', 'is not', null)
        .execute();
      expect(owners).toHaveLength(1);
    }
  }, 120_000);

  it('inviting an email another issuer has answers as for a new email; each issuer’s account signs in apart', async () => {
    const a = await t.issuer({ name: 'First Registry' });
    const b = await t.issuer({ name: 'Second Registry' });
    const ownerB = await consoleUser(t.app, b.id, 'owner');
    const shared = await consoleUser(t.app, a.id, 'viewer');
    const invite = (email: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: ownerB.headers,
        payload: { email, role: 'issuer' },
      });
    const known = await invite(shared.email.toUpperCase());
    const fresh = await invite(`fresh-${shared.email}`);
    expect(known.statusCode, known.body).toBe(201);
    expect(fresh.statusCode, fresh.body).toBe(201);
    const shape = (body: Record<string, unknown>) =>
      JSON.stringify(body)
        .replace(/[0-9a-f-]{36}/g, 'ID')
        .replace(/[A-Za-z0-9_-]{43}/g, 'TOKEN')
        .replace(/"email":"[^"]*"/, '')
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
    expect(shape(known.json())).toBe(shape(fresh.json()));
    expectErrorBody(await invite(shared.email), 409, 'email_taken');

    // The invited address sets its own password for the second issuer; each password opens its own issuer.
    const token = known.json().inviteUrl.split('/').pop();
    const otherPassword = 'a different passphrase for B';
    const accepted = await t.app.inject({
      method: 'POST',
      url: `/api/v1/invites/${token}/accept`,
      payload: { password: otherPassword },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().user.issuer.id).toBe(b.id);
    for (const [password, issuerId] of [
      [PASSWORD, a.id],
      [otherPassword, b.id],
    ]) {
      const signIn = await t.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        remoteAddress: '10.9.0.1',
        payload: { email: shared.email, password },
      });
      expect(signIn.statusCode, signIn.body).toBe(200);
      expect(signIn.json().user.issuer.id).toBe(issuerId);
    }
  }, 60_000);

  it('another issuer’s user looks like a missing one', async () => {
    const a = await t.issuer();
    const b = await t.issuer();
    const ownerA = await consoleUser(t.app, a.id, 'owner');
    const ownerB = await consoleUser(t.app, b.id, 'owner');
    const foreign = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${ownerB.userId}`,
      headers: ownerA.headers,
    });
    const missing = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/users/00000000-0000-4000-8000-000000000000',
      headers: ownerA.headers,
    });
    expectErrorBody(foreign, 404, 'not_found');
    expect(foreign.body).toBe(missing.body);
  });

  // Some twenty password checks (scrypt) each: a loaded 2-core machine needs far longer than the default 30 s (issue 46).
  it('guesses at an account from many addresses do not lock its user out; the guessers wait longer each time', async () => {
    const issuer = await t.issuer();
    const user = await consoleUser(t.app, issuer.id, 'viewer');
    const guessers = 4 * ACCOUNT_FREE_FAILURES;
    for (let i = 0; i < guessers; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        remoteAddress: `10.1.0.${i + 1}`,
        payload: { email: user.email, password: `wrong password ${i}` },
      });
      expectErrorBody(res, 401, 'unauthorized');
    }
    // A guesser that has failed: one more attempt passes, the next must wait, whatever the password.
    const next = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: '10.1.0.1',
      payload: { email: user.email, password: 'wrong password again' },
    });
    expectErrorBody(next, 401, 'unauthorized');
    const waits = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: '10.1.0.2',
      payload: { email: user.email, password: PASSWORD },
    });
    expectErrorBody(waits, 429, 'rate_limited');
    expect(Number(waits.headers['retry-after'])).toBeGreaterThan(60);

    const owner = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: '10.1.1.1',
      payload: { email: user.email.toUpperCase(), password: PASSWORD },
    });
    expect(owner.statusCode, owner.body).toBe(200);
  }, 180_000);

  it(`refuses sign-in from an address after ${ADDRESS_FAILURES_MAX} failures, whichever accounts it tried`, async () => {
    const issuer = await t.issuer();
    const user = await consoleUser(t.app, issuer.id, 'viewer');
    for (let i = 0; i < ADDRESS_FAILURES_MAX; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        remoteAddress: '10.2.0.1',
        payload: { email: `guess-${i}@example.org`, password: 'wrong password!' },
      });
      expectErrorBody(res, 401, 'unauthorized');
    }
    const limited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: '10.2.0.1',
      payload: { email: user.email, password: PASSWORD },
    });
    expectErrorBody(limited, 429, 'rate_limited');
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: '10.2.0.2',
      payload: { email: user.email, password: PASSWORD },
    });
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
  }, 120_000);
});

describe.each(dialects)('users invite (CLI) on %s', (dialect) => {
  let db: TestDatabase;
  let saved: string | undefined;
  let database: Database;
  let app: FastifyInstance;

  beforeAll(async () => {
    db = await freshDatabase(dialect);
    saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = db.url;
    process.env.PUBLIC_BASE_URL = 'https://badges.test';
    process.env.LOG_LEVEL = 'silent';
    database = createDatabase(testConfig(db.url).database);
    await migrateToLatest(database);
    app = await buildApp({ config: testConfig(db.url), database, logger: false });
  }, 180_000);
  afterAll(async () => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    delete process.env.PUBLIC_BASE_URL;
    await app.close();
    await database.close();
    await db.drop();
  });

  async function cli(args: string[]) {
    const lines: string[] = [];
    const errors: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      errors.push(String(chunk));
      return true;
    });
    try {
      return { code: await runCli(args, (line) => lines.push(line)), lines, errors };
    } finally {
      stderr.mockRestore();
    }
  }

  it('prints a one-time invite link that signs the first owner in', async () => {
    const slug = `cli-invite-${dialect}`;
    const created = await cli([
      ...['issuers', 'create', '--name', 'CLI Invite', '--slug', slug],
      ...['--email', 'ops@cli.example', '--url', 'https://cli.example'],
    ]);
    expect(created.code, created.errors.join('')).toBe(0);
    const invited = await cli([
      'users',
      'invite',
      '--issuer',
      slug,
      '--email',
      'first.owner@example.org',
      '--role',
      'owner',
    ]);
    expect(invited.code, invited.errors.join('')).toBe(0);
    const link = invited.lines.find((l) => l.startsWith('https://'));
    expect(link).toMatch(/^https:\/\/badges\.test\/console\/invite\/[A-Za-z0-9_-]{43}$/);
    const token = link?.split('/').pop();
    const accepted = await app.inject({
      method: 'POST',
      url: `/api/v1/invites/${token}/accept`,
      payload: { password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().user).toMatchObject({ email: 'first.owner@example.org', role: 'owner', issuer: { slug } });

    const badRole = await cli(['users', 'invite', '--issuer', slug, '--email', 'x@example.org', '--role', 'admin']);
    expect(badRole.code).toBe(64);
    const unknown = await cli([
      'users',
      'invite',
      '--issuer',
      'no-such-issuer',
      '--email',
      'x@example.org',
      '--role',
      'viewer',
    ]);
    expect(unknown.code).toBe(1);
  });
});
