import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import {
  type Change,
  type ChangeFeed,
  createChangeFeed,
  type FeedEvent,
  parseNotification,
} from '../src/db/change-feed.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { CACHE_TEXT_BUDGET, createReadCaches, rowWeight } from '../src/db/read-cache.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer, testConfig } from './helpers.js';
import { createDefinition, type Issued, issue, revoke } from './verification.support.js';

/** A change feed driven by hand: its events are the test's. */
function fakeFeed() {
  const listeners: ((event: FeedEvent) => void)[] = [];
  const feed = {
    live: true,
    backendPid: null,
    name: 'fake',
    subscribe: (listener: (event: FeedEvent) => void) => listeners.push(listener),
    fence: async () => {},
    whenLive: async () => {},
    start() {},
    async stop() {},
    /** Changes the feed hears only when it asks (SQLite: other processes' commits). */
    elsewhere: [] as FeedEvent[],
    catchUp() {
      for (const event of feed.elsewhere.splice(0)) feed.emit(event);
    },
    emit(event: FeedEvent) {
      if (event.kind === 'down') feed.live = false;
      if (event.kind === 'up') feed.live = true;
      for (const listener of listeners) listener(event);
    },
  };
  return feed;
}

/** A finder that counts its reads, answering rows of `table` (a missing id is not found). */
function countingFinder(table: Map<string, { id: string; issuer: string; v: number }>) {
  const finder = Object.assign(
    async (id: string) => {
      finder.reads++;
      const row = table.get(id);
      return row ? { ...row } : undefined;
    },
    { reads: 0 },
  );
  return finder;
}

const scopeOf = (row: { issuer: string }) => ({ issuerId: row.issuer, definitionId: 'd' });

