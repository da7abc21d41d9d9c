import { type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer, testConfig } from './helpers.js';

/*
 * Issue 9 item 8 (T14), beyond test/audit.test.ts: every mutation of the audit and event tables run
 * as the application's own database role on both dialects, refused with the rows unchanged; the
 * PostgreSQL app role (README "Database roles") is neither superuser nor owner; and the console's
 * `accolade audit verify` exits 2 naming the record a superuser altered.
 */

const TABLES = ['audit_log', 'verification_events', 'engagement_events'] as const;
type Table = (typeof TABLES)[number];

async function populated(dialect: 'sqlite' | 'postgres'): Promise<{ t: TestApp; issuer: TestIssuer }> {
  const t = await createTestApp(dialect);
  const issuer = await t.issuer();
  const def = await t.app.inject({
    method: 'POST',
    url: '/api/v1/definitions',
    headers: auth(issuer.key),
    payload: { name: 'Tamper', description: 'x' },
  });
  for (let i = 0; i < 3; i++) {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId: def.json().id, recipientEmail: `t${i}@example.test`, completionKey: `tamper-${i}` },
    });
  }
  for (let i = 0; i < 2; i++) {
    await sql`insert into verification_events (issuer_id, credential_id, channel, country, occurred_at)
      values (${issuer.id}, ${`c${i}`}, 'api', 'ZZ', '2026-01-01T00:00:00.000Z')`.execute(t.database.db);
    await sql`insert into engagement_events (issuer_id, credential_id, action, country, occurred_at)
      values (${issuer.id}, ${`c${i}`}, 'linkedin', 'ZZ', '2026-01-01T00:00:00.000Z')`.execute(t.database.db);
  }
  return { t, issuer };
}

async function rowsOf(db: Database['db'], table: Table): Promise<string> {
  const { rows } = await sql`select * from ${sql.table(table)} order by id`.execute(db);
  return JSON.stringify(rows);
}

/** Columns an overwrite names for each table (the existing row's id, other values changed). */
function overwrite(table: Table, id: unknown, verb: 'insert or replace' | 'insert'): RawBuilder<unknown> {
  const into = sql.raw(verb);
  if (table === 'audit_log') {
    return sql`${into} into audit_log (id, issuer_id, stripe, seq, occurred_at, actor, action, target_type, target_id, details, prev_hash, hash)
      select id, issuer_id, stripe, seq, occurred_at, 'evil', action, target_type, target_id, details, prev_hash, hash from audit_log where id = ${id}`;
  }
  const kind = sql.raw(table === 'verification_events' ? 'channel' : 'action');
  return sql`${into} into ${sql.table(table)} (id, issuer_id, credential_id, ${kind}, country, occurred_at)
    select id, issuer_id, 'evil', ${kind}, country, occurred_at from ${sql.table(table)} where id = ${id}`;
}

describe('append-only tables refuse every rewrite on sqlite (the process is the app role)', () => {
  let t: TestApp;
  beforeAll(async () => {
    ({ t } = await populated('sqlite'));
  });
  afterAll(async () => t.close());

  it.each(TABLES)(
    '%s: UPDATE, DELETE, REPLACE, INSERT OR REPLACE and UPSERT refused, rows unchanged',
    async (table) => {
      const db = t.database.db;
      const before = await rowsOf(db, table);
      const { rows } = await sql<{ id: unknown }>`select id from ${sql.table(table)} limit 1`.execute(db);
      const id = rows[0]?.id;
      const statements = [
        sql`update ${sql.table(table)} set issuer_id = issuer_id`,
        sql`delete from ${sql.table(table)} where id = ${id}`,
        sql`delete from ${sql.table(table)}`,
        sql`replace into ${sql.table(table)} select * from ${sql.table(table)}`,
        overwrite(table, id, 'insert or replace'),
        sql`${overwrite(table, id, 'insert')} on conflict (id) do update set issuer_id = 'evil'`,
      ];
      for (const statement of statements) await expect(statement.execute(db)).rejects.toThrow(/append-only/);
      expect(await rowsOf(db, table)).toBe(before);
    },
  );
});

