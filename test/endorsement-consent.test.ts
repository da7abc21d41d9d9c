import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENDORSEMENT_ACCEPTED_MAX,
  ENDORSEMENT_CLAIM_MAX,
  ENDORSEMENT_PENDING_MAX,
} from '../src/core/endorsement-limits.js';
import { type ConsoleUser, consoleUser } from './console.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  expectKeyRequired,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const BASE = 'https://badges.test';
const MISSING = '00000000-0000-4000-8000-000000000000';

// biome-ignore lint/suspicious/noExplicitAny: documents read back from the service, checked by the assertions
type Json = Record<string, any>;

/**
 * Issue 48 §4: an endorsement another issuer gives a definition is pending until the definition's
 * issuer accepts it; only accepted ones are embedded in its signed credentials, a bounded number,
 * and signing reads no others.
 */
describe.each(dialects)('consent to endorsements on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let other: TestIssuer;
  let viewer: ConsoleUser;
  let definitionId: string;
  let badgeClassUrl: string;
  let serial = 0;

  const call = (key: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: auth(key), ...(payload ? { payload } : {}) });
  const decide = (key: string, id: string, decision: string) =>
    call(key, 'POST', `/api/v1/endorsements/received/${id}/${decision}`);

  /** A new issuer endorses `a`'s definition: the given endorsement (pending). */
  async function endorse(claim = 'Well assessed.', badgeClass = badgeClassUrl): Promise<Json> {
    const endorser = await t.issuer({ slug: `ec-${dialect}-${++serial}`, name: `Endorser ${serial}` });
    const res = await call(endorser.key, 'POST', '/api/v1/endorsements/given', { badgeClass, claim });
    expect(res.statusCode, res.body).toBe(201);
    return { ...res.json(), endorserKey: endorser.key };
  }

  async function definition(name: string): Promise<{ id: string; url: string }> {
    const res = await call(a.key, 'POST', '/api/v1/definitions', { name, description: 'x', criteriaNarrative: 'y' });
    expect(res.statusCode, res.body).toBe(201);
    return { id: res.json().id, url: `${BASE}/v1/issuers/${a.slug}/badges/${res.json().slug}` };
  }

  async function signedCredential(definition: string): Promise<{ body: string; json: Json }> {
    const issued = await call(a.key, 'POST', '/api/v1/credentials', {
      definitionId: definition,
      recipientEmail: 'ada@example.test',
      completionKey: `ec:${++serial}`,
    });
    expect(issued.statusCode, issued.body).toBe(201);
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/issuers/${a.slug}/credentials/${issued.json().credentialId}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return { body: res.body, json: res.json() };
  }
  const embedded = (credential: Json): string[] =>
    ((credential.credentialSubject.achievement.endorsement ?? []) as Json[]).map((e) => e.id);

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer({ slug: `ec-a-${dialect}`, name: 'Endorsed Academy' });
    other = await t.issuer({ slug: `ec-o-${dialect}`, name: 'Other Office' });
    viewer = await consoleUser(t.app, a.id, 'viewer');
    const made = await definition('Consented Badge');
    definitionId = made.id;
    badgeClassUrl = made.url;
  });
  afterAll(async () => t?.close());

  it('lists every endorsement received as pending, embeds none until accepted, then only accepted ones', async () => {
    const first = await endorse('First of two.');
    const second = await endorse('Second of two.');
    const listed = await call(a.key, 'GET', '/api/v1/endorsements/received');
    expect(listed.statusCode, listed.body).toBe(200);
    const mine = (listed.json() as Json[]).filter((r) => r.definitionId === definitionId);
    expect(mine.map((r) => r.id)).toEqual([first.id, second.id]);
    expect(mine[0]).toEqual({
      id: first.id,
      endorserIssuerId: first.endorserIssuerId,
      endorserName: expect.stringMatching(/^Endorser /),
      endorserProfile: expect.stringMatching(/^https:\/\/badges\.test\/v1\/issuers\/ec-/),
      definitionId,
      definitionName: 'Consented Badge',
      badgeClass: badgeClassUrl,
      claim: 'First of two.',
      status: 'pending',
      createdAt: expect.any(String),
      decidedAt: null,
      revokedAt: null,
    });
    expect(embedded((await signedCredential(definitionId)).json)).toEqual([]);

    const accepted = await decide(a.key, first.id, 'accept');
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ status: 'accepted', decidedAt: expect.any(String) });
    expect(embedded((await signedCredential(definitionId)).json)).toEqual([`urn:uuid:${first.id}`]);
    // The endorser sees the decision.
    const given = await call(first.endorserKey, 'GET', '/api/v1/endorsements/given');
    expect(given.json()[0]).toMatchObject({ id: first.id, status: 'accepted' });

    // Rejected: no longer embedded; it can be accepted again. Removed: final.
    expect((await decide(a.key, first.id, 'reject')).json().status).toBe('rejected');
    expect(embedded((await signedCredential(definitionId)).json)).toEqual([]);
    expect((await decide(a.key, first.id, 'accept')).json().status).toBe('accepted');
    expect((await decide(a.key, first.id, 'remove')).json().status).toBe('removed');
    expectErrorBody(await decide(a.key, first.id, 'accept'), 409, 'endorsement_final');
    expectErrorBody(await decide(a.key, first.id, 'reject'), 409, 'endorsement_final');
    expect((await decide(a.key, first.id, 'remove')).statusCode).toBe(200);
    expect(embedded((await signedCredential(definitionId)).json)).toEqual([]);
    // A removed endorsement blocks its endorser from giving the definition another until it revokes it.
    const again = await call(first.endorserKey, 'POST', '/api/v1/endorsements/given', {
      badgeClass: badgeClassUrl,
      claim: 'Let me in.',
    });
    expectErrorBody(again, 409, 'already_endorsed');

    const filtered = await call(
      a.key,
      'GET',
      `/api/v1/endorsements/received?status=pending&definitionId=${definitionId}`,
    );
    expect((filtered.json() as Json[]).map((r) => r.id)).toEqual([second.id]);
  });

  it('audits every decision in the endorsed issuer with its actor (key or console user), once per change', async () => {
    const given = await endorse('Audited.');
    expect((await decide(a.key, given.id, 'accept')).statusCode).toBe(200);
    expect((await decide(a.key, given.id, 'accept')).statusCode).toBe(200);
    const owner = await consoleUser(t.app, a.id, 'issuer');
    const rejected = await t.app.inject({
      method: 'POST',
      url: `/api/v1/endorsements/received/${given.id}/reject`,
      headers: owner.headers,
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    const records = await t.database.db
      .selectFrom('audit_log')
      .select(['issuer_id', 'actor', 'action', 'details'])
      .where('target_id', '=', given.id)
      .where('issuer_id', '=', a.id)
      .orderBy('seq')
      .execute();
    expect(records.map((r) => [r.action, r.actor.split(':')[0]])).toEqual([
      ['endorsement.accepted', 'key'],
      ['endorsement.rejected', 'user'],
    ]);
    expect(records[1]?.actor).toBe(`user:${owner.userId}`);
    expect(JSON.parse(String(records[1]?.details))).toMatchObject({ from: 'accepted', definitionId });
    // A viewer may read but not decide.
    const read = await t.app.inject({ method: 'GET', url: '/api/v1/endorsements/received', headers: viewer.headers });
    expect(read.statusCode, read.body).toBe(200);
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/v1/endorsements/received/${given.id}/accept`,
      headers: viewer.headers,
    });
    expectErrorBody(refused, 403, 'forbidden');
  });

  it('caps a definition: accepted ones, pending ones, and a claim’s length', async () => {
    const capped = await definition('Capped Badge');
    const gifts: Json[] = [];
    for (let i = 0; i <= ENDORSEMENT_ACCEPTED_MAX; i++) gifts.push(await endorse(`Gift ${i}.`, capped.url));
    for (const gift of gifts.slice(0, ENDORSEMENT_ACCEPTED_MAX)) {
      expect((await decide(a.key, gift.id, 'accept')).statusCode).toBe(200);
    }
    const over = gifts[ENDORSEMENT_ACCEPTED_MAX] as Json;
    expectErrorBody(await decide(a.key, over.id, 'accept'), 409, 'endorsement_limit');
    expect((await decide(a.key, gifts[0]?.id, 'reject')).statusCode).toBe(200);
    expect((await decide(a.key, over.id, 'accept')).statusCode).toBe(200);
    const credential = await signedCredential(capped.id);
    expect(embedded(credential.json)).toHaveLength(ENDORSEMENT_ACCEPTED_MAX);
    expect(embedded(credential.json)).not.toContain(`urn:uuid:${gifts[0]?.id}`);

    // Pending ones: seeded as rows (one per endorser is the rule), then one more is refused.
    const seedRow = await t.database.db
      .selectFrom('endorsement_credentials')
      .selectAll()
      .where('id', '=', String(gifts[0]?.id))
      .executeTakeFirstOrThrow();
    const pendingDefinition = await definition('Crowded Badge');
    for (let i = 0; i < ENDORSEMENT_PENDING_MAX; i++) {
      await t.database.db
        .insertInto('endorsement_credentials')
        .values({
          ...seedRow,
          id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          definition_id: pendingDefinition.id,
          status: 'pending',
          decided_at: null,
          status_position: 900_000 + i,
        })
        .execute();
    }
    const endorser = await t.issuer({ slug: `ec-late-${dialect}` });
    const late = await call(endorser.key, 'POST', '/api/v1/endorsements/given', {
      badgeClass: pendingDefinition.url,
      claim: 'Too late.',
    });
    expectErrorBody(late, 409, 'endorsement_limit');

    const long = await call(endorser.key, 'POST', '/api/v1/endorsements/given', {
      badgeClass: badgeClassUrl,
      claim: 'x'.repeat(ENDORSEMENT_CLAIM_MAX + 1),
    });
    expectErrorBody(long, 400, 'validation_failed');
    const longest = await call(endorser.key, 'POST', '/api/v1/endorsements/given', {
      badgeClass: badgeClassUrl,
      claim: 'x'.repeat(ENDORSEMENT_CLAIM_MAX),
    });
    expect(longest.statusCode, longest.body).toBe(201);
  });

  it('signs at the same cost however many endorsements are pending, rejected or over the cap', async () => {
    const flooded = await definition('Flooded Badge');
    const gift = await endorse('The one accepted.', flooded.url);
    expect((await decide(a.key, gift.id, 'accept')).statusCode).toBe(200);
    const seed = await t.database.db
      .selectFrom('endorsement_credentials')
      .selectAll()
      .where('id', '=', gift.id)
      .executeTakeFirstOrThrow();
    // 200 rows no decision let in, each a large credential, and more accepted rows than the cap
    // (as a race or a hand-made row could leave): none of the first and at most the cap are read.
    const big = JSON.stringify({ padding: 'p'.repeat(20_000) });
    const rows = Array.from({ length: 200 }, (_, i) => ({
      ...seed,
      id: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`,
      status: i % 2 === 0 ? 'pending' : 'rejected',
      credential: big,
      status_position: 800_000 + i,
      created_at: '2000-01-01T00:00:00.000Z',
    }));
    await t.database.db.insertInto('endorsement_credentials').values(rows).execute();
    const extra = Array.from({ length: ENDORSEMENT_ACCEPTED_MAX + 5 }, (_, i) => ({
      ...seed,
      id: `00000000-0000-4000-a000-${String(i).padStart(12, '0')}`,
      status: 'accepted',
      status_position: 700_000 + i,
      created_at: `2100-01-01T00:00:00.${String(i).padStart(3, '0')}Z`,
    }));
    await t.database.db.insertInto('endorsement_credentials').values(extra).execute();
    const credential = await signedCredential(flooded.id);
    expect(credential.body).not.toContain('padding');
    expect(embedded(credential.json)).toHaveLength(ENDORSEMENT_ACCEPTED_MAX);
    expect(embedded(credential.json)[0]).toBe(`urn:uuid:${gift.id}`);
    expect(credential.body.length).toBeLessThan(ENDORSEMENT_ACCEPTED_MAX * 4_000 + 8_000);
  });

  it('answers 401 without a key, 404 for another issuer’s endorsement, 400 for bad input; self-endorsement stays refused', async () => {
    const given = await endorse('Mine alone.');
    await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/endorsements/received' });
    for (const decision of ['accept', 'reject', 'remove']) {
      await expectKeyRequired(t.app, { method: 'POST', url: `/api/v1/endorsements/received/${given.id}/${decision}` });
      await expectHiddenFromOtherIssuer(
        t.app,
        other.key,
        { method: 'POST', url: `/api/v1/endorsements/received/${given.id}/${decision}` },
        { method: 'POST', url: `/api/v1/endorsements/received/${MISSING}/${decision}` },
      );
      // The endorser cannot decide its own gift either.
      expect((await decide(given.endorserKey, given.id, decision)).statusCode).toBe(404);
    }
    expect((await call(other.key, 'GET', '/api/v1/endorsements/received')).json()).toEqual([]);
    expect((await call(given.endorserKey, 'GET', '/api/v1/endorsements/received')).json()).toEqual([]);
    for (const query of ['status=maybe', 'limit=0', 'limit=201', 'offset=-1', 'colour=red']) {
      expectErrorBody(await call(a.key, 'GET', `/api/v1/endorsements/received?${query}`), 400, 'validation_failed');
    }
    const own = await call(a.key, 'POST', '/api/v1/endorsements/given', { badgeClass: badgeClassUrl, claim: 'Me!' });
    expectErrorBody(own, 400, 'validation_failed');
    const page = await call(a.key, 'GET', '/api/v1/endorsements/received?limit=1&offset=1');
    expect(page.json()).toHaveLength(1);
    const still = await call(a.key, 'GET', `/api/v1/endorsements/received?status=pending&definitionId=${definitionId}`);
    expect((still.json() as Json[]).map((r) => r.id)).toContain(given.id);
  });

  it('leaves an endorsement recorded before consent existed pending (migration 0070)', async () => {
    const gift = await endorse('From before.');
    const seed = await t.database.db
      .selectFrom('endorsement_credentials')
      .selectAll()
      .where('id', '=', gift.id)
      .executeTakeFirstOrThrow();
    const { status: _status, decided_at: _decided, ...before } = seed;
    const id = '00000000-0000-4000-b000-000000000001';
    await t.database.db
      .insertInto('endorsement_credentials')
      .values({ ...before, id, status_position: 600_000 } as typeof seed)
      .execute();
    const row = await t.database.db
      .selectFrom('endorsement_credentials')
      .select(['status', 'decided_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', decided_at: null });
  });
});
