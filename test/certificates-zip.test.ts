import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

const MISSING = '00000000-0000-4000-8000-000000000000';
/** Rendering a handful of PDFs and reading each with poppler takes a while on a loaded machine. */
const TIMEOUT = 240_000;

/** A ZIP unpacked by Info-ZIP's unzip, each PDF read by poppler (pdfinfo, pdftotext), as a registrar's machine would. */
function unpack(zip: Buffer) {
  const dir = mkdtempSync(join(tmpdir(), 'accolade-zip-'));
  try {
    writeFileSync(join(dir, 'batch.zip'), zip);
    execFileSync('unzip', ['-tq', join(dir, 'batch.zip')]);
    const order = execFileSync('unzip', ['-Z1', join(dir, 'batch.zip')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    execFileSync('unzip', ['-q', join(dir, 'batch.zip'), '-d', join(dir, 'out')]);
    const pdfs = new Map<string, { info: string; text: string }>();
    for (const file of readdirSync(join(dir, 'out'))) {
      if (!file.endsWith('.pdf')) continue;
      const path = join(dir, 'out', file);
      pdfs.set(file, {
        info: execFileSync('pdfinfo', [path], { encoding: 'utf8' }),
        text: execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' '),
      });
    }
    const manifest = parse(readFileSync(join(dir, 'out', 'manifest.csv'), 'utf8'), {
      bom: true,
      columns: true,
    }) as { file: string; credentialId: string; included: string; reason: string }[];
    return { order, pdfs, manifest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(dialects)('Certificate ZIP of an import batch on %s', { timeout: TIMEOUT }, (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definitionId: string;
  let batchId: string;
  const ids = new Map<string, string>();

  const zipUrl = (id: string) => `/api/v1/ingest/imports/${id}/certificates.zip`;
  const get = (key: string, url: string) => t.app.inject({ method: 'GET', url, headers: auth(key) });

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ name: 'Northwind Academy' });
    b = await t.issuer();
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Data Science 101', description: 'Completed the introductory course' },
    });
    definitionId = definition.json().id;
    const csv = [
      'email,name,completion_key',
      'thao@example.org,Nguyễn Thị Thảo,zip-1',
      'sian@example.org,Siân O’Brien,zip-2',
      'yulia@example.org,Юлия Иванова,zip-3',
      'nameless@example.org,,zip-4',
      'revoked@example.org,Ada Lovelace,zip-5',
    ].join('\n');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: auth(a.key),
      payload: { csv, defaults: { definitionId } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json();
    expect(report.issued).toBe(5);
    batchId = report.batchId;
    for (const row of report.rows) ids.set(row.completionKey, row.credentialId);
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${ids.get('zip-5')}/revoke`,
      headers: auth(a.key),
      payload: { reason: 'Issued to the wrong cohort' },
    });
    expect(revoke.statusCode, revoke.body).toBe(200);
  }, TIMEOUT);
  afterAll(async () => {
    await t.close();
  });

  it('streams one PDF per printable credential of the batch, each read whole by poppler, and a manifest of the rest', async () => {
    const res = await get(a.key, zipUrl(batchId));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="certificates-${batchId}.zip"`);
    const { order, pdfs, manifest } = unpack(res.rawPayload);

    const printable = { 'zip-1': 'Nguyễn Thị Thảo', 'zip-2': 'Siân O’Brien', 'zip-3': 'Юлия Иванова' };
    expect([...pdfs.keys()].sort()).toEqual(
      Object.keys(printable)
        .map((key) => `certificate-${ids.get(key)}.pdf`)
        .sort(),
    );
    for (const [key, name] of Object.entries(printable)) {
      const id = ids.get(key) as string;
      const pdf = pdfs.get(`certificate-${id}.pdf`);
      expect(pdf?.info).toMatch(/^Pages:\s+1$/m);
      expect(pdf?.info).toMatch(/^PDF version:\s+1\.7$/m);
      expect(pdf?.text).toContain(name);
      expect(pdf?.text).toContain('Data Science 101');
      expect(pdf?.text).toContain(id);
    }
    // The manifest comes last and accounts for every credential the batch issued, in id order.
    expect(order.at(-1)).toBe('manifest.csv');
    expect(manifest.map((row) => row.credentialId)).toEqual([...ids.values()].sort());
    const byKey = (key: string) => manifest.find((row) => row.credentialId === ids.get(key));
    expect(byKey('zip-1')).toMatchObject({ included: 'yes', file: `certificate-${ids.get('zip-1')}.pdf` });
    expect(byKey('zip-4')).toMatchObject({ included: 'no', file: '' });
    expect(byKey('zip-4')?.reason).toContain('no recipient name');
    expect(byKey('zip-5')).toMatchObject({ included: 'no', file: '' });
    expect(byKey('zip-5')?.reason).toContain('revoked');
  });

  it('a batch of a connector call has its ZIP too; a batch that issued nothing new gives the manifest alone', async () => {
    // Each batch a minute later than the one before, so the newest is the first of the history.
    clock.advance(60_000);
    const call = await t.app.inject({
      method: 'POST',
      url: '/api/v1/connectors/generic/completions',
      headers: auth(a.key),
      payload: {
        records: [
          { email: 'zoe@example.org', name: 'Ζωή Παπαδοπούλου', definitionId, externalId: 'lms-1' },
          { email: 'thao@example.org', name: 'Nguyễn Thị Thảo', definitionId, externalId: 'zip-1' },
        ],
      },
    });
    expect(call.statusCode, call.body).toBe(200);
    const [issued] = call.json().records;
    const batches = await get(a.key, '/api/v1/ingest/imports?limit=1');
    const connectorBatch = batches.json().items[0].id;
    const { pdfs, manifest } = unpack((await get(a.key, zipUrl(connectorBatch))).rawPayload);
    // The record whose key the CSV import issued already belongs to that import's batch.
    expect([...pdfs.keys()]).toEqual([`certificate-${issued.credentialId}.pdf`]);
    expect(pdfs.get(`certificate-${issued.credentialId}.pdf`)?.text).toContain('Ζωή Παπαδοπούλου');
    expect(manifest).toEqual([
      {
        file: `certificate-${issued.credentialId}.pdf`,
        credentialId: issued.credentialId,
        included: 'yes',
        reason: '',
      },
    ]);

    clock.advance(60_000);
    const replay = await t.app.inject({
      method: 'POST',
      url: '/api/v1/connectors/generic/completions',
      headers: auth(a.key),
      payload: { records: [{ email: 'zoe@example.org', name: 'Ζωή Παπαδοπούλου', definitionId, externalId: 'lms-1' }] },
    });
    expect(replay.json().records[0].outcome).toBe('skipped');
    const replayBatch = (await get(a.key, '/api/v1/ingest/imports?limit=1')).json().items[0].id;
    const empty = unpack((await get(a.key, zipUrl(replayBatch))).rawPayload);
    expect(empty.order).toEqual(['manifest.csv']);
    expect(empty.manifest).toEqual([]);
  });

  it("another issuer's batch answers exactly as a missing one; a key is required", async () => {
    expectErrorBody(await get(a.key, zipUrl(MISSING)), 404, 'not_found');
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'GET', url: zipUrl(batchId) },
      { method: 'GET', url: zipUrl(MISSING) },
    );
    await expectKeyRequired(t.app, { method: 'GET', url: zipUrl(batchId) });
  });

  it('one ZIP at a time per issuer: another answers 429 with Retry-After until the first ends', async () => {
    const first = await t.app.services.certificates.batchZip(a.id, batchId);
    const busy = await get(a.key, zipUrl(batchId));
    expectErrorBody(busy, 429, 'rate_limited');
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);

    const closed = once(first, 'close');
    first.destroy();
    await closed;
    const after = await get(a.key, zipUrl(batchId));
    expect(after.statusCode, after.body).toBe(200);
  });
});