describe('read caches kept by a change feed', () => {
  const table = new Map([
    ['a', { id: 'a', issuer: 'i1', v: 1 }],
    ['b', { id: 'b', issuer: 'i2', v: 1 }],
    ['c', { id: 'c', issuer: 'i2', v: 1 }],
  ]);

  it('answers a second read from memory, never keeps a miss, and drops what a change names', async () => {
    const feed = fakeFeed();
    const find = countingFinder(table);
    const cached = createReadCaches(feed, { maxEntries: 10 }).cached('t', find, scopeOf);
    expect((await cached('a'))?.v).toBe(1);
    expect((await cached('a'))?.v).toBe(1);
    expect(find.reads).toBe(1);
    expect(await cached('nope')).toBeUndefined();
    expect(await cached('nope')).toBeUndefined();
    expect(find.reads).toBe(3);
    table.set('a', { id: 'a', issuer: 'i1', v: 2 });
    feed.emit({ kind: 'credentials', ids: ['a'] });
    expect((await cached('a'))?.v).toBe(2);
    expect(find.reads).toBe(4);
  });

  it('asks the feed to catch up before every read, so a change it hears only then is never served stale', async () => {
    const feed = fakeFeed();
    const find = countingFinder(table);
    const cached = createReadCaches(feed, { maxEntries: 10 }).cached('t', find, scopeOf);
    await cached('b');
    expect(find.reads).toBe(1);
    feed.elsewhere.push({ kind: 'all' });
    await cached('b');
    expect(find.reads).toBe(2);
    await cached('b');
    expect(find.reads).toBe(2);
  });

  it('drops the rows of a changed issuer or definition, and everything on "all"', async () => {
    const feed = fakeFeed();
    const caches = createReadCaches(feed, { maxEntries: 10 });
    const cached = caches.cached('t', countingFinder(table), scopeOf);
    const unscoped = caches.cached('u', countingFinder(table), () => null);
    for (const id of ['a', 'b', 'c']) await Promise.all([cached(id), unscoped(id)]);
    expect(caches.sizes()).toEqual({ t: 3, u: 3 });
    feed.emit({ kind: 'issuer', id: 'i2' });
    // A row that names no issuer or definition is dropped by any such change.
    expect(caches.sizes()).toEqual({ t: 1, u: 0 });
    feed.emit({ kind: 'definition', id: 'other' });
    expect(caches.sizes()).toEqual({ t: 1, u: 0 });
    feed.emit({ kind: 'all' });
    expect(caches.sizes()).toEqual({ t: 0, u: 0 });
  });

  it('does not keep a read that a change overtook', async () => {
    const feed = fakeFeed();
    let release: () => void = () => {};
    const slow = async (id: string) => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return table.get(id);
    };
    const caches = createReadCaches(feed, { maxEntries: 10 });
    const cached = caches.cached('t', slow, scopeOf);
    const pending = cached('b');
    feed.emit({ kind: 'credentials', ids: ['zzz'] });
    release();
    expect((await pending)?.id).toBe('b');
    expect(caches.sizes().t).toBe(0);
  });

  it('is emptied and bypassed while the feed is down, and fills again once it is up', async () => {
    const feed = fakeFeed();
    const find = countingFinder(table);
    const caches = createReadCaches(feed, { maxEntries: 10 });
    const cached = caches.cached('t', find, scopeOf);
    await cached('a');
    feed.emit({ kind: 'down' });
    expect(caches.sizes().t).toBe(0);
    await cached('a');
    await cached('a');
    expect(find.reads).toBe(3);
    expect(caches.sizes().t).toBe(0);
    feed.emit({ kind: 'up' });
    await cached('a');
    await cached('a');
    expect(find.reads).toBe(4);
  });

  it('holds at most maxEntries rows, dropping the least recently used', async () => {
    const feed = fakeFeed();
    const find = countingFinder(table);
    const caches = createReadCaches(feed, { maxEntries: 2 });
    const cached = caches.cached('t', find, scopeOf);
    await cached('a');
    await cached('b');
    await cached('a');
    await cached('c');
    expect(caches.sizes().t).toBe(2);
    await cached('a');
    expect(find.reads).toBe(3);
    await cached('b');
    expect(find.reads).toBe(4);
  });

  it('holds at most CACHE_TEXT_BUDGET characters of row text', async () => {
    const text = 'x'.repeat(5 * 2 ** 20);
    const big = async (id: string) => ({ id, issuer: 'i', text });
    const caches = createReadCaches(fakeFeed(), { maxEntries: 100 });
    const cached = caches.cached('t', big, scopeOf);
    for (const id of ['a', 'b', 'c', 'd', 'e']) await cached(id);
    expect(caches.sizes().t).toBe(Math.floor(CACHE_TEXT_BUDGET / rowWeight({ id: 'a', issuer: 'i', text })));
    expect(caches.sizes().t).toBe(3);
  });

  it('is bypassed from the start of a local write until a fence after its end came back', async () => {
    const feed = fakeFeed();
    let fenced: () => void = () => {};
    feed.fence = () =>
      new Promise<void>((resolve) => {
        fenced = resolve;
      });
    const find = countingFinder(table);
    const caches = createReadCaches(feed, { maxEntries: 10 });
    const cached = caches.cached('t', find, scopeOf);
    await cached('a');
    const end = caches.localWrite('public');
    await cached('a');
    expect(find.reads).toBe(2);
    end();
    await cached('a');
    expect(find.reads).toBe(3);
    fenced();
    await new Promise((resolve) => setImmediate(resolve));
    await cached('a');
    await cached('a');
    expect(find.reads).toBe(3);
  });

  it('keeps API key lookups apart: dropped by their issuer, keys or plan, out of use only during key writes', async () => {
    const keyRows = new Map([
      ['h1', { id: 'h1', issuerId: 'i1', planCode: 'free' }],
      ['h2', { id: 'h2', issuerId: 'i2', planCode: 'growth' }],
    ]);
    const feed = fakeFeed();
    const caches = createReadCaches(feed, { maxEntries: 10 });
    let reads = 0;
    const keys = caches.keys(async (hash: string) => {
      reads++;
      const row = keyRows.get(hash);
      return row ? { ...row } : undefined;
    });
    const both = async () => [await keys('h1'), await keys('h2'), await keys('unknown')];
    expect(await both()).toEqual([keyRows.get('h1'), keyRows.get('h2'), undefined]);
    await both();
    expect(reads).toBe(4);
    feed.emit({ kind: 'credentials', ids: ['h1'] });
    feed.emit({ kind: 'definition', id: 'i1' });
    await both();
    expect(reads).toBe(5);
    for (const event of [
      { kind: 'keys', id: 'i1' },
      { kind: 'issuer', id: 'i2' },
      { kind: 'plan', code: 'free' },
    ] as const) {
      feed.emit(event);
      await both();
    }
    expect(reads).toBe(11);
    feed.emit({ kind: 'all' });
    await both();
    expect(reads).toBe(14);

    const publicWrite = caches.localWrite('public');
    await both();
    expect(reads).toBe(15);
    publicWrite();
    const keyWrite = caches.localWrite('keys');
    await both();
    expect(reads).toBe(18);
    keyWrite();
    await new Promise((resolve) => setImmediate(resolve));
    await both();
    expect(reads).toBe(19);
  });

  it('leaves public rows in use across key and plan changes and key writes', async () => {
    const feed = fakeFeed();
    const caches = createReadCaches(feed, { maxEntries: 10 });
    const find = countingFinder(table);
    const cached = caches.cached('t', find, scopeOf);
    await cached('a');
    feed.emit({ kind: 'keys', id: 'i1' });
    feed.emit({ kind: 'plan', code: 'free' });
    const end = caches.localWrite('keys');
    await cached('a');
    end();
    expect(find.reads).toBe(1);
  });

  it('is the finder itself without a feed', () => {
    const find = countingFinder(table);
    expect(createReadCaches(null, { maxEntries: 10 }).cached('t', find, scopeOf)).toBe(find);
  });

  it('reads the triggers’ payloads, ignoring other schemas and reading anything odd as "all"', () => {
    const read = (payload: string) => parseNotification(payload, 's1');
    expect(read('{"s":"s1","c":["x","y"]}')).toEqual<Change>({ kind: 'credentials', ids: ['x', 'y'] });
    expect(read('{"s":"s1","i":"x"}')).toEqual<Change>({ kind: 'issuer', id: 'x' });
    expect(read('{"s":"s1","d":"x"}')).toEqual<Change>({ kind: 'definition', id: 'x' });
    expect(read('{"s":"s1","k":"x"}')).toEqual<Change>({ kind: 'keys', id: 'x' });
    expect(read('{"s":"s1","p":"free"}')).toEqual<Change>({ kind: 'plan', code: 'free' });
    expect(read('{"s":"s1","all":true}')).toEqual<Change>({ kind: 'all' });
    expect(read('{"s":"s2","c":["x"]}')).toBeNull();
    expect(read('{"f":"t"}')).toEqual({ kind: 'fence', token: 't' });
    expect(read('not json')).toEqual<Change>({ kind: 'all' });
    expect(read('{"s":"s1","c":[1]}')).toEqual<Change>({ kind: 'all' });
  });
});

