import { get as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialects, type TestApp } from './helpers.js';
import { createDefinition, freePort, issue } from './verification.support.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET over a real socket: what a proxy sees, headers and bytes as sent. */
function raw(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
  });
}

/** RFC 9110 §15.4.5: a 304 carries no content, so neither a content type nor a content length. */
function expectBare304(res: RawResponse, label: string): void {
  expect(res.status, label).toBe(304);
  expect(res.headers['content-type'], label).toBeUndefined();
  expect(res.headers['content-length'], label).toBeUndefined();
  expect(res.headers['transfer-encoding'], label).toBeUndefined();
  expect(res.body, label).toBe('');
}

describe.each(dialects)('conditional responses on %s', (dialect) => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(dialect, { env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the embed script with a bare 304 for any matching If-None-Match form', async () => {
    const first = await raw(`${base}/embed/v1.js`);
    const etag = String(first.headers.etag);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await raw(`${base}/embed/v1.js`, { 'if-none-match': header });
      expectBare304(res, header);
      expect(res.headers.etag, header).toBe(etag);
      expect(res.headers['cache-control'], header).toBe('public, max-age=3600');
    }
    const stale = await raw(`${base}/embed/v1.js`, { 'if-none-match': '"not-this-version"' });
    expect(stale.status).toBe(200);
    expect(stale.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(stale.body).toBe(first.body);
  });

  it('answers the API explorer assets with a bare 304', async () => {
    const first = await raw(`${base}/docs/static/swagger-ui.css`);
    expect(first.status).toBe(200);
    const res = await raw(`${base}/docs/static/swagger-ui.css`, { 'if-none-match': String(first.headers.etag) });
    expectBare304(res, 'swagger-ui.css');
  });

  it('never answers documents and images conditionally: they carry no validator to revalidate', async () => {
    const issuer = await t.issuer();
    const definition = await createDefinition(t, issuer, { name: 'Data Literacy' });
    const credential = await issue(t, issuer, definition.id, { email: 'ada@example.test' });
    for (const url of [
      credential.assertionUrl,
      `${credential.assertionUrl}/image.svg`,
      credential.badgeClassUrl,
      `${credential.badgeClassUrl}/image.svg`,
      credential.verifyUrl,
    ]) {
      const first = await raw(url);
      expect(first.status, url).toBe(200);
      expect(first.headers.etag, url).toBeUndefined();
      expect(first.headers['last-modified'], url).toBeUndefined();
      const again = await raw(url, { 'if-none-match': '*', 'if-modified-since': new Date().toUTCString() });
      expect(again.status, url).toBe(200);
    }
  });
});
