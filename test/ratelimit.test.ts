import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase } from '../src/db/database.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  redisClient,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

describe.each(dialects)('rate limits on %s', (dialect) => {
  let t: TestApp;
  let limited: TestIssuer;
  let other: TestIssuer;

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { OPEN_RATE_LIMIT_PER_MINUTE: '3' } });
    await t.app.services.issuers.updatePlan('starter', { requestsPerMinute: 5 });
    limited = await t.issuer({ plan: 'starter' });
    other = await t.issuer({ plan: 'starter' });
  });
  afterAll(async () => t.close());

  it('gives the L+1st keyed request 429 with Retry-After; another key is unaffected', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(limited.key) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(4 - i));
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    }
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(limited.key) });
    expectErrorBody(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const fine = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: { 'x-api-key': other.key } });
    expect(fine.statusCode).toBe(200);
  });

  it('limits requests without a valid key per client address, bad keys included', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/issuer/me',
        headers: auth(`acc_${String(i).repeat(40)}`),
        remoteAddress: '198.51.100.7',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    const elsewhere = await t.app.inject({ method: 'GET', url: '/api/v1/issuer/me', remoteAddress: '198.51.100.8' });
    expect(elsewhere.statusCode).toBe(401);
  });

  it('exempts health, readiness and metrics', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/health', remoteAddress: '198.51.100.9' });
      expect(res.statusCode).toBe(200);
    }
  });
});

describe.each(dialects)('shared rate limits across replicas (Redis) on %s', (dialect) => {
  const redis = redisClient();
  it.runIf(redis !== null)('counts one key across two app instances', async () => {
    const t = await createTestApp(dialect, { redis });
    await t.app.services.issuers.updatePlan('starter', { requestsPerMinute: 4 });
    const issuer = await t.issuer({ plan: 'starter' });
    const database = createDatabase(t.config.database);
    const replica = await buildApp({ config: t.config, database, redis, logger: false });
    try {
      const apps = [t.app, replica, t.app, replica, t.app];
      const statuses = [];
      for (const app of apps) {
        statuses.push(
          (await app.inject({ method: 'GET', url: '/api/v1/issuer/me', headers: auth(issuer.key) })).statusCode,
        );
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await replica.close();
      await database.close();
      await t.close();
      redis?.disconnect();
    }
  });
});
