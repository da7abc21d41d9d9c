import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, type Issued, issue } from './verification.support.js';

/** Analytics reads what this server has already answered, although events are written in batches. */
describe.each(dialects)('analytics right after a share and a verify on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let credential: Issued;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer();
    const definition = await createDefinition(t, a, { name: 'Data Literacy' });
    credential = await issue(t, a, definition.id, { email: 'grace@example.test' });
    // No timed writes: what is recorded from here stays buffered until something flushes it.
    await t.app.services.verification.events.stop();
  });
  afterAll(async () => t.close());

  it('counts a LinkedIn share and a verify the moment they are answered', async () => {
    const share = await t.app.inject({
      method: 'GET',
      url: `${new URL(credential.verifyUrl).pathname}/share/linkedin`,
    });
    expect(share.statusCode, share.body).toBe(302);
    const verify = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      payload: { id: credential.credentialId },
    });
    expect(verify.statusCode, verify.body).toBe(200);

    const res = await t.app.inject({ method: 'GET', url: '/api/v1/analytics', headers: auth(a.key) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.engagementByAction.linkedin).toBe(1);
    expect(body.totals).toMatchObject({ verifies: 1, shares: 1 });

    const csv = await t.app.inject({ method: 'GET', url: '/api/v1/analytics.csv', headers: auth(a.key) });
    expect(csv.body).toMatch(/,1,1,1,0,0,0\r\n$/);
  });
});
