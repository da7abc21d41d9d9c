import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earnerSession } from './backpack.support.js';
import { createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, importCsv, postJson } from './ingest.support.js';

/**
 * Issue 47 §1: a credential issued to an address that has an earner account is linked at issuance,
 * while the address is at hand — on the batch channels (CSV import, connectors) as on single issuance.
 */
describe.each(dialects)('backpack links at batch issuance on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;
  const EARNER = 'batch.earner@links.example';
  const STRANGER = 'batch.stranger@links.example';

  async function linked(): Promise<{ credential_id: string; account_id: string; issuer_id: string }[]> {
    return t.database.db
      .withTables<{ earner_credentials: { credential_id: string; account_id: string; issuer_id: string } }>()
      .selectFrom('earner_credentials')
      .select(['credential_id', 'account_id', 'issuer_id'])
      .execute();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer({ name: 'Batch Links College' });
    await createDefinition(t, issuer.key, { name: 'Spreadsheets', slug: 'spreadsheets' });
    await createDefinition(t, issuer.key, { name: 'Databases', slug: 'databases' });
    await createDefinition(t, issuer.key, { name: 'Networks', slug: 'networks' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('links nothing while no earner has an account', async () => {
    const report = await importCsv(t, issuer.key, `email,course\n${EARNER},spreadsheets\n`);
    expect(report.issued).toBe(1);
    expect(await linked()).toEqual([]);
  });

  it('links a CSV row and a connector record of an account holder, and never a stranger', async () => {
    const { accountId, cookie } = await earnerSession(t.app, EARNER);
    // Sign-in linked the credential the first import issued.
    const atSignIn = (await linked()).map((link) => link.credential_id);
    expect(atSignIn).toHaveLength(1);

    const report = await importCsv(
      t,
      issuer.key,
      `email,course\n${EARNER.toUpperCase()},databases\n${STRANGER},databases\n`,
    );
    expect(report.issued).toBe(2);
    const earnerRow = report.rows.find((row) => row.rowNum === 2);
    const strangerRow = report.rows.find((row) => row.rowNum === 3);

    const connector = await postJson(t, issuer.key, '/api/v1/connectors/generic/completions', {
      records: [
        { email: EARNER, courseCode: 'networks', completionId: 'lms-1' },
        { email: STRANGER, courseCode: 'networks', completionId: 'lms-2' },
      ],
    });
    expect(connector.statusCode, connector.body).toBe(200);
    expect(connector.json()).toMatchObject({ issued: 2 });

    const links = await linked();
    const linkedIds = links.map((link) => link.credential_id);
    expect(links).toHaveLength(3);
    expect(links.every((link) => link.account_id === accountId && link.issuer_id === issuer.id)).toBe(true);
    expect(linkedIds).toContain(earnerRow?.credentialId);
    expect(linkedIds).not.toContain(strangerRow?.credentialId);

    const trail = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('issuer_id', '=', 'earners')
      .where('action', '=', 'earner.credential_linked')
      .execute();
    for (const id of linkedIds.filter((id) => !atSignIn.includes(id)))
      expect(trail.some((row) => String(row.details).includes(id))).toBe(true);

    const page = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Databases');
    expect(page.body).toContain('Spreadsheets');
    expect(page.body).toContain('Networks');
    expect(page.body.toLowerCase()).not.toContain(STRANGER);
  });
});
