import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { quotaPeriod } from '../src/core/clock.js';
import { createDatabase, type Database, migrateToLatest } from '../src/db/database.js';
import { issueInOneStatementMigration } from '../src/db/migrations/0052_issue_in_one_statement.js';
import { auth, dialects, freshDatabase, type TestDatabase, testConfig } from './helpers.js';
import { statementCounter } from './statement-count.support.js';

/**
 * Round trips per issuance (issue 26): every statement a request runs is counted by a Kysely plugin
 * within that request's async context, and so is every transaction it opens (BEGIN and COMMIT are
 * a round trip each on PostgreSQL and pass no plugin).
 */
const { context: request, plugin: counting } = statementCounter<Scope>();
const scopes = new Map<string, Scope>();
type Scope = { statements: number; transactions: number };

describe.each(dialects)('issuance round trips and guarantees on %s', (dialect) => {
  let testDb: TestDatabase;
  let database: Database;
  let app: FastifyInstance;
  let unlimited: { id: string; key: string; definitionId: string };
  let limited: { id: string; key: string; definitionId: string };
  let requestNo = 0;

  /** POSTs an issuance; `counted` gets the statements and transactions the request ran. */
  async function issue(issuer: { key: string; definitionId: string }, completionKey: string, counted?: Scope) {
    // Named by a header, not a query parameter: the API refuses query parameters it does not list.
    const name = String(++requestNo);
    if (counted) scopes.set(name, counted);
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: { ...auth(issuer.key), 'x-test-request': name },
      payload: {
        definitionId: issuer.definitionId,
        recipientEmail: `earner${requestNo}@earners.example`,
        completionKey,
      },
    });
    scopes.delete(name);
    return res;
  }

  async function issuerWith(plan: string) {
    const { issuer, key } = await app.services.issuers.createIssuer({
      name: `Round trips ${plan}`,
      slug: `round-trips-${plan}-${dialect}`,
      email: 'contact@round-trips.example',
      url: 'https://round-trips.example',
      plan,
    });
    const definition = await app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(key.key),
      payload: { name: 'Counted', description: 'Issued in few round trips.' },
    });
    await database.db
      .insertInto('webhook_subscriptions')
      .values(
        [['credential.issued'], ['credential.issued', 'credential.revoked'], ['credential.revoked']].map(
          (events, n) => ({
            id: `sub-${plan}-${n}-${dialect}`,
            issuer_id: issuer.id,
            url: `https://hooks.example/${n}`,
            events: JSON.stringify(events),
            secret: 'whsec_test',
            created_at: '2026-11-21T10:00:00.000Z',
            deleted_at: null,
          }),
        ),
      )
      .execute();
    return { id: issuer.id, key: key.key, definitionId: definition.json().id as string };
  }

  /** What the issuer has stored: credentials, audit records, quota units, webhook deliveries. */
  async function stored(issuerId: string) {
    const count = async (table: 'credentials' | 'audit_log' | 'webhook_deliveries') =>
      Number(
        (
          await database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('issuer_id', '=', issuerId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const usage = await database.db
      .selectFrom('usage_counters')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('issuance'), eb.lit(0)).as('n'))
      .where('issuer_id', '=', issuerId)
      .where('period', '=', quotaPeriod(new Date()))
      .executeTakeFirstOrThrow();
    return {
      credentials: await count('credentials'),
      auditRecords: await count('audit_log'),
      quotaUnits: Number(usage.n),
      deliveries: await count('webhook_deliveries'),
    };
  }

  beforeAll(async () => {
    testDb = await freshDatabase(dialect);
    const config = testConfig(testDb.url);
    database = createDatabase(config.database);
    await migrateToLatest(database);
    const db = database.db.withPlugin(counting);
    const transaction = db.transaction.bind(db);
    db.transaction = () => {
      const scope = request.getStore();
      if (scope) scope.transactions++;
      return transaction();
    };
    app = await buildApp({ config, database: { ...database, db }, logger: false, redis: null });
    app.addHook('onRequest', (req, _reply, done) => {
      const name = req.headers['x-test-request'];
      const scope = typeof name === 'string' ? scopes.get(name) : undefined;
      if (scope) request.run(scope, done);
      else done();
    });
    await app.ready();
    await app.services.issuers.updatePlan('free', { requestsPerMinute: 100_000 });
    unlimited = await issuerWith('enterprise');
    limited = await issuerWith('free');
  });

  afterAll(async () => {
    await app.close();
    await database.close();
    await testDb.drop();
  });

  it('issues in one statement on PostgreSQL, and answers a replay with one statement', async () => {
    for (const issuer of [unlimited, limited]) {
      // The issuer's identity and (on PostgreSQL) the definition are kept after the first issuance; count a later one.
      expect((await issue(issuer, `warm-${issuer.id}`)).statusCode).toBe(201);
      const created: Scope = { statements: 0, transactions: 0 };
      const res = await issue(issuer, `counted-${issuer.id}`, created);
      expect(res.statusCode, res.body).toBe(201);
      const replayed: Scope = { statements: 0, transactions: 0 };
      const replay = await issue(issuer, `counted-${issuer.id}`, replayed);
      expect(replay.statusCode).toBe(200);
      expect(replay.json().credentialId).toBe(res.json().credentialId);
      expect(replayed).toEqual({ statements: 1, transactions: 0 });
      if (dialect === 'postgres') expect(created).toEqual({ statements: 1, transactions: 0 });
      else expect(created.transactions).toBe(1);
    }
  });

  it('issues against the definition as stored when another replica changed or archived it since', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(unlimited.key),
      payload: { name: 'Changing', description: 'Changed behind the issuing process.' },
    });
    const issuer = { key: unlimited.key, definitionId: created.json().id as string };
    const first = await issue(issuer, 'changing-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().badgeClassUrl).toMatch(/\/badges\/changing$/);

    // Written straight to the database, as another replica would: this process is not told.
    const change = (values: { slug?: string; expires_after_days?: number; status?: string }) =>
      database.db.updateTable('definitions').set(values).where('id', '=', issuer.definitionId).execute();
    // Each field the statement checks, changed alone: PostgreSQL's statement refuses the stale
    // definition and answers the stored one, and the retry writes (two statements).
    await change({ slug: 'changed' });
    const renamed: Scope = { statements: 0, transactions: 0 };
    const second = await issue(issuer, 'changing-2', renamed);
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().badgeClassUrl).toMatch(/\/badges\/changed$/);
    const delivery = await database.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('payload', 'like', `%${second.json().credentialId}%`)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(delivery.payload).data.badgeClassUrl).toMatch(/\/badges\/changed$/);
    if (dialect === 'postgres') expect(renamed).toEqual({ statements: 2, transactions: 0 });

    await change({ expires_after_days: 30 });
    const expiring: Scope = { statements: 0, transactions: 0 };
    const third = await issue(issuer, 'changing-expiring', expiring);
    expect(third.statusCode, third.body).toBe(201);
    const row = await database.db
      .selectFrom('credentials')
      .select(['issued_on', 'expires_on'])
      .where('id', '=', third.json().credentialId)
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_on ?? '') - Date.parse(row.issued_on)).toBe(30 * 86_400_000);
    if (dialect === 'postgres') expect(expiring).toEqual({ statements: 2, transactions: 0 });

    await change({ status: 'archived' });
    const before = await stored(unlimited.id);
    const archived = await issue(issuer, 'changing-3');
    expect(archived.statusCode).toBe(400);
    expect(archived.json().error).toBe('definition_archived');
    expect(await stored(unlimited.id)).toEqual(before);
    const replay = await issue(issuer, 'changing-1');
    expect(replay.statusCode).toBe(200);
    expect(replay.json().credentialId).toBe(first.json().credentialId);

    await change({ status: 'active' });
    expect((await issue(issuer, 'changing-3')).statusCode).toBe(201);
    const unknown = await issue({ key: unlimited.key, definitionId: randomUUID() }, 'changing-4');
    expect(unknown.statusCode).toBe(404);
  });

  it('stores one credential, one audit record, one quota unit and one delivery per subscription for concurrent duplicates', async () => {
    for (const issuer of [unlimited, limited]) {
      const before = await stored(issuer.id);
      const results = await Promise.all(Array.from({ length: 24 }, () => issue(issuer, `duplicate-${issuer.id}`)));
      expect(results.filter((r) => r.statusCode === 201)).toHaveLength(1);
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(23);
      expect(new Set(results.map((r) => r.json().credentialId)).size).toBe(1);
      const after = await stored(issuer.id);
      expect(after).toEqual({
        credentials: before.credentials + 1,
        auditRecords: before.auditRecords + 1,
        quotaUnits: before.quotaUnits + 1,
        deliveries: before.deliveries + 2,
      });
    }
  });

  it('writes the delivery the outbox would: the envelope of credential.issued to each subscription that wants it', async () => {
    const res = await issue(unlimited, 'delivered');
    const credentialId = res.json().credentialId as string;
    const deliveries = await database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('issuer_id', '=', unlimited.id)
      .where('payload', 'like', `%${credentialId}%`)
      .orderBy('subscription_id')
      .execute();
    expect(deliveries.map((d) => d.subscription_id)).toEqual([
      `sub-enterprise-0-${dialect}`,
      `sub-enterprise-1-${dialect}`,
    ]);
    const [first, second] = deliveries;
    expect(first?.id).not.toBe(second?.id);
    expect(first).toMatchObject({ event: 'credential.issued', status: 'pending', attempts: 0, delivered_at: null });
    expect(first?.payload).toBe(second?.payload);
    const envelope = JSON.parse(first?.payload ?? '{}');
    expect(envelope).toMatchObject({
      event: 'credential.issued',
      data: { credentialId, status: 'valid', assertionUrl: res.json().assertionUrl },
    });
  });

  // The conformance test of the two issuance paths (docs/decisions.md, "Issuance rules in two
  // places"): on SQLite issuance.service.ts writes every row itself; on PostgreSQL the plpgsql
  // accolade_issue_credential (migration 0056) checks the quota and writes them. The same literal
  // expectations run on both engines, so the two paths must leave the same rows.
  it('leaves the same rows whichever path issued: the credential, one quota unit, its audit record and deliveries', async () => {
    const before = await stored(limited.id);
    const res = await issue(limited, 'conformance');
    expect(res.statusCode, res.body).toBe(201);
    const credentialId = res.json().credentialId as string;
    expect(await stored(limited.id)).toEqual({
      credentials: before.credentials + 1,
      auditRecords: before.auditRecords + 1,
      quotaUnits: before.quotaUnits + 1,
      deliveries: before.deliveries + 2,
    });
    const record = await database.db
      .selectFrom('audit_log')
      .select(['actor', 'action', 'target_type', 'target_id', 'details'])
      .where('issuer_id', '=', limited.id)
      .where('target_id', '=', credentialId)
      .executeTakeFirstOrThrow();
    expect({ ...record, details: JSON.parse(record.details) }).toEqual({
      actor: expect.stringMatching(/^key:/),
      action: 'credential.issued',
      target_type: 'credential',
      target_id: credentialId,
      details: { definitionId: limited.definitionId, completionKey: 'conformance', source: 'api' },
    });
    const deliveries = await database.db
      .selectFrom('webhook_deliveries')
      .select(['subscription_id', 'event', 'status', 'attempts'])
      .where('issuer_id', '=', limited.id)
      .where('payload', 'like', `%${credentialId}%`)
      .orderBy('subscription_id')
      .execute();
    expect(deliveries).toEqual(
      [0, 1].map((n) => ({
        subscription_id: `sub-free-${n}-${dialect}`,
        event: 'credential.issued',
        status: 'pending',
        attempts: 0,
      })),
    );
  });

  it('issues exactly the room left under a quota to concurrent requests, and stores nothing for the others', async () => {
    await app.services.issuers.updatePlan('starter', { issuanceQuota: 3, requestsPerMinute: 100_000 });
    const tight = await issuerWith('starter');
    const before = await stored(tight.id);
    const results = await Promise.all(Array.from({ length: 8 }, (_, n) => issue(tight, `tight-${n}`)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 201, 201, 402, 402, 402, 402, 402]);
    const issued = results.filter((r) => r.statusCode === 201).map((r) => r.json().credentialId as string);
    expect(new Set(issued).size).toBe(3);
    expect(await stored(tight.id)).toEqual({
      credentials: 3,
      auditRecords: before.auditRecords + 3,
      quotaUnits: 3,
      deliveries: 6,
    });
    const credentials = await database.db
      .selectFrom('credentials')
      .select('id')
      .where('issuer_id', '=', tight.id)
      .execute();
    expect(credentials.map((c) => c.id).sort()).toEqual([...issued].sort());
    const audit = await app.inject({ method: 'GET', url: '/api/v1/audit/verify', headers: auth(tight.key) });
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.json()).toMatchObject({ ok: true, records: before.auditRecords + 3 });
  });

  it('stores nothing when the quota is used up: 402 with the plan, quota and usage', async () => {
    const before = await stored(limited.id);
    await database.db
      .insertInto('usage_counters')
      .values({
        issuer_id: limited.id,
        period: quotaPeriod(new Date()),
        stripe: 3,
        issuance: 100 - before.quotaUnits,
        premium_verification: 0,
      })
      .execute();
    const full = await stored(limited.id);
    expect(full.quotaUnits).toBe(100);
    const heads = await database.db.selectFrom('audit_heads').selectAll().where('issuer_id', '=', limited.id).execute();
    const res = await issue(limited, 'over-quota');
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json()).toEqual({
      error: 'quota_exceeded',
      message: expect.any(String),
      plan: 'free',
      quota: 100,
      used: 100,
    });
    expect(await stored(limited.id)).toEqual(full);
    expect(
      await database.db.selectFrom('audit_heads').selectAll().where('issuer_id', '=', limited.id).execute(),
    ).toEqual(heads);
    const again = await issue(limited, 'over-quota');
    expect(again.statusCode).toBe(402);
  });

  it('keeps every chain verifying after concurrent issuances mixed with records appended in a transaction', async () => {
    const appended = Array.from({ length: 12 }, (_, n) =>
      database.db.transaction().execute((trx) =>
        app.services.audit.append(trx, {
          issuerId: unlimited.id,
          actor: 'system',
          action: 'test.appended',
          targetType: 'credential',
          targetId: `appended-${n}`,
          details: { n, note: 'é "quoted" \u2028' },
        }),
      ),
    );
    const results = await Promise.all([
      // Completion keys go into the record's JSON: escapes and characters beyond ASCII hash alike in SQL.
      ...Array.from({ length: 48 }, (_, n) => issue(unlimited, `chain-${n}-é-"q"-\u2028-😀`)),
      ...appended,
    ]);
    expect(results.slice(0, 48).every((r) => r?.statusCode === 201)).toBe(true);
    const verify = await app.inject({ method: 'GET', url: '/api/v1/audit/verify', headers: auth(unlimited.key) });
    expect(verify.statusCode).toBe(200);
    const report = verify.json();
    expect(report).toMatchObject({ ok: true, records: (await stored(unlimited.id)).auditRecords });
    const [cli] = await app.services.audit.verify(unlimited.id);
    expect(cli?.ok).toBe(true);
    const stripes = await database.db
      .selectFrom('audit_heads')
      .select('stripe')
      .where('issuer_id', '=', unlimited.id)
      .where('seq', '>', 1)
      .execute();
    expect(stripes.length).toBeGreaterThan(1);
  });

  // Last: it takes the function away for a moment. Migration 0052 added a plpgsql function beside
  // 0029's, which a replica of the previous release still calls; SQLite has no function.
  it.skipIf(dialect !== 'postgres')(
    "adds the one-statement function beside 0029's, and its down removes only it",
    async () => {
      const db = database.db as unknown as Kysely<unknown>;
      const signatures = async () =>
        (
          await sql<{ args: string }>`
          select pg_get_function_identity_arguments(p.oid) as args from pg_proc p
          join pg_namespace n on n.oid = p.pronamespace
          where p.proname = 'accolade_issue_credential' and n.nspname = current_schema()`.execute(db)
        ).rows
          .map((row) => row.args.split(', ')[0])
          .sort();
      expect(await signatures()).toEqual(['p_credential jsonb', 'p_definition jsonb']);
      const migration = issueInOneStatementMigration('postgres');
      await migration.down(db);
      expect(await signatures()).toEqual(['p_credential jsonb']);
      await migration.up(db);
      expect(await signatures()).toEqual(['p_credential jsonb', 'p_definition jsonb']);
      expect((await issue(unlimited, 'after-down-and-up')).statusCode).toBe(201);
    },
  );
});
