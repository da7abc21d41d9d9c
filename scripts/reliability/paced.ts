import { Agent, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './load.harness.js';
import { fiveXxOf, issueBody, type MixedLoadResult, reconcileIssues, verifyTarget } from './load.js';

/** An answer later than this counts as a timeout, as autocannon's default does. */
const TIMEOUT_MS = 10_000;

interface Planned {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The issue's completion key, for reconciling rows with answers. */
  key?: string;
}

/**
 * How many requests a paced run owes `elapsedMs` after its start at `rate` a second: one more every
 * 1000/rate ms, never a second's share at once (the schedule `pacedLoad` follows; when the machine
 * stalls, the owed requests wait for free connections and go as soon as they can).
 */
export function owedRequests(elapsedMs: number, rate: number): number {
  return Math.floor((Math.max(0, elapsedMs) * rate) / 1000);
}

/**
 * The soak's traffic: issue (a unique completion key each) → verify → list in turn, like
 * `mixedLoad`, but each request starts at its own evenly spaced time, `rate` a second, with at most
 * `connections` in flight (a request whose turn comes while all are busy starts when one frees).
 *
 * autocannon's `overallRate` is a quota per connection and second: every connection sends its
 * share at the start of each second as fast as answers come, then waits for the next second. At
 * half the maximum rate the server was therefore saturated for half of every second and idle for
 * the other half, and the event-loop delay measured that queue rather than a server at half load.
 */
export async function pacedLoad(
  baseUrl: string,
  seeded: { key: string; definitionId: string },
  options: { seconds: number; connections: number; keyPrefix: string; rate: number },
): Promise<Omit<MixedLoadResult, 'engine' | 'rowsAfterRun' | 'rowDiscrepancy' | 'peakRssMb'>> {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const verifyBody = await verifyTarget(baseUrl, seeded, options.keyPrefix);
  const json = { 'content-type': 'application/json' };
  const auth = { authorization: `Bearer ${seeded.key}` };

  let planned = 0;
  const next = (): Planned => {
    const turn = planned++;
    if (turn % 3 === 0) {
      const key = `${options.keyPrefix}${turn / 3}`;
      return {
        method: 'POST',
        path: '/api/v1/credentials',
        headers: { ...json, ...auth },
        body: JSON.stringify(issueBody(seeded.definitionId, key)),
        key,
      };
    }
    if (turn % 3 === 1) return { method: 'POST', path: '/api/v1/verify', headers: json, body: verifyBody };
    return { method: 'GET', path: '/api/v1/credentials?limit=20', headers: auth };
  };

  const sent = new Set<string>();
  const answered = new Map<string, number>();
  const status: Record<string, number> = {};
  const latencies: number[] = [];
  let inFlight = 0;
  let socketErrors = 0;
  let timeouts = 0;

  const send = (plan: Planned) => {
    inFlight++;
    if (plan.key) sent.add(plan.key);
    const started = performance.now();
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: plan.method,
        path: plan.path,
        headers: plan.body ? { ...plan.headers, 'content-length': Buffer.byteLength(plan.body) } : plan.headers,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          inFlight--;
          const code = res.statusCode ?? 0;
          status[String(code)] = (status[String(code)] ?? 0) + 1;
          latencies.push(performance.now() - started);
          if (plan.key) answered.set(plan.key, code);
        });
      },
    );
    req.on('timeout', () => {
      timeouts++;
      req.destroy(new Error('timeout'));
    });
    req.on('error', (err) => {
      inFlight--;
      if (err.message !== 'timeout') socketErrors++;
    });
    req.end(plan.body);
  };

  const startedAt = performance.now();
  const endAt = startedAt + options.seconds * 1000;
  // Requests whose time has come, waiting for a free connection; those left when the clock stops
  // are not sent.
  const due: Planned[] = [];
  for (let now = startedAt; now < endAt; now = performance.now()) {
    const owed = owedRequests(now - startedAt, options.rate);
    while (planned < owed) due.push(next());
    while (due.length > 0 && inFlight < options.connections) send(due.shift() as Planned);
    await sleep(1);
  }
  const elapsed = (performance.now() - startedAt) / 1000;
  while (inFlight > 0) await sleep(10);
  agent.destroy();

  return {
    seconds: options.seconds,
    connections: options.connections,
    rps: Math.round(latencies.length / elapsed),
    p50Ms: Math.round(percentile(latencies, 50)),
    p99Ms: Math.round(percentile(latencies, 99)),
    maxMs: Math.round(percentile(latencies, 100)),
    requests: latencies.length,
    status,
    fiveXx: fiveXxOf(status),
    socketErrors,
    timeouts,
    ...(await reconcileIssues(baseUrl, seeded, sent, answered)),
  };
}
