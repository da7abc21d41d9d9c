import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase } from '../src/db/database.js';
import { createTestApp, dialects, type TestApp, testConfig } from './helpers.js';

describe.each(dialects)('operations on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
  });
  afterAll(async () => t.close());

  it('protects /metrics with METRICS_TOKEN when set', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const wrong = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    const ok = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('sets security headers on every response', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toContain('max-age=');
  });
});

describe('readiness without a database', () => {
  it('answers 503 with a body when PostgreSQL cannot be reached, and liveness stays up', async () => {
    const config = testConfig('postgres://postgres@127.0.0.1:1/none');
    const database = createDatabase(config.database);
    const app = await buildApp({ config, database, logger: false });
    try {
      // Started first: the first request would otherwise wait for the routes' serializers to be
      // compiled, and the bound below is the readiness check's (2 s timeout), not the start's.
      await app.ready();
      const started = Date.now();
      const ready = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: 'failing' } });
      expect(ready.headers['retry-after']).toBe('5');
      // Bounded, not timed: a readiness check that waited on the unreachable database would take the
      // pool's connect timeout and more; a loaded machine's slowness stays far below this.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      const keyed = await app.inject({
        method: 'GET',
        url: '/api/v1/issuer/me',
        headers: { 'x-api-key': `acc_${'z'.repeat(40)}` },
      });
      expect(keyed.statusCode).toBe(503);
      expect(keyed.json()).toMatchObject({ error: 'service_unavailable' });
    } finally {
      await app.close();
      await database.close();
    }
  });
});
