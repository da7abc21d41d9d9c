import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { importCsv, postJson } from './ingest.support.js';

/**
 * A roster's Course Code is the code the registrar typed as the definition's "Course code"
 * (`humanCode`, issue 45 §3), not only its slug: the CSV import and the connectors resolve it, case
 * aside, and a code two definitions share is a problem naming them instead of a guess.
 */
describe.each(dialects)('course codes resolve definitions on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;

  async function define(name: string, slug: string, humanCode: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name, slug, description: `${name} course`, humanCode },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  }

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer({ name: 'Course Code College' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('issues a CSV row by the definition’s course code, in any case', async () => {
    const id = await define('IT Level 3', 'it-level-3', 'BTEC-IT3');
    const report = await importCsv(
      t,
      issuer.key,
      'Learner Ref,Email Address,Course Code\nL001,code.one@codes.example,btec-it3\nL002,code.two@codes.example,BTEC-IT3\n',
    );
    expect(report).toMatchObject({ issued: 2, errored: 0 });
    const listed = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials?definitionId=${id}`,
      headers: auth(issuer.key),
    });
    expect(listed.json().items).toHaveLength(2);
  });

  it('issues a connector record by course code', async () => {
    await define('Welding 1', 'welding-1', 'WELD1-X');
    const res = await postJson(t, issuer.key, '/api/v1/connectors/generic/completions', {
      records: [{ email: 'code.weld@codes.example', courseCode: 'weld1-x', completionId: 'c-1' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ issued: 1 });
  });

  it('refuses a code two definitions share, naming their slugs', async () => {
    await define('First Aid (day)', 'first-aid-day', 'FA-1');
    await define('First Aid (evening)', 'first-aid-evening', 'FA-1');
    const report = await importCsv(t, issuer.key, 'Email Address,Course Code\ncode.fa@codes.example,FA-1\n');
    expect(report).toMatchObject({ issued: 0, errored: 1 });
    expect(report.rows[0]?.message).toContain('first-aid-day, first-aid-evening');
  });
});
