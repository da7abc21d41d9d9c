import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { owedRequests, pacedLoad } from '../scripts/reliability/paced.js';

/*
 * The soak's load generator: its schedule spreads requests evenly over each second rather than as
 * a burst at the start of every second (checked on the schedule itself, which no machine's speed
 * changes), and against a stub server it sends what it owes in the issue → verify → list cycle.
 */
describe('reliability: paced schedule', () => {
  it('owes one request more every 1000/rate ms, never a second’s share at once', () => {
    const rate = 200;
    const perTenth = new Array(30).fill(0);
    for (let ms = 1; ms <= 3000; ms++) {
      const added = owedRequests(ms, rate) - owedRequests(ms - 1, rate);
      expect(added).toBeLessThanOrEqual(1);
      perTenth[Math.floor((ms - 1) / 100)] += added;
    }
    // autocannon's overallRate would put a second's share (200) in the first bin of each second.
    expect(perTenth).toEqual(new Array(30).fill(rate / 10));
    expect(owedRequests(3000, rate)).toBe(rate * 3);
    expect(owedRequests(-5, rate)).toBe(0);
  });
});

describe('reliability: paced load', () => {
  let server: Server;
  let baseUrl: string;
  const arrivals: { method: string; url: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      arrivals.push({ method: req.method ?? '', url: req.url ?? '' });
      req.resume();
      req.on('end', () => {
        const created = req.method === 'POST' && req.url === '/api/v1/credentials';
        res.writeHead(created ? 201 : 200, { 'content-type': 'application/json' });
        res.end(created ? '{"credentialId":"c-1"}' : '{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('starts requests at an even rate, cycles issue → verify → list, and reconciles every issue', async () => {
    const rate = 200;
    const result = await pacedLoad(
      baseUrl,
      { key: 'k', definitionId: 'd' },
      {
        seconds: 3,
        connections: 10,
        keyPrefix: 'paced-',
        rate,
      },
    );
    // The first arrival is the verify target's issue, sent before the clock starts.
    const run = arrivals.slice(1);
    expect(run.length).toBe(result.requests);
    // At most the rate; how near it comes is the machine's business (a loaded 2-core machine may fall
    // well behind), so no floor beyond one full cycle is asserted (issue 46).
    expect(result.requests).toBeGreaterThanOrEqual(3);
    expect(result.requests).toBeLessThanOrEqual(rate * 3);
    expect(result).toMatchObject({ fiveXx: 0, socketErrors: 0, timeouts: 0 });

    // The generator cycles issue → verify → list. Ten connections may deliver neighbours out of
    // order on a loaded machine (issue 46), so the cycle is checked by the counts: all three kinds,
    // none more than one ahead of another.
    const kinds = run.map((a) => `${a.method} ${a.url}`);
    const counts = ['POST /api/v1/credentials', 'POST /api/v1/verify', 'GET /api/v1/credentials?limit=20'].map(
      (kind) => kinds.filter((k) => k === kind).length,
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(kinds.length);
    expect(Math.max(...counts) - Math.min(...counts), JSON.stringify(counts)).toBeLessThanOrEqual(1);
    const issues = kinds.filter((k) => k === 'POST /api/v1/credentials').length;
    expect(result.issuance).toEqual({ sent: issues, created201: issues, answeredOther: 0, unanswered: 0 });
  });
});
