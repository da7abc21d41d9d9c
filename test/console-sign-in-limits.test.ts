import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Counter, createRateLimits } from '../src/core/rate-limit.js';
import {
  ACCOUNT_DELAY_MAX_MS,
  ACCOUNT_FREE_FAILURES,
  ADDRESS_FAILURES_MAX,
  accountDelayMs,
  CHECKS_IN_FLIGHT_MAX,
  createSignInLimits,
} from '../src/modules/accounts/sign-in-limits.js';
import { consoleUser, PASSWORD } from './console.support.js';
import { createTestApp, dialects, redisClient, type TestApp } from './helpers.js';

/** Addresses and emails of this run: Redis keeps its counts between runs for 15 minutes. */
const run = randomBytes(4).toString('hex');
const octet = () => 1 + ((randomBytes(1)[0] ?? 0) % 250);

const stores = [
  { name: 'this process', redis: false },
  ...(process.env.REDIS_URL ? [{ name: 'Redis', redis: true }] : []),
];

describe.each(stores)('sign-in limits counted in $name', ({ redis: shared }) => {
  const redis = shared ? redisClient() : null;
  let count: Counter;

  beforeAll(() => {
    count = createRateLimits({ openPerMinute: 300, redis, log: pino({ level: 'silent' }) }).count;
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it(`lets exactly ${ADDRESS_FAILURES_MAX} of 150 parallel attempts from one address through, across replicas`, async () => {
    // One limits object per attempt: as if each came to another replica, so no local slot helps.
    const address = `198.51.100.${octet()}-${run}`;
    const admissions = await Promise.all(
      Array.from({ length: 150 }, (_, i) => createSignInLimits(count).admit(`p${i}-${run}@example.org`, address)),
    );
    const admitted = admissions.filter((a) => 'ticket' in a);
    expect(admitted).toHaveLength(ADDRESS_FAILURES_MAX);
    for (const refused of admissions.filter((a) => 'retryAfterSeconds' in a)) {
      expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(800);
    }
  });

  it('lets one account be tried only a bounded number of times by parallel attempts from failed addresses', async () => {
    const email = `target-${run}@example.org`;
    const addresses = Array.from({ length: 150 }, (_, i) => `203.0.113.${i}-${run}`);
    // Each address has failed once before (elsewhere), so the account's delay applies to it.
    for (const address of addresses) await count(`signin-ip:${address}`, 15 * 60_000, 1);
    const admissions = await Promise.all(addresses.map((a) => createSignInLimits(count).admit(email, a)));
    const admitted = admissions.filter((a) => 'ticket' in a).length;
    expect(admitted).toBeGreaterThanOrEqual(ACCOUNT_FREE_FAILURES);
    expect(admitted).toBeLessThanOrEqual(ACCOUNT_FREE_FAILURES + 1);
  });

  it('takes a successful attempt back from both counts', async () => {
    const limits = createSignInLimits(count);
    const address = `192.0.2.${octet()}-${run}`;
    const admission = await limits.admit(`back-${run}@example.org`, address);
    if (!('ticket' in admission)) throw new Error('refused');
    expect((await count(`signin-ip:${address}`, 15 * 60_000, 0)).current).toBe(1);
    await admission.ticket.succeeded();
    expect((await count(`signin-ip:${address}`, 15 * 60_000, 0)).current).toBe(0);
  });

  it(`runs at most ${CHECKS_IN_FLIGHT_MAX} checks at once per account and per address on one server`, async () => {
    const limits = createSignInLimits(count);
    const email = `slots-${run}@example.org`;
    const first = await Promise.all(
      Array.from({ length: 5 }, (_, i) => limits.admit(email, `192.0.2.${i}-${run}-slots`)),
    );
    expect(first.filter((a) => 'ticket' in a)).toHaveLength(CHECKS_IN_FLIGHT_MAX);
    expect(first.filter((a) => 'retryAfterSeconds' in a)).toHaveLength(5 - CHECKS_IN_FLIGHT_MAX);
    for (const a of first) if ('ticket' in a) a.ticket.failed();
    expect('ticket' in (await limits.admit(email, `192.0.2.9-${run}-slots`))).toBe(true);
  });
});

describe('the account delay', () => {
  it('starts at one second past the free failures, doubles, and stops growing', () => {
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES - 1)).toBe(0);
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES)).toBe(1000);
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES + 1)).toBe(2000);
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES + 3)).toBe(8000);
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES + 40)).toBe(ACCOUNT_DELAY_MAX_MS);
  });
});

describe.each(dialects)('sign-in under parallel guessing on %s', (dialect) => {
  let t: TestApp;
  const redis = redisClient();

  beforeAll(async () => {
    t = await createTestApp(dialect, { redis, env: { OPEN_RATE_LIMIT_PER_MINUTE: '10000' } });
  });
  afterAll(async () => {
    await t.close();
    await redis?.quit();
  });

  it('150 parallel guesses from one address: none gets in, not even the right password, and few are hashed', async () => {
    const issuer = await t.issuer();
    const user = await consoleUser(t.app, issuer.id, 'viewer', `race-${run}-${dialect}@example.org`);
    const address = `10.${octet()}.${octet()}.${octet()}`;
    const responses = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/session',
          remoteAddress: address,
          payload: { email: user.email, password: i === 140 ? PASSWORD : `wrong guess number ${i}` },
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(0);
    expect(statuses[140]).toBe(429);
    const hashed = statuses.filter((s) => s === 401).length;
    expect(hashed).toBeGreaterThan(0);
    expect(hashed).toBeLessThanOrEqual(ACCOUNT_FREE_FAILURES + 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(150 - hashed);

    // The user, from an address that has not failed, still gets in.
    const owner = await t.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      remoteAddress: `10.${octet()}.${octet()}.${octet()}`,
      payload: { email: user.email, password: PASSWORD },
    });
    expect(owner.statusCode, owner.body).toBe(200);
  }, 120_000);
});