describe.runIf(dialects.includes('postgres'))('append-only tables as PostgreSQL application roles', () => {
  let t: TestApp;
  let admin: pg.Client;
  let schema: string;
  const roles: Record<'readme' | 'grantAll', string> = { readme: '', grantAll: '' };
  const handles: Database[] = [];

  function asRole(role: string): Database {
    const url = new URL(t.testDb.url);
    url.username = role;
    const database = createDatabase(testConfig(url.toString()).database);
    handles.push(database);
    return database;
  }

  beforeAll(async () => {
    ({ t } = await populated('postgres'));
    schema = t.testDb.schema as string;
    roles.readme = `${schema}_app`;
    roles.grantAll = `${schema}_all`;
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    // The README's role set-up, verbatim but for the schema.
    await admin.query(`create role ${roles.readme} login nosuperuser`);
    await admin.query(`grant usage on schema ${schema} to ${roles.readme}`);
    await admin.query(`grant select, insert, update, delete on all tables in schema ${schema} to ${roles.readme}`);
    await admin.query(`grant usage on all sequences in schema ${schema} to ${roles.readme}`);
    await admin.query(
      `revoke update, delete, truncate on ${schema}.audit_log, ${schema}.verification_events, ${schema}.engagement_events from ${roles.readme}`,
    );
    // A role someone granted everything: the triggers alone must still hold.
    await admin.query(`create role ${roles.grantAll} login nosuperuser`);
    await admin.query(`grant usage on schema ${schema} to ${roles.grantAll}`);
    await admin.query(`grant all on all tables in schema ${schema} to ${roles.grantAll}`);
    await admin.query(`grant all on all sequences in schema ${schema} to ${roles.grantAll}`);
  });
  afterAll(async () => {
    for (const database of handles) await database.close();
    await t.close();
    for (const role of Object.values(roles)) {
      await admin.query(`drop owned by ${role}`);
      await admin.query(`drop role ${role}`);
    }
    await admin.end();
  });

  it.each(['readme', 'grantAll'] as const)(
    'the %s role is neither superuser nor owner of the tables',
    async (which) => {
      const db = asRole(roles[which]).db;
      const { rows } = await sql<{ rolsuper: boolean; owned: number }>`select r.rolsuper,
      (select count(*) from pg_tables where schemaname = ${schema} and tableowner = current_user)::int as owned
      from pg_roles r where r.rolname = current_user`.execute(db);
      expect(rows[0]).toEqual({ rolsuper: false, owned: 0 });
    },
  );

  const cases = TABLES.flatMap((table) => (['readme', 'grantAll'] as const).map((which) => [table, which] as const));

  it.each(cases)('%s as the %s role: every mutation refused, rows unchanged', async (table, which) => {
    const db = asRole(roles[which]).db;
    const before = await rowsOf(t.database.db, table);
    const { rows } = await sql<{ id: unknown }>`select id from ${sql.table(table)} limit 1`.execute(t.database.db);
    const id = rows[0]?.id;
    const overriding = table === 'audit_log' ? sql`` : sql`overriding system value`;
    const kind = sql.raw(table === 'verification_events' ? 'channel' : 'action');
    const upsert =
      table === 'audit_log'
        ? sql`insert into audit_log select * from audit_log where id = ${id} on conflict (id) do update set actor = 'evil'`
        : sql`insert into ${sql.table(table)} (id, issuer_id, credential_id, ${kind}, country, occurred_at) ${overriding}
            select id, issuer_id, credential_id, ${kind}, country, occurred_at from ${sql.table(table)} where id = ${id}
            on conflict (id) do update set credential_id = 'evil'`;
    const statements = [
      sql`update ${sql.table(table)} set issuer_id = issuer_id`,
      sql`delete from ${sql.table(table)} where id = ${id}`,
      sql`delete from ${sql.table(table)}`,
      sql`truncate ${sql.table(table)}`,
      upsert,
      sql`alter table ${sql.table(table)} disable trigger all`,
      sql`drop trigger ${sql.raw(`${table}_no_update_delete`)} on ${sql.table(table)}`,
      sql`drop table ${sql.table(table)}`,
      sql`set session_replication_role = replica`,
    ];
    let refused = 0;
    for (const statement of statements) {
      await expect(statement.execute(db)).rejects.toThrow(/append-only|permission denied|must be owner/);
      refused++;
    }
    expect(refused).toBe(statements.length);
    expect(await rowsOf(t.database.db, table)).toBe(before);
  });
});

describe.each(dialects)('accolade audit verify after a superuser alters a record on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let saved: string | undefined;
  beforeAll(async () => {
    ({ t, issuer } = await populated(dialect));
    saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = t.testDb.url;
    process.env.LOG_LEVEL = 'silent';
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    await t.close();
  });

  it('exits 0 while intact and 2 naming the altered record afterwards', async () => {
    const run = async () => {
      const lines: string[] = [];
      const code = await runCli(['audit', 'verify', '--issuer', issuer.slug], (line) => lines.push(line));
      return { code, text: lines.join('\n') };
    };
    const intact = await run();
    expect(intact.code, intact.text).toBe(0);
    // issuer.created, api_key.created, definition.created and three credential.issued
    expect(intact.text).toMatch(/6 records, chain intact/);

    const db = t.database.db;
    const row = await db
      .selectFrom('audit_log')
      .select(['id', 'seq'])
      .where('issuer_id', '=', issuer.id)
      .orderBy('occurred_at')
      .limit(1)
      .executeTakeFirstOrThrow();
    if (dialect === 'sqlite') {
      // The owner of the file can drop the guard; the chain still tells.
      await sql`drop trigger audit_log_no_update`.execute(db);
      await sql`update audit_log set actor = 'someone-else' where id = ${row.id}`.execute(db);
    } else {
      // A superuser switches triggers off for its session (pitfall 2) and rewrites the record.
      await db.connection().execute(async (conn) => {
        await sql`set session_replication_role = replica`.execute(conn);
        await sql`update audit_log set actor = 'someone-else' where id = ${row.id}`.execute(conn);
        await sql`set session_replication_role = origin`.execute(conn);
      });
    }
    const broken = await run();
    expect(broken.code, broken.text).toBe(2);
    expect(broken.text).toContain(`CHAIN BROKEN at seq ${row.seq} (record ${row.id})`);
  });
});
