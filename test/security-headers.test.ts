import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_HEADERS, responseHeaders } from '../src/core/security-headers.js';
import { createTestApp, dialects, type TestApp } from './helpers.js';

/** Every answer's security headers (the tests' base URL is https, so HSTS is among them). */
const ANSWER = Object.fromEntries(responseHeaders({ hsts: true }).map(([name, value]) => [name.toLowerCase(), value]));
const DOCUMENT = Object.fromEntries(DOCUMENT_HEADERS.map(([name, value]) => [name.toLowerCase(), value]));

function expectAnswerHeaders(res: LightMyRequestResponse): void {
  expect(res.headers).toMatchObject(ANSWER);
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
}

function expectNoDocumentHeaders(res: LightMyRequestResponse): void {
  for (const name of Object.keys(DOCUMENT)) expect(res.headers[name], name).toBeUndefined();
}

describe.each(dialects)('security headers on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => t.close());

  it('lists the headers the OWASP REST cheat sheet asks of every answer', () => {
    expect(Object.keys(ANSWER).sort()).toEqual([
      'cross-origin-resource-policy',
      'strict-transport-security',
      'x-content-type-options',
      'x-frame-options',
    ]);
    expect(responseHeaders({ hsts: false }).map(([name]) => name)).not.toContain('Strict-Transport-Security');
  });

  it('sends a JSON answer the answer headers only, and no Vary: Origin', async () => {
    for (const url of ['/health', '/api/v1/no-such-route']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expectAnswerHeaders(res);
      expectNoDocumentHeaders(res);
      expect(res.headers.vary).toBeUndefined();
    }
    const verify = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      payload: { id: 'unknown' },
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(verify.headers['access-control-allow-origin']).toBe('*');
    expect(verify.headers.vary).toBeUndefined();
    expectNoDocumentHeaders(verify);
  });

  it('sends every HTML answer, routed or not, the document headers as well', async () => {
    for (const url of ['/verify/no-such-issuer/no-such-credential', '/docs']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expectAnswerHeaders(res);
      expect(res.headers).toMatchObject(DOCUMENT);
    }
  });

  it('sends the answer headers on what the router refuses before any hook runs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expectAnswerHeaders(res);
  });

  it('answers a preflight with Vary on the headers it reads', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/verify',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers.vary).toBe('Origin, Access-Control-Request-Headers');
    expectAnswerHeaders(res);
  });
});
