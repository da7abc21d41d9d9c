import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/reliability/load.harness.js';
import { findNginx, NGINX_MISSING, nginxConfig, upstreamPortOf } from '../scripts/scale-out/cluster.js';
import { QUICK_SIZES, runScaleOut } from '../scripts/scale-out/run.js';

const postgresUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.REDIS_URL;

describe('scale-out: the proxy configuration', () => {
  it('overwrites X-Forwarded-For and lists every replica', () => {
    const config = nginxConfig({
      prefix: '/tmp/p',
      listenPort: 8080,
      upstreamPorts: [3001, 3002],
      failTimeoutSeconds: 2,
    });
    expect(config).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    expect(config).toContain('server 127.0.0.1:3001 max_fails=1 fail_timeout=2s;');
    expect(config).toContain('server 127.0.0.1:3002 max_fails=1 fail_timeout=2s;');
  });

  it('names the replica that answered, the last one tried after a failover', () => {
    expect(upstreamPortOf('127.0.0.1:3001')).toBe(3001);
    expect(upstreamPortOf('127.0.0.1:3002, 127.0.0.1:3001')).toBe(3001);
    expect(upstreamPortOf(undefined)).toBeNull();
  });
});

describe.skipIf(!postgresUrl || !redisUrl)('scale-out: two replicas and workers behind nginx (quick tier)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('shared rate limits, idempotency, exactly-once webhooks, no lost work after a SIGKILL', async () => {
    // CI installs nginx; a machine with PostgreSQL and Redis but without nginx fails here, not skips.
    if (!findNginx()) throw new Error(NGINX_MISSING);
    const report = await runScaleOut({
      postgresUrl: postgresUrl as string,
      redisUrl: redisUrl as string,
      sizes: QUICK_SIZES,
      log: () => {},
    });
    expect(report.checks.filter((c) => !c.pass)).toEqual([]);
    const { rateLimit, idempotency, webhooks, kill } = report.figures;
    expect(rateLimit?.keyed.succeeded).toBe(QUICK_SIZES.rateLimit);
    expect(idempotency?.credentials).toBe(QUICK_SIZES.idempotencyKeys);
    expect(webhooks?.count.deliveries).toBe(QUICK_SIZES.webhookIssued + QUICK_SIZES.webhookExpiring);
    expect(webhooks?.count.repeatedDeliveryIds).toBe(0);
    expect(kill?.lost).toBe(0);
    expect(kill?.rows).toBe(QUICK_SIZES.killRequests);
  }, 180_000);
});
