import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_RETRY_AFTER_SECONDS } from '../src/modules/ingest/import-gate.js';
import { createTestApp, dialects, expectErrorBody, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, importCsv, postJson } from './ingest.support.js';

const URL = '/api/v1/ingest/csv';
const CSV = 'email,course\ngate@gate.example,gate\n';

describe.each(dialects)('CSV imports bounded per issuer and per process on %s', (dialect) => {
  let t: TestApp;
  const issuers: TestIssuer[] = [];

  beforeAll(async () => {
    t = await createTestApp(dialect);
    for (let i = 0; i < 3; i++) {
      const issuer = await t.issuer();
      await createDefinition(t, issuer.key, { name: 'Gate', slug: 'gate' });
      issuers.push(issuer);
    }
  });
  afterAll(async () => t.close());

  function expectBusy(res: Awaited<ReturnType<typeof postJson>>, message: string) {
    expect(expectErrorBody(res, 429, 'import_busy').message).toContain(message);
    expect(res.headers['retry-after']).toBe(String(IMPORT_RETRY_AFTER_SECONDS));
  }

  it('answers 429 import_busy with Retry-After while the issuer runs an import, and not after', async () => {
    const [a] = issuers as [TestIssuer];
    const running = t.app.services.ingest.imports.enter(a.id);
    expectBusy(await postJson(t, a.key, URL, { csv: CSV, dryRun: true }), 'already runs an import');
    running.abandon();
    expect((await importCsv(t, a.key, CSV, { dryRun: true })).total).toBe(1);
  });

  it('answers 429 import_busy to any issuer while the process runs two imports', async () => {
    const [a, b, c] = issuers as [TestIssuer, TestIssuer, TestIssuer];
    const first = t.app.services.ingest.imports.enter(a.id);
    const second = t.app.services.ingest.imports.enter(b.id);
    expectBusy(await postJson(t, c.key, URL, { csv: CSV }), 'as many imports as it can');
    first.abandon();
    expect((await importCsv(t, c.key, CSV)).issued).toBe(1);
    second.abandon();
  });

  it('frees the slot when a request fails before or during its import', async () => {
    const [a] = issuers as [TestIssuer];
    for (let round = 0; round < 3; round++) {
      expectErrorBody(await postJson(t, a.key, URL, { csv: 42 }), 400, 'validation_failed');
      const big = await postJson(t, a.key, URL, { csv: `email\n${'a'.repeat(10 * 1024 * 1024)}` });
      expectErrorBody(big, 413, 'payload_too_large');
      expectErrorBody(await postJson(t, a.key, URL, { csv: '' }), 422, 'invalid_csv');
    }
    expect((await importCsv(t, a.key, CSV, { dryRun: true })).total).toBe(1);
  });

  it('an import that finished frees its slot: one issuer imports one file after another', async () => {
    const [, b] = issuers as [TestIssuer, TestIssuer];
    for (let round = 0; round < 3; round++) expect((await importCsv(t, b.key, CSV, { dryRun: true })).total).toBe(1);
  });
});
