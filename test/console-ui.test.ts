import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { CONSOLE_CSP } from '../src/modules/console-ui/console-ui.routes.js';
import { consoleBundle } from './console-ui.support.js';
import { createTestApp, dialects, expectErrorBody, freshDatabase, type TestApp, testConfig } from './helpers.js';

describe.each(dialects)('console serving on %s', (dialect) => {
  let t: TestApp;
  let dir: string;
  let script: string;
  let style: string;

  beforeAll(async () => {
    dir = await consoleBundle();
    const assets = readdirSync(join(dir, 'assets'));
    script = assets.find((name) => name.endsWith('.js')) ?? '';
    style = assets.find((name) => name.endsWith('.css')) ?? '';
    t = await createTestApp(dialect);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers /console with the app shell under its own strict policy', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain(`<script type="module" src="/console/assets/${script}"></script>`);
    expect(res.body).toContain(`<link rel="stylesheet" href="/console/assets/${style}">`);
    // No inline script: the policy allows none.
    expect(res.body.match(/<script/g)).toHaveLength(1);
  });

  it('answers every client-side route with the same shell (SPA fallback)', async () => {
    for (const url of ['/console/', '/console/login', '/console/credentials/abc', '/console/invite/some-token']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-security-policy'], url).toBe(CONSOLE_CSP);
      expect(res.body, url).toContain('<div id="app"></div>');
    }
  });

  it('serves hashed assets immutable, precompressed by Accept-Encoding', async () => {
    const original = readFileSync(join(dir, 'assets', script));
    const br = await t.app.inject({
      method: 'GET',
      url: `/console/assets/${script}`,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(brotliDecompressSync(br.rawPayload).equals(original)).toBe(true);

    const gz = await t.app.inject({
      method: 'GET',
      url: `/console/assets/${script}`,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(original)).toBe(true);

    const plain = await t.app.inject({ method: 'GET', url: `/console/assets/${style}` });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^text\/css/);
    expect(plain.rawPayload.equals(readFileSync(join(dir, 'assets', style)))).toBe(true);
  });

  it('keeps the first page load (HTML, script, stylesheet, as served compressed) under 300 KB', async () => {
    const served = async (url: string, encoding: string) => {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': encoding } });
      expect(res.statusCode, url).toBe(200);
      return res.rawPayload.length;
    };
    const urls = ['/console/login', `/console/assets/${script}`, `/console/assets/${style}`];
    for (const encoding of ['br', 'gzip']) {
      let total = 0;
      for (const url of urls) total += await served(url, encoding);
      expect(total, encoding).toBeLessThan(300 * 1024);
    }
  });

  it('answers an unknown asset 404 with the Error body, not the shell', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/assets/missing-0000.js' });
    expectErrorBody(res, 404, 'not_found');
  });

  it('keeps the console out of the API document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(Object.keys(res.json().paths).filter((path) => path.startsWith('/console'))).toEqual([]);
  });
});

describe.each(dialects)('console without a build on %s', (dialect) => {
  it('answers 503 saying how to build it', async () => {
    const testDb = await freshDatabase(dialect);
    const config = testConfig(testDb.url);
    const database = createDatabase(config.database);
    await migrateToLatest(database);
    const app = await buildApp({
      config,
      database,
      logger: false,
      consoleDir: mkdtempSync(join(tmpdir(), 'no-console-')),
    });
    try {
      for (const url of ['/console', '/console/login']) {
        const body = expectErrorBody(await app.inject({ method: 'GET', url }), 503, 'service_unavailable');
        expect(body.message).toContain('npm run build');
      }
    } finally {
      await app.close();
      await database.close();
      await testDb.drop();
    }
  });
});
