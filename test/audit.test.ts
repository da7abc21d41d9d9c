import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer, testConfig } from './helpers.js';

const APPEND_ONLY = ['audit_log', 'verification_events', 'engagement_events'];

describe.each(dialects)('append-only audit on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let definitionId: string;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer();
    const def = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Audited', description: 'x' },
    });
    definitionId = def.json().id;
    for (let i = 0; i < 3; i++) {
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(issuer.key),
        payload: { definitionId, recipientEmail: `a${i}@example.test`, completionKey: `audit-${i}` },
      });
    }
    await sql`insert into verification_events (issuer_id, credential_id, channel, country, occurred_at)
      values (${issuer.id}, 'c', 'api', 'ZZ', '2026-01-01T00:00:00.000Z')`.execute(t.database.db);
    await sql`insert into engagement_events (issuer_id, credential_id, action, country, occurred_at)
      values (${issuer.id}, 'c', 'linkedin', 'ZZ', '2026-01-01T00:00:00.000Z')`.execute(t.database.db);
  });
  afterAll(async () => t.close());

  it('chains records per issuer and verifies the chain', async () => {
    const [report] = await t.app.services.audit.verify(issuer.id);
    // issuer.created and api_key.created, definition.created, then the three credentials.
    expect(report).toEqual({ issuerId: issuer.id, records: 6, ok: true });
  });

  it.each(APPEND_ONLY)('refuses UPDATE and DELETE on %s', async (table) => {
    await expect(sql`update ${sql.table(table)} set issuer_id = 'x'`.execute(t.database.db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`delete from ${sql.table(table)}`.execute(t.database.db)).rejects.toThrow(/append-only/);
  });

  it('refuses overwriting an audit record by REPLACE or UPSERT', async () => {
    const row = await t.database.db.selectFrom('audit_log').selectAll().limit(1).executeTakeFirstOrThrow();
    if (dialect === 'sqlite') {
      await expect(
        sql`insert or replace into audit_log (id, issuer_id, stripe, seq, occurred_at, actor, action, target_type, target_id, details, prev_hash, hash)
          values (${row.id}, ${row.issuer_id}, ${row.stripe}, ${row.seq}, ${row.occurred_at}, 'evil', 'x', 'x', 'x', '{}', '', '')`.execute(
          t.database.db,
        ),
      ).rejects.toThrow(/append-only/);
      await expect(sql`replace into audit_log select * from audit_log`.execute(t.database.db)).rejects.toThrow(
        /append-only/,
      );
    }
    await expect(
      sql`insert into audit_log (id, issuer_id, stripe, seq, occurred_at, actor, action, target_type, target_id, details, prev_hash, hash)
        values (${row.id}, ${row.issuer_id}, ${row.stripe}, ${row.seq}, ${row.occurred_at}, 'evil', 'x', 'x', 'x', '{}', '', '')
        on conflict (id) do update set actor = 'evil'`.execute(t.database.db),
    ).rejects.toThrow(/append-only/);
    const after = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual(row);
  });

  it.runIf(dialect === 'postgres').each(APPEND_ONLY)('refuses TRUNCATE on %s', async (table) => {
    await expect(sql`truncate ${sql.table(table)}`.execute(t.database.db)).rejects.toThrow(/append-only/);
  });

  it('detects a record altered behind the triggers', async () => {
    const row = await t.database.db
      .selectFrom('audit_log')
      .select(['id', 'seq'])
      .where('issuer_id', '=', issuer.id)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirstOrThrow();
    if (dialect === 'sqlite') {
      await sql`drop trigger audit_log_no_update`.execute(t.database.db);
      await sql`update audit_log set details = '{"tampered":true}' where id = ${row.id}`.execute(t.database.db);
    } else {
      await sql`alter table audit_log disable trigger audit_log_no_update_delete`.execute(t.database.db);
      await sql`update audit_log set details = '{"tampered":true}' where id = ${row.id}`.execute(t.database.db);
      await sql`alter table audit_log enable trigger audit_log_no_update_delete`.execute(t.database.db);
    }
    const [report] = await t.app.services.audit.verify(issuer.id);
    expect(report).toMatchObject({ ok: false, brokenAt: { seq: row.seq, id: row.id } });
  });
});

describe.runIf(dialects.includes('postgres'))('PostgreSQL application role on postgres', () => {
  let t: TestApp;
  let role: string;
  let admin: pg.Client;

  beforeAll(async () => {
    t = await createTestApp('postgres');
    role = `${t.testDb.schema}_app`;
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const schema = t.testDb.schema;
    await admin.query(`create role ${role} login nosuperuser`);
    await admin.query(`grant usage on schema ${schema} to ${role}`);
    await admin.query(`grant select, insert, update, delete on all tables in schema ${schema} to ${role}`);
    await admin.query(`grant usage on all sequences in schema ${schema} to ${role}`);
    await admin.query(
      `revoke update, delete, truncate on ${schema}.audit_log, ${schema}.verification_events, ${schema}.engagement_events from ${role}`,
    );
  });
  afterAll(async () => {
    await t.close();
    await admin.query(`drop owned by ${role}`);
    await admin.query(`drop role ${role}`);
    await admin.end();
  });

  it('runs the app as a non-owner role that cannot rewrite the audit log', async () => {
    const url = new URL(t.testDb.url);
    url.username = role;
    const config = testConfig(url.toString());
    const database = createDatabase(config.database);
    // What server.ts does at start-up: a no-op for a current schema, and it needs no ownership.
    await migrateToLatest(database);
    const app = await buildApp({ config, database, logger: false });
    try {
      const issuer = await t.issuer();
      const def = await app.inject({
        method: 'POST',
        url: '/api/v1/definitions',
        headers: auth(issuer.key),
        payload: { name: 'Role', description: 'x' },
      });
      const issued = await app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(issuer.key),
        payload: { definitionId: def.json().id, recipientEmail: 'r@example.test', completionKey: 'role-1' },
      });
      expect(issued.statusCode).toBe(201);
      const who = await sql<{ rolsuper: boolean }>`select rolsuper from pg_roles where rolname = current_user`.execute(
        database.db,
      );
      expect(who.rows[0]?.rolsuper).toBe(false);
      for (const statement of [
        sql`update audit_log set actor = 'x'`,
        sql`delete from audit_log`,
        sql`truncate audit_log`,
        sql`alter table audit_log disable trigger audit_log_no_update_delete`,
        sql`set session_replication_role = replica`,
      ]) {
        await expect(statement.execute(database.db)).rejects.toThrow();
      }
    } finally {
      await app.close();
      await database.close();
    }
  });
});