interface Replica {
  app: FastifyInstance;
  database: Database;
  close(): Promise<void>;
}

/** Another app on the same database, as a second replica would be. */
async function replicaOf(t: TestApp, env: Record<string, string> = {}): Promise<Replica> {
  const config = testConfig(t.testDb.url, env);
  const database = createDatabase(config.database);
  const app = await buildApp({ config, database, logger: false, redis: null });
  await app.ready();
  await app.services.changeFeed?.whenLive();
  return {
    app,
    database,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

describe.each(dialects)('public reads on two replicas (%s)', (dialect) => {
  let t: TestApp;
  let a: FastifyInstance;
  let b: Replica;
  let issuer: TestIssuer;
  let definition: { id: string; slug: string };

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = t.app;
    await a.services.changeFeed?.whenLive();
    b = await replicaOf(t);
    issuer = await t.issuer();
    definition = await createDefinition(t, issuer, { name: 'Cached Badge' });
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  /**
   * Waits until both replicas have heard every change committed so far, as they do in production
   * within the notification's delivery: each one's own fence comes back after them. A write the
   * test makes by SQL is another process's to A as well as to B, so A is fenced too. On SQLite B is
   * another connection to the file, as another process would be: its fence resolves at once, and its
   * next read finds the file's data_version moved by A's commits.
   */
  const heard = async () => {
    await Promise.all([a.services.changeFeed?.fence(), b.app.services.changeFeed?.fence()]);
  };
  const verifyOn = async (app: FastifyInstance, id: string) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/verify', payload: { id } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const pageOn = (app: FastifyInstance, issued: Issued) =>
    app.inject({ method: 'GET', url: new URL(issued.verifyUrl).pathname });
  const assertionOn = (app: FastifyInstance, issued: Issued) =>
    app.inject({ method: 'GET', url: new URL(issued.assertionUrl).pathname, headers: { accept: 'application/json' } });
  /** Reads the credential on `reader` (B unless said) by all three cached reads, twice (the second from memory). */
  const warm = async (issued: Issued, reader = b.app) => {
    for (let i = 0; i < 2; i++) {
      await verifyOn(reader, issued.credentialId);
      expect((await pageOn(reader, issued)).statusCode).toBe(200);
      await assertionOn(reader, issued);
    }
    const sizes = reader.services.readCaches.sizes();
    expect(sizes.verify).toBeGreaterThan(0);
    expect(sizes.page).toBeGreaterThan(0);
    expect(sizes.assertion).toBeGreaterThan(0);
  };

  it('has a live change feed on both replicas', () => {
    expect(a.services.changeFeed?.live).toBe(true);
    expect(b.app.services.changeFeed?.live).toBe(true);
  });

  it('shows a revocation on A at once on B: verify, page and hosted assertion', async () => {
    const issued = await issue(t, issuer, definition.id, { email: 'rev@example.test', name: 'Rev Oked' });
    await warm(issued);
    expect((await verifyOn(b.app, issued.credentialId)).status).toBe('valid');
    await revoke(t, issuer, issued.credentialId, 'Issued in error');
    await heard();
    const result = await verifyOn(b.app, issued.credentialId);
    expect(result).toMatchObject({ status: 'revoked', revokedReason: 'Issued in error' });
    expect((await pageOn(b.app, issued)).body).toContain('status-revoked');
    expect((await assertionOn(b.app, issued)).statusCode).toBe(410);
  });

  it('shows a revocation on the replica that made it without waiting for anything', async () => {
    const issued = await issue(t, issuer, definition.id, { email: 'self@example.test' });
    for (let i = 0; i < 2; i++) await verifyOn(a, issued.credentialId);
    await revoke(t, issuer, issued.credentialId, 'Withdrawn');
    expect((await verifyOn(a, issued.credentialId)).status).toBe('revoked');
  });

  // On SQLite, B hears A's writes through the file's data_version and A through its own triggers.
  const readers = [
    ['B', () => b.app],
    ['the replica that made it', () => a],
  ] as const;

  it.each(readers)(
    'shows a reissue on %s: the old credential revoked, its page linking the newest replacement',
    async (where, readerOf) => {
      const reader = readerOf();
      const issued = await issue(t, issuer, definition.id, { email: `re-${where.length}@example.test` });
      await warm(issued, reader);
      const res = await a.inject({
        method: 'POST',
        url: `/api/v1/credentials/${issued.credentialId}/reissue`,
        headers: auth(issuer.key),
      });
      expect(res.statusCode, res.body).toBe(201);
      const fresh = res.json().credentialId as string;
      await heard();
      expect((await verifyOn(reader, issued.credentialId)).revokedReason).toBe('Replaced by a newer credential');
      expect((await pageOn(reader, issued)).body).toContain(fresh);
      // A replacement written by SQL alone (no update of the old row) still reaches the page.
      await pageOn(reader, issued);
      const replacement = `sql-replacement-${where.length}`;
      const later = '2999-01-01T00:00:00.000Z';
      await t.database.db
        .insertInto('credentials')
        .columns([
          'id',
          'issuer_id',
          'definition_id',
          'recipient_hash',
          'completion_key',
          'issued_on',
          'reissued_from',
          'source',
          'created_at',
        ])
        .values({
          id: replacement,
          issuer_id: issuer.id,
          definition_id: definition.id,
          recipient_hash: 'sha256$00',
          completion_key: `by-sql-${where.length}`,
          issued_on: later,
          reissued_from: issued.credentialId,
          source: 'api',
          created_at: later,
        })
        .execute();
      await heard();
      expect((await pageOn(reader, issued)).body).toContain(replacement);
    },
  );

  it('shows a GDPR erase on A at once on B', async () => {
    const email = 'erase-me@example.test';
    const issued = await issue(t, issuer, definition.id, { email, name: 'Ada Erasable' });
    await warm(issued);
    expect((await verifyOn(b.app, issued.credentialId)).recipientName).toBe('Ada E.');
    const res = await a.inject({
      method: 'POST',
      url: '/api/v1/gdpr/erase',
      headers: auth(issuer.key),
      payload: { recipientEmail: email },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    await heard();
    const result = await verifyOn(b.app, issued.credentialId);
    expect(result.status).toBe('revoked');
    expect(result.recipientName).toBeUndefined();
    expect((await pageOn(b.app, issued)).body).not.toContain('Ada');
  });

  it.each(readers)('shows definition, alignment, endorsement and issuer edits on %s', async (where, readerOf) => {
    const reader = readerOf();
    const issued = await issue(t, issuer, definition.id, { email: `edit-${where.length}@example.test` });
    await warm(issued, reader);
    const patch = await a.inject({
      method: 'PATCH',
      url: `/api/v1/definitions/${definition.id}`,
      headers: auth(issuer.key),
      payload: { name: `Renamed Badge ${where}` },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    await heard();
    // The page shows the text of the version the credential was issued under (issue 45 §3), so the
    // rename shows in the verify answer; the page's row is seen dropped by the edits below.
    expect((await pageOn(reader, issued)).body).not.toContain(`Renamed Badge ${where}`);
    expect((await verifyOn(reader, issued.credentialId)).credential.name).toBe(`Renamed Badge ${where}`);

    await warm(issued, reader);
    const alignment = await a.inject({
      method: 'POST',
      url: `/api/v1/definitions/${definition.id}/alignments`,
      headers: auth(issuer.key),
      payload: { targetName: `Framework Skill ${where}`, targetUrl: 'https://framework.example/nine' },
    });
    expect(alignment.statusCode, alignment.body).toBe(201);
    await heard();
    expect((await pageOn(reader, issued)).body).toContain(`Framework Skill ${where}`);

    await warm(issued, reader);
    const endorsement = await a.inject({
      method: 'POST',
      url: `/api/v1/credentials/${issued.credentialId}/endorsements`,
      headers: auth(issuer.key),
      payload: { endorserName: `Endorsing Lead ${where}`, claim: 'Did the work.' },
    });
    expect(endorsement.statusCode, endorsement.body).toBe(201);
    const endorsementId = endorsement.json().id as string;
    await heard();
    expect((await pageOn(reader, issued)).body).toContain(`Endorsing Lead ${where}`);
    expect(JSON.stringify((await assertionOn(reader, issued)).json())).toContain(endorsementId);

    await warm(issued, reader);
    const me = await a.inject({
      method: 'PATCH',
      url: '/api/v1/issuer/me',
      headers: auth(issuer.key),
      payload: { name: `Renamed Issuer ${where}` },
    });
    expect(me.statusCode, me.body).toBe(200);
    await heard();
    expect((await verifyOn(reader, issued.credentialId)).issuer.name).toBe(`Renamed Issuer ${where}`);
    expect((await pageOn(reader, issued)).body).toContain(`Renamed Issuer ${where}`);
  });

  it('shows a revocation made by SQL by hand on both replicas', async () => {
    const issued = await issue(t, issuer, definition.id, { email: 'sql@example.test' });
    await warm(issued);
    await t.database.db
      .updateTable('credentials')
      .set({ revoked_at: new Date().toISOString(), revoked_reason: 'By hand' })
      .where('id', '=', issued.credentialId)
      .execute();
    await heard();
    await a.services.changeFeed?.fence();
    expect((await verifyOn(b.app, issued.credentialId)).status).toBe('revoked');
    expect((await verifyOn(a, issued.credentialId)).status).toBe('revoked');
  });

  /** The status and rate limit `app` answers a key's request with. */
  const keyOn = async (app: FastifyInstance, key: string) => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(key) });
    return { status: res.statusCode, limit: res.headers['x-ratelimit-limit'] };
  };

  it('refuses a key revoked on A at once on A and on B once heard, and one revoked by SQL on both', async () => {
    const created = await a.services.issuers.createKey(issuer.slug, 'cached');
    for (const app of [a, b.app]) for (let i = 0; i < 2; i++) expect((await keyOn(app, created.key)).status).toBe(200);
    expect(b.app.services.readCaches.sizes().keys).toBeGreaterThan(0);
    await a.services.issuers.revokeKey(issuer.slug, created.id);
    expect((await keyOn(a, created.key)).status).toBe(401);
    await heard();
    expect((await keyOn(b.app, created.key)).status).toBe(401);

    const byHand = await a.services.issuers.createKey(issuer.slug, 'by hand');
    for (const app of [a, b.app]) for (let i = 0; i < 2; i++) expect((await keyOn(app, byHand.key)).status).toBe(200);
    await t.database.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', byHand.id)
      .execute();
    await heard();
    for (const app of [a, b.app]) expect((await keyOn(app, byHand.key)).status).toBe(401);
  });

  it("holds the key cache out of use through this replica's own key and plan changes", async () => {
    const own = await t.issuer({ plan: 'growth' });
    const extra = await a.services.issuers.createKey(own.slug, 'gated');
    const gates = vi.spyOn(a.services.readCaches, 'localWrite');
    try {
      await a.services.issuers.revokeKey(own.slug, extra.id);
      await a.services.issuers.rotateKeys(own.slug, 0);
      await a.services.issuers.setIssuerPlan(own.slug, 'starter');
      await a.services.issuers.updatePlan('growth', { requestsPerMinute: 6_000 });
      expect(gates.mock.calls).toEqual([['keys'], ['keys'], ['keys'], ['keys']]);
    } finally {
      gates.mockRestore();
    }
  });

  it('refuses a key deleted by SQL by hand on both replicas', async () => {
    const doomed = await a.services.issuers.createKey(issuer.slug, 'deleted');
    for (const app of [a, b.app]) for (let i = 0; i < 2; i++) expect((await keyOn(app, doomed.key)).status).toBe(200);
    await t.database.db.deleteFrom('api_keys').where('id', '=', doomed.id).execute();
    await heard();
    for (const app of [a, b.app]) expect((await keyOn(app, doomed.key)).status).toBe(401);
  });

  it("applies a plan's new limit, and an issuer's new plan, on both replicas", async () => {
    const own = await t.issuer({ plan: 'starter' });
    for (const app of [a, b.app]) for (let i = 0; i < 2; i++) await keyOn(app, own.key);
    const before = (await keyOn(b.app, own.key)).limit;
    await a.services.issuers.updatePlan('starter', { requestsPerMinute: 7_777 });
    expect((await keyOn(a, own.key)).limit).toBe('7777');
    await heard();
    expect((await keyOn(b.app, own.key)).limit).toBe('7777');
    expect(before).not.toBe('7777');

    await a.services.issuers.setIssuerPlan(own.slug, 'enterprise');
    const enterprise = String((await a.services.issuers.getPlan('enterprise')).requests_per_minute);
    expect((await keyOn(a, own.key)).limit).toBe(enterprise);
    await heard();
    expect((await keyOn(b.app, own.key)).limit).toBe(enterprise);
  });

  it('answers the signed OB 3.0 credential as stored, and shows a signature changed by SQL by hand on both replicas', async () => {
    const issued = await issue(t, issuer, definition.id, { email: 'ob3@example.test' });
    const url = `/v1/issuers/${issuer.slug}/credentials/${issued.credentialId}`;
    const ob3On = (app: FastifyInstance, accept: string) => app.inject({ method: 'GET', url, headers: { accept } });
    const first = await ob3On(b.app, 'application/ld+json');
    expect(first.statusCode, first.body).toBe(200);
    for (let i = 0; i < 2; i++) expect((await ob3On(b.app, 'application/ld+json')).body).toBe(first.body);
    const stored = await t.database.db
      .selectFrom('vc_credentials')
      .select(['data_integrity'])
      .where('credential_id', '=', issued.credentialId)
      .executeTakeFirstOrThrow();
    expect(first.body).toBe(stored.data_integrity);
    expect(b.app.services.readCaches.sizes().ob3 ?? 0).toBe(1);
    for (let i = 0; i < 2; i++) expect((await ob3On(a, 'application/ld+json')).body).toBe(stored.data_integrity);
    const byHand = '{"changed":"by hand"}';
    await t.database.db
      .updateTable('vc_credentials')
      .set({ data_integrity: byHand })
      .where('credential_id', '=', issued.credentialId)
      .execute();
    await heard();
    expect((await ob3On(b.app, 'application/ld+json')).body).toBe(byHand);
    await a.services.changeFeed?.fence();
    expect((await ob3On(a, 'application/ld+json')).body).toBe(byHand);
    const elsewhere = await b.app.inject({ method: 'GET', url: url.replace(issuer.slug, 'no-such-issuer') });
    expect(elsewhere.statusCode).toBe(404);
  });

  it('uses the caches again once a write over HTTP has ended and its fence came back', async () => {
    const issued = await issue(t, issuer, definition.id, { email: 'http@example.test' });
    const address = await b.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${address}/api/v1/credentials/${issued.credentialId}/revoke`, {
      method: 'POST',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'Over HTTP' }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await heard();
    const before = b.app.services.readCaches.sizes().verify ?? 0;
    await verifyOn(b.app, issued.credentialId);
    expect(b.app.services.readCaches.sizes().verify ?? 0).toBe(before + 1);
  });

  it('keeps each cache within READ_CACHE_ENTRIES', async () => {
    const small = await replicaOf(t, { READ_CACHE_ENTRIES: '2' });
    try {
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push(await issue(t, issuer, definition.id, { email: `lru${i}@example.test` }));
      for (const issued of ids) await verifyOn(small.app, issued.credentialId);
      expect(small.app.services.readCaches.sizes().verify ?? 0).toBe(2);
    } finally {
      await small.close();
    }
  });

  it('has no cache with READ_CACHE=false', async () => {
    const off = await replicaOf(t, { READ_CACHE: 'false' });
    try {
      expect(off.app.services.changeFeed).toBeNull();
      expect(off.app.services.readCaches.sizes()).toEqual({});
    } finally {
      await off.close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('the change feed losing its connection (postgres)', () => {
  let t: TestApp;
  let feed: ChangeFeed;
  const events: FeedEvent['kind'][] = [];

  beforeAll(async () => {
    t = await createTestApp('postgres');
    const { database } = t.config;
    if (database.dialect !== 'postgres') throw new Error('postgres expected');
    feed = createChangeFeed({ url: database.url, log: { warn() {}, info() {} }, reconnectMs: 50 });
    feed.subscribe((event) => events.push(event.kind));
    feed.start();
    await feed.whenLive();
  });
  afterAll(async () => {
    await feed?.stop();
    await t?.close();
  });

  it('empties and bypasses the cache while down, listens again, and hears changes after', async () => {
    const table = new Map([['x', { id: 'x', issuer: 'i', v: 1 }]]);
    const find = countingFinder(table);
    const caches = createReadCaches(feed, { maxEntries: 10 });
    const cached = caches.cached('t', find, scopeOf);
    await cached('x');
    await cached('x');
    expect(find.reads).toBe(1);

    const down = new Promise<void>((resolve) => feed.subscribe((event) => event.kind === 'down' && resolve()));
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query('select pg_terminate_backend($1)', [feed.backendPid]);
    } finally {
      await admin.end();
    }
    await down;
    expect(feed.live).toBe(false);
    expect(caches.sizes().t).toBe(0);
    await cached('x');
    expect(find.reads).toBe(2);

    await feed.whenLive();
    expect(events).toEqual(['up', 'down', 'up']);
    await cached('x');
    await cached('x');
    expect(find.reads).toBe(3);
    // Listening again: a change committed now still reaches the cache.
    const issuer = await t.issuer();
    await t.database.db.updateTable('issuers').set({ name: 'Changed' }).where('id', '=', issuer.id).execute();
    await feed.fence();
    expect(events.at(-1)).toBe('issuer');
  });

  it('names up to 100 credentials in a notification, and sends "all" past that', async () => {
    const heardNow: FeedEvent[] = [];
    feed.subscribe((event) => heardNow.push(event));
    const notify = (count: number) =>
      sql`select accolade_read_cache_credential_ids(current_schema(),
        array(select 'id-' || n from generate_series(1, ${count}::int) n))`.execute(t.database.db);
    await notify(100);
    await notify(101);
    await feed.fence();
    expect(heardNow.map((event) => (event.kind === 'credentials' ? event.ids.length : event.kind))).toEqual([
      100,
      'all',
    ]);
  });
});
