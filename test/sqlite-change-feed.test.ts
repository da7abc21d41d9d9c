import SQLite from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChangeFeed, FeedEvent } from '../src/db/change-feed.js';
import { CATCH_UP_MS } from '../src/db/sqlite-change-feed.js';
import { auth, createTestApp, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, type Issued, issue } from './verification.support.js';

describe('the SQLite change feed', () => {
  let t: TestApp;
  let feed: ChangeFeed;
  let issuer: TestIssuer;
  let definition: { id: string; slug: string };
  let issued: Issued;
  let heard: FeedEvent[] = [];

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    feed = t.app.services.changeFeed as ChangeFeed;
    feed.subscribe((event) => heard.push(event));
    issuer = await t.issuer();
    definition = await createDefinition(t, issuer, { name: 'Fed Badge' });
    issued = await issue(t, issuer, definition.id, { email: 'fed@example.test' });
  });
  afterAll(async () => t?.close());
  afterEach(() => {
    heard = [];
    vi.restoreAllMocks();
  });

  /** What the feed heard while `write` ran on this process's connection. */
  const during = async (write: () => Promise<unknown>) => {
    heard = [];
    await write();
    return heard;
  };
  const db = () => t.database.db;

  it('is live once the app is ready', () => {
    expect(feed.live).toBe(true);
  });

  it("hears this process's credential writes, and an insert only when it replaces a credential", async () => {
    expect(
      await during(() =>
        db().updateTable('credentials').set({ display_name: 'X' }).where('id', '=', issued.credentialId).execute(),
      ),
    ).toEqual([{ kind: 'credentials', ids: [issued.credentialId, issued.credentialId] }]);
    expect(await during(() => issue(t, issuer, definition.id, { email: 'plain@example.test' }))).toEqual([]);
    const reissue = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${issued.credentialId}/reissue`,
      headers: auth(issuer.key),
    });
    expect(reissue.statusCode, reissue.body).toBe(201);
    expect(heard).toContainEqual({ kind: 'credentials', ids: [issued.credentialId] });
  });

  it('hears issuer, definition, alignment and endorsement edits by the ids the cached rows show', async () => {
    expect(
      await during(() => db().updateTable('issuers').set({ name: 'Fed Issuer' }).where('id', '=', issuer.id).execute()),
    ).toEqual([{ kind: 'issuer', id: issuer.id }]);
    expect(
      await during(() =>
        db().updateTable('definitions').set({ name: 'Fed Badge 2' }).where('id', '=', definition.id).execute(),
      ),
    ).toEqual([{ kind: 'definition', id: definition.id }]);
    const alignment = await during(() =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/definitions/${definition.id}/alignments`,
        headers: auth(issuer.key),
        payload: { targetName: 'Fed Skill', targetUrl: 'https://framework.example/fed' },
      }),
    );
    expect(alignment).toContainEqual({ kind: 'definition', id: definition.id });
    const endorsement = await during(() =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/credentials/${issued.credentialId}/endorsements`,
        headers: auth(issuer.key),
        payload: { endorserName: 'Fed Lead', claim: 'Did the work.' },
      }),
    );
    expect(endorsement).toContainEqual({ kind: 'credentials', ids: [issued.credentialId] });
  });

  it("hears a key's change by its issuer and a plan's by its code, not a new key", async () => {
    const created = await t.app.services.issuers.createKey(issuer.slug, 'fed');
    expect(heard).toEqual([]);
    expect(
      await during(() => db().updateTable('api_keys').set({ label: 'fed 2' }).where('id', '=', created.id).execute()),
    ).toEqual([
      { kind: 'keys', id: issuer.id },
      { kind: 'keys', id: issuer.id },
    ]);
    expect(await during(() => db().deleteFrom('api_keys').where('id', '=', created.id).execute())).toEqual([
      { kind: 'keys', id: issuer.id },
    ]);
    expect(
      await during(() =>
        db().updateTable('plans').set({ requests_per_minute: 601 }).where('code', '=', 'growth').execute(),
      ),
    ).toEqual([
      { kind: 'plan', code: 'growth' },
      { kind: 'plan', code: 'growth' },
    ]);
  });

  it('hears a stored OB 3.0 signature changed', async () => {
    const fetched = await t.app.inject({
      method: 'GET',
      url: `/v1/issuers/${issuer.slug}/credentials/${issued.credentialId}`,
      headers: { accept: 'application/vc+jwt' },
    });
    expect(fetched.statusCode, fetched.body).toBe(200);
    expect(
      await during(() =>
        db()
          .updateTable('vc_credentials')
          .set({ jwt: 'x.y.z' })
          .where('credential_id', '=', issued.credentialId)
          .execute(),
      ),
    ).toEqual([{ kind: 'credentials', ids: [issued.credentialId, issued.credentialId] }]);
  });

  it("hears another connection's commit at the next fence, and on a read once CATCH_UP_MS has passed", async () => {
    const other = new SQLite(t.testDb.file as string);
    try {
      await feed.fence();
      heard = [];
      let now = performance.now();
      vi.spyOn(performance, 'now').mockImplementation(() => now);
      feed.catchUp();
      other.prepare('update issuers set name = ? where id = ?').run('Changed Elsewhere', issuer.id);
      feed.catchUp();
      expect(heard).toEqual([]);
      now += CATCH_UP_MS;
      feed.catchUp();
      expect(heard).toEqual([{ kind: 'all' }]);
      feed.catchUp();
      other.prepare('update issuers set name = ? where id = ?').run('Changed Again', issuer.id);
      await feed.fence();
      expect(heard).toEqual([{ kind: 'all' }, { kind: 'all' }]);
      await feed.fence();
      expect(heard).toHaveLength(2);
    } finally {
      other.close();
    }
  });

  it('hears nothing once stopped, and refuses fences', async () => {
    await feed.stop();
    expect(feed.live).toBe(false);
    expect(heard).toEqual([{ kind: 'down' }]);
    expect(
      await during(() => db().updateTable('issuers').set({ name: 'Unheard' }).where('id', '=', issuer.id).execute()),
    ).toEqual([]);
    await expect(feed.fence()).rejects.toThrow(/not listening/);
    feed.start();
    expect(feed.live).toBe(true);
  });
});
