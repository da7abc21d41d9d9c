import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleUser, consoleUser } from './console.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const EARNER = 'Search.Earner.7f3a@example.test';
const OTHER = 'someone.else@example.test';

describe.each(dialects)('credential search on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  let viewer: ConsoleUser;
  let definitionId: string;
  const clock = manualClock('2026-11-01T10:00:00.000Z');
  const ids: Record<string, string> = {};

  async function issue(email: string, completionKey: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(issuer.key),
      payload: { definitionId, recipientEmail: email, completionKey },
    });
    expect(res.statusCode, res.body).toBe(201);
    ids[completionKey] = res.json().credentialId;
  }

  const search = (payload: object, headers: Record<string, string> = viewer.headers) =>
    t.app.inject({ method: 'POST', url: '/api/v1/credentials/search', headers, payload });
  const found = async (payload: object) => {
    const res = await search(payload);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().items as { id: string }[]).map((c) => c.id).sort();
  };

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    issuer = await t.issuer();
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Searchable', description: 'd' },
    });
    definitionId = definition.json().id;
    await issue(EARNER, 'search-1');
    clock.set('2026-11-10T10:00:00.000Z');
    await issue(OTHER, 'search-2');
    await issue(EARNER.toUpperCase(), 'search-3');
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${ids['search-3']}/revoke`,
      headers: auth(issuer.key),
      payload: {},
    });
    viewer = await consoleUser(t.app, issuer.id, 'viewer');
  });
  afterAll(async () => {
    await t.close();
  });

  it('finds by recipient email (any case), completion key, status and time of issue', async () => {
    expect(await found({ recipientEmail: ` ${EARNER.toLowerCase()} ` })).toEqual(
      [ids['search-1'], ids['search-3']].sort(),
    );
    expect(await found({ completionKey: 'search-2' })).toEqual([ids['search-2']]);
    expect(await found({ recipientEmail: EARNER, status: 'revoked' })).toEqual([ids['search-3']]);
    expect(await found({ issuedFrom: '2026-11-05T00:00:00Z' })).toEqual([ids['search-2'], ids['search-3']].sort());
    expect(await found({ issuedTo: '2026-11-10T10:00:00Z', definitionId })).toEqual([ids['search-1']]);
    expect(await found({ recipientEmail: 'nobody@example.test' })).toEqual([]);
    const page = await search({ limit: 1, offset: 1 });
    expect(page.json()).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.json().items).toHaveLength(1);
  });

  it('takes an API key too, keeps to the issuer, and refuses bad input', async () => {
    const other = await t.issuer();
    const byKey = await search({ recipientEmail: EARNER }, auth(issuer.key));
    expect(byKey.json().total).toBe(2);
    const foreign = await search({ recipientEmail: EARNER }, auth(other.key));
    expect(foreign.json()).toMatchObject({ total: 0, items: [] });
    for (const payload of [
      { recipientEmail: 'not an email' },
      { limit: 500 },
      { issuedFrom: 'yesterday' },
      { extra: 1 },
    ]) {
      expectErrorBody(await search(payload), 400, 'validation_failed');
    }
  });

  it('leaves the raw email nowhere in the database', async () => {
    const tables =
      dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(t.database.db)).rows
        : (
            await sql<{
              name: string;
            }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
              t.database.db,
            )
          ).rows;
    expect(tables.length).toBeGreaterThan(10);
    for (const { name } of tables) {
      const rows = (await sql`select * from ${sql.table(name)}`.execute(t.database.db)).rows;
      const text = JSON.stringify(rows).toLowerCase();
      expect(text.includes('search.earner.7f3a'), name).toBe(false);
    }
  });
});
