import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

/*
 * A replica keeps the definitions it issued from; another replica changes one. The next credential
 * the first replica issues must carry the definition as it now is: on PostgreSQL the issuing
 * statement compares what the replica read with the stored definition (migration 0065 added the
 * validity in months to that comparison), on SQLite the definition is read at each issuance.
 */
describe.each(dialects)('issuing after another replica changed the definition on %s', (dialect) => {
  const clock = manualClock('2026-01-31T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let database: Database;
  let replica: FastifyInstance;
  let definitionId: string;

  async function issueOnReplica(completionKey: string): Promise<string | null> {
    const res = await replica.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: `${completionKey}@example.test`, completionKey },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId as string;
  }
  const expiresOn = async (id: string | null) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/credentials/${id}`, headers: auth(a.key) })).json().expiresOn;
  const change = async (payload: object) => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/definitions/${definitionId}`,
      headers: auth(a.key),
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `definition-changes-${dialect}` });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Forklift', description: 'Renewed every two years', validForMonths: 24 },
    });
    definitionId = created.json().id;
    database = createDatabase(t.config.database);
    replica = await buildApp({ config: t.config, database, clock, logger: false, redis: null });
    await replica.ready();
  });
  afterAll(async () => {
    await replica?.close();
    await database?.close();
    await t.close();
  });

  it('issues with the validity in months, days or none that the definition has now', async () => {
    expect(await expiresOn(await issueOnReplica('changes-1'))).toBe('2028-01-31T09:00:00.000Z');
    await change({ validForMonths: 12 });
    expect(await expiresOn(await issueOnReplica('changes-2'))).toBe('2027-01-31T09:00:00.000Z');
    await change({ expiresAfterDays: 10 });
    expect(await expiresOn(await issueOnReplica('changes-3'))).toBe('2026-02-10T09:00:00.000Z');
    await change({ validForMonths: 1 });
    expect(await expiresOn(await issueOnReplica('changes-4'))).toBe('2026-02-28T09:00:00.000Z');
    await change({ validForMonths: null });
    expect(await expiresOn(await issueOnReplica('changes-5'))).toBeNull();
  });
});
