import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase } from '../src/db/database.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectKeyRequired,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

describe.each(dialects)('platform on %s', (dialect) => {
  let t: TestApp;
  let issuer: TestIssuer;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    issuer = await t.issuer({ slug: `plat-${dialect}` });
  });
  afterAll(async () => t.close());

  it('answers /api/v1/issuer/me with either key header', async () => {
    for (const headers of [auth(issuer.key), { 'x-api-key': issuer.key }]) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        id: issuer.id,
        slug: issuer.slug,
        name: expect.any(String),
        profileUrl: `https://badges.test/v1/issuers/${issuer.slug}`,
        url: expect.any(String),
        email: expect.any(String),
        description: null,
        imageUrl: null,
        brandColor: expect.stringMatching(/^#[0-9a-f]{6}$/i),
        language: 'en',
        linkedinOrganizationId: null,
      });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('refuses missing, malformed and unknown keys with 401', async () => {
    await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/issuer/me' });
  });

  it('refuses a revoked key', async () => {
    const created = await t.app.services.issuers.createKey(issuer.slug, 'temp');
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(created.key) })).statusCode,
    ).toBe(200);
    await t.app.services.issuers.revokeKey(issuer.slug, created.id);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(created.key) });
    expectErrorBody(res, 401, 'unauthorized');
  });

  it('refuses a key once another replica’s revocation has reached it through the change feed', async () => {
    const created = await t.app.services.issuers.createKey(issuer.slug, 'replicated');
    await t.app.services.changeFeed?.whenLive();
    const other = createDatabase(t.config.database);
    const replica = await buildApp({ config: t.config, database: other, logger: false, redis: null });
    try {
      // Both replicas have looked the key up (on PostgreSQL, with the lookup prepared on their connections).
      for (const app of [t.app, replica]) {
        const res = await app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(created.key) });
        expect(res.statusCode).toBe(200);
      }
      await replica.services.issuers.revokeKey(issuer.slug, created.id);
      // Delivered within milliseconds; the fence comes back after it (src/db/change-feed.ts).
      await t.app.services.changeFeed?.fence();
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(created.key) });
      expectErrorBody(res, 401, 'unauthorized');
    } finally {
      await replica.close();
      await other.close();
    }
  });

  it('answers unknown routes with a 404 Error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nope' });
    expectErrorBody(res, 404, 'not_found');
  });

  it('serves liveness and readiness', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('serves Prometheus metrics with request counts by route', async () => {
    await t.app.inject({ method: 'GET', url: '/health' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/health",status="200"\} \d+/);
    expect(res.body).toContain('http_request_duration_seconds_bucket');
    expect(res.body).toContain('accolade_credentials_issued_total');
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });

  it('lists audit records for the key holder only', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=5', headers: auth(issuer.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: expect.any(Number), limit: 5, offset: 0, items: expect.any(Array) });
    await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/audit' });
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/audit?limit=500', headers: auth(issuer.key) });
    expectErrorBody(bad, 400, 'validation_failed');
    expect((bad.json() as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
  });

  it('refuses an unpaired surrogate in a body with 400 (PostgreSQL refuses its JSON escape)', async () => {
    // The fuzzer's case (seed 178110698): a lone high surrogate in a completion's name was a 500 on PostgreSQL.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/completions',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: '{"recipientEmail":"lone@example.test","definitionRef":"x","recipientName":"\u007f\\t\\ud800.\u007f"}',
    });
    // Its DEL and tab are control characters, which a name refuses first (issue 37.8).
    expect(expectErrorBody(res, 400, 'validation_failed').issues).toEqual([
      expect.objectContaining({ path: '/recipientName', code: 'pattern' }),
    ]);
    const lone = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/completions',
      headers: { ...auth(issuer.key), 'content-type': 'application/json' },
      payload: '{"recipientEmail":"lone@example.test","definitionRef":"x","recipientName":"\\ud800."}',
    });
    expect(expectErrorBody(lone, 400, 'validation_failed').issues).toEqual([
      {
        path: '/recipientName',
        message: 'body/recipientName must not contain an unpaired surrogate (U+D800-U+DFFF)',
        code: 'surrogate',
      },
    ]);
    const paired = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Paired \ud83d\ude00 Badge', description: 'd' },
    });
    expect(paired.statusCode, paired.body).toBe(201);
  });

  it('refuses the NUL character in a body, a query or a path with 400 (PostgreSQL text cannot hold it)', async () => {
    const body = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(issuer.key),
      payload: { name: 'Null\u0000Byte', description: 'd' },
    });
    expect(expectErrorBody(body, 400, 'validation_failed').issues).toEqual([
      { path: '/name', message: 'body/name must not contain the NUL character (U+0000)', code: 'nul' },
    ]);
    for (const url of [
      '/api/v1/credentials/%00abc',
      '/api/v1/credentials?definitionId=a%00b',
      '/v1/issuers/x%00/badges/y',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: auth(issuer.key) });
      expectErrorBody(res, 400, 'validation_failed');
    }
  });

  it('refuses an audit offset beyond an exact integer with 400, not a failed query', async () => {
    const huge = await t.app.inject({ method: 'GET', url: '/api/v1/audit?offset=1e308', headers: auth(issuer.key) });
    expectErrorBody(huge, 400, 'validation_failed');
    const largest = await t.app.inject({
      method: 'GET',
      url: `/api/v1/audit?offset=${Number.MAX_SAFE_INTEGER}`,
      headers: auth(issuer.key),
    });
    expect(largest.statusCode, largest.body).toBe(200);
    expect(largest.json().items).toEqual([]);
  });

  it('reports usage for the plan', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: auth(issuer.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      planCode: 'enterprise',
      issuanceQuota: null,
      issuanceUsed: 0,
      premiumVerification: true,
      metering: { issuance: 0, premiumVerification: 0 },
    });
  });
});
