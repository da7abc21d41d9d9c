import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { answersOk, freePort, READY_WITHIN_MS, SERVER_NODE_FLAGS } from '../../bench/lib/harness.js';
import {
  createReport,
  enginesFor,
  HARNESS_SIGNING_KEY_SECRET,
  percentile,
  type ReliabilityReport,
  type RunOptions,
  request,
  round,
  seedIssuer,
  tally,
  withDatabase,
} from './load.harness.js';

/**
 * Issue 21's attacks on the front door, each against the built server in its own process:
 * url-stall (long URLs against the log redaction), proxy-spoof (forged X-Forwarded-For against the
 * open limit), slow-body (bodies trickled a byte at a time) and key-in-query (keys and emails in
 * URLs against the log). Only proxy-spoof touches the database per request, so it alone runs on
 * each engine; the others run on SQLite.
 */

interface FrontServer {
  url: string;
  pid: number;
  /** Everything the server wrote to stdout (its JSON log lines), when captured. */
  output(): string;
  openFiles(): number;
  stop(): Promise<void>;
}

/** Starts dist/src/server.js with its stdout piped (kept when `capture`, drained otherwise). */
async function startFrontServer(env: Record<string, string>, capture = false): Promise<FrontServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'dist/src/server.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
      BOOTSTRAP_ISSUER: 'false',
      SIGNING_KEY_SECRET: HARNESS_SIGNING_KEY_SECRET,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    if (capture) chunks.push(chunk);
  });
  let exited = false;
  const exit = new Promise((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve(null);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_WITHIN_MS;
  while (!(await answersOk(`${url}/health/ready`))) {
    if (exited) throw new Error('server exited before it was ready');
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('server did not become ready');
    }
    await sleep(100);
  }
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    output: () => Buffer.concat(chunks).toString('utf8'),
    openFiles: () => {
      try {
        return readdirSync(`/proc/${pid}/fd`).length;
      } catch {
        return 0;
      }
    },
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      await exit;
    },
  };
}

/** Runs the server with `env` and answers its exit code and stderr, for settings it must refuse. */
async function refusedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(await freePort()), BOOTSTRAP_ISSUER: 'false', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stderr };
}

/** Latencies of /health probed one after another every `everyMs` until `until()` says stop. */
async function probeHealth(url: string, everyMs: number, until: () => boolean) {
  const latencies: number[] = [];
  let failures = 0;
  while (!until()) {
    const res = await request(`${url}/health`, { timeoutMs: 5_000 });
    if (res.status === 200) latencies.push(res.ms);
    else failures++;
    await sleep(everyMs);
  }
  return {
    probes: latencies.length + failures,
    failures,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(Math.max(0, ...latencies)),
    meanMs: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
  };
}

export const URL_STALL_CLIENTS = 4;
export const URL_STALL_PER_CLIENT_PER_S = 4;
/** Over the 8 KiB limit (414) yet under Node's 16 KiB header limit, as the issue's 16 KB URLs. */
const LONG_URL_CHARS = 15_000;
/** Just under the limit: routed, and its URL redacted for the log line. */
const NEAR_LIMIT_CHARS = 8_000;

/**
 * The url-stall attackers, in a process of their own as real attackers are: four clients, each
 * sending URL_STALL_PER_CLIENT_PER_S requests a second, alternating a URL over the 8 KiB limit and
 * one just under it. Prints every answer's status and time as JSON when done.
 */
const ATTACKERS = `
const [url, seconds, clients, perSecond, long, near] = process.argv.slice(1).map((a, i) => (i === 0 ? a : Number(a)));
const statuses = [];
const ms = [];
const started = performance.now();
async function client(n) {
  for (let i = 0; performance.now() - started < seconds * 1000; i++) {
    const t = performance.now();
    const path = '/verify/x/' + 'a'.repeat(i % 2 === 0 ? long : near) + n;
    try {
      const res = await fetch(url + path, { signal: AbortSignal.timeout(10000) });
      await res.arrayBuffer();
      statuses.push(res.status);
    } catch {
      statuses.push(0);
    }
    const took = performance.now() - t;
    ms.push(took);
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 / perSecond - took)));
  }
}
Promise.all(Array.from({ length: clients }, (_, n) => client(n))).then(() => process.stdout.write(JSON.stringify({ statuses, ms })));
`;

async function attackFromElsewhere(url: string, seconds: number): Promise<{ statuses: number[]; ms: number[] }> {
  const args = [url, seconds, URL_STALL_CLIENTS, URL_STALL_PER_CLIENT_PER_S, LONG_URL_CHARS, NEAR_LIMIT_CHARS];
  const child = spawn(process.execPath, ['-e', ATTACKERS, ...args.map(String)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(out) as { statuses: number[]; ms: number[] };
}

/**
 * Issue 21 item 1: four clients (another process) each send four long URLs a second (one over the
 * 8 KiB limit, the next just under it, both one unbroken run the old expression backtracked over)
 * while /health is probed every 100 ms; the same probing without the attack first is the control. The server logs
 * at info, as in production, so every request's URL passes through the redaction. The full tier
 * holds the issue's bar, /health p99 under 100 ms during the attack; the quick tier, which runs
 * inside `npm test` on a shared machine whose own load moves the p99 by hundreds of ms, holds the
 * attack's median within QUICK_MEDIAN_SLACK_MS of the control's: the control and the attack run one
 * after the other and the machine's own load moves between them (50 ms failed under load; issue 46),
 * while before the fix the attack stalled /health for seconds.
 */
export const QUICK_MEDIAN_SLACK_MS = 500;

export async function runUrlStall(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('url-stall', options);
  const seconds = options.full ? 30 : 5;
  const figures = await withDatabase('sqlite', null, async (databaseUrl) => {
    const server = await startFrontServer({ DATABASE_URL: databaseUrl, OPEN_RATE_LIMIT_PER_MINUTE: '100000000' });
    try {
      const controlStarted = performance.now();
      const control = await probeHealth(server.url, 100, () => performance.now() - controlStarted > seconds * 1000);
      const started = performance.now();
      const done = () => performance.now() - started > seconds * 1000;
      const [health, attack] = await Promise.all([
        probeHealth(server.url, 100, done),
        attackFromElsewhere(server.url, seconds),
      ]);
      const statuses = attack.statuses;
      return {
        seconds,
        clients: URL_STALL_CLIENTS,
        requestsPerClientPerSecond: URL_STALL_PER_CLIENT_PER_S,
        attackRequests: statuses.length,
        attackStatus: tally(statuses),
        attackP99Ms: round(percentile(attack.ms, 99)),
        control,
        health,
      };
    } finally {
      await server.stop();
    }
  });
  report.figures.sqlite = figures;
  const { health, control } = figures;
  const detail = `during the attack p50 ${health.p50Ms} ms, p99 ${health.p99Ms} ms, max ${health.maxMs} ms over ${health.probes} probes (${health.failures} failed); control p50 ${control.p50Ms} ms, p99 ${control.p99Ms} ms`;
  if (options.full) {
    report.check('/health p99 under 100 ms during the attack', health.p99Ms < 100 && health.failures === 0, detail);
  } else {
    report.check(
      `/health median within ${QUICK_MEDIAN_SLACK_MS} ms of the control during the attack`,
      health.p50Ms <= control.p50Ms + QUICK_MEDIAN_SLACK_MS && health.failures === 0,
      detail,
    );
  }
  report.check(
    'long URLs answered 414, near-limit URLs routed, nothing else',
    (figures.attackStatus['414'] ?? 0) > 0 &&
      (figures.attackStatus['404'] ?? 0) > 0 &&
      Object.keys(figures.attackStatus).every((s) => s === '414' || s === '404'),
    `${figures.attackRequests} attack requests: ${JSON.stringify(figures.attackStatus)}`,
  );
  return report.finish(
    `/health p50 ${health.p50Ms} ms, p99 ${health.p99Ms} ms under ${URL_STALL_CLIENTS} long-URL clients (control p99 ${control.p99Ms} ms)`,
  );
}

/**
 * Issue 21 item 5: behind one trusted proxy (this script, on loopback, appending the address it
 * saw), one client sends requests each with a different forged left-most X-Forwarded-For entry:
 * exactly the open limit pass. A start with TRUST_PROXY=true is refused, saying what to set.
 */
export async function runProxySpoof(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('proxy-spoof', options);
  const limit = options.full ? 300 : 30;
  const requests = Math.round((limit * 4) / 3);
  const refused = await refusedStart({ TRUST_PROXY: 'true', DATABASE_URL: 'sqlite::memory:' });
  report.figures.trustProxyTrue = { exitCode: refused.code, message: refused.stderr.trim().slice(0, 400) };
  report.check(
    'TRUST_PROXY=true refused at start-up',
    refused.code !== 0 && /TRUST_PROXY/.test(refused.stderr) && /TRUST_PROXY=1/.test(refused.stderr),
    `exit ${refused.code}: ${refused.stderr.trim().split('\n').slice(-1)[0] ?? ''}`,
  );
  for (const engine of enginesFor(options)) {
    const leg = await withDatabase(engine, options.postgresUrl, async (databaseUrl) => {
      const server = await startFrontServer({
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
        TRUST_PROXY: '127.0.0.1',
        OPEN_RATE_LIMIT_PER_MINUTE: String(limit),
      });
      try {
        const send = (n: number) =>
          fetch(`${server.url}/api/v1/verify`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-forwarded-for': `192.0.2.${n % 250}, 198.51.100.${(n * 7) % 250}, 203.0.113.7`,
            },
            body: JSON.stringify({ id: 'no-such-credential' }),
            signal: AbortSignal.timeout(30_000),
          }).then(
            async (res) => {
              await res.arrayBuffer();
              return res.status;
            },
            () => 0,
          );
        const statuses = await Promise.all(Array.from({ length: requests }, (_, n) => send(n)));
        const other = await fetch(`${server.url}/api/v1/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1, 203.0.113.8' },
          body: JSON.stringify({ id: 'no-such-credential' }),
        }).then((res) => res.status);
        return {
          engine,
          limit,
          requests,
          status: tally(statuses),
          passed: statuses.filter((s) => s === 200).length,
          otherClient: other,
        };
      } finally {
        await server.stop();
      }
    });
    report.figures[engine] = leg;
    report.check(
      `${engine}: forged left-most X-Forwarded-For does not bypass the limit`,
      leg.passed === limit && leg.status['429'] === requests - limit && leg.otherClient === 200,
      `${leg.passed}/${leg.requests} passed a limit of ${limit}/min (${JSON.stringify(leg.status)}); another client behind the proxy: ${leg.otherClient}`,
    );
  }
  return report.finish(`forged X-Forwarded-For: at most the limit passes; TRUST_PROXY=true refused`);
}

/** One connection trickling a POST body a byte every `everyMs`; resolves with when it was closed. */
function trickleConnection(port: number, everyMs: number, bodyBytes: number) {
  return new Promise<{ closedAfterMs: number; sent: number; status: string }>((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let sent = 0;
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: performance.now() - started, sent, status: answer.slice(9, 12) || 'none' });
    });
    socket.on('connect', () => {
      socket.write(
        `POST /api/v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`,
      );
      timer = setInterval(() => {
        if (sent < bodyBytes) {
          socket.write('x');
          sent++;
        }
      }, everyMs);
    });
  });
}

/**
 * Issue 21 item 6: many connections each trickle a POST body a byte at a time; every one must be
 * closed within the request timeout (plus Node's 1 s check and 4 s of scheduling), the server's file descriptors return
 * and /health answers throughout. The full tier runs the default 30 s timeout, the quick one 2 s.
 */
export async function runSlowBody(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('slow-body', options);
  const connections = options.full ? 500 : 50;
  const timeoutMs = options.full ? 30_000 : 2_000;
  const everyMs = options.full ? 1_000 : 200;
  // Node looks for overdue connections every second; closing hundreds at once on a loaded machine
  // takes a few more. Before the fix none was ever closed (one was still open after 420 s).
  const slackMs = 5_000;
  const figures = await withDatabase('sqlite', null, async (databaseUrl) => {
    const server = await startFrontServer({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
      ...(options.full ? {} : { HTTP_REQUEST_TIMEOUT_MS: String(timeoutMs), HTTP_HEADERS_TIMEOUT_MS: '1000' }),
    });
    try {
      const port = Number(new URL(server.url).port);
      const filesBefore = server.openFiles();
      let finished = false;
      let peakFiles = filesBefore;
      const sampler = setInterval(() => {
        peakFiles = Math.max(peakFiles, server.openFiles());
      }, 250);
      const trickles = Promise.all(
        Array.from({ length: connections }, () => trickleConnection(port, everyMs, 100_000)),
      ).finally(() => {
        finished = true;
      });
      const [closed, health] = await Promise.all([trickles, probeHealth(server.url, 200, () => finished)]);
      clearInterval(sampler);
      await sleep(500);
      const closedMs = closed.map((c) => c.closedAfterMs);
      return {
        connections,
        requestTimeoutMs: timeoutMs,
        byteEveryMs: everyMs,
        closedAfterMs: { min: round(Math.min(...closedMs)), max: round(Math.max(...closedMs)) },
        answers: tally(closed.map((c) => Number(c.status) || 0)),
        bytesSentMax: Math.max(...closed.map((c) => c.sent)),
        openFiles: { before: filesBefore, peak: peakFiles, after: server.openFiles() },
        health,
      };
    } finally {
      await server.stop();
    }
  });
  report.figures.sqlite = figures;
  report.check(
    'every trickling connection closed within the request timeout',
    figures.closedAfterMs.max <= timeoutMs + slackMs,
    `${connections} connections closed after ${figures.closedAfterMs.min}–${figures.closedAfterMs.max} ms (timeout ${timeoutMs} ms); answers ${JSON.stringify(figures.answers)}`,
  );
  report.check(
    'file descriptors returned and /health answered throughout',
    figures.openFiles.after <= figures.openFiles.before + 5 && figures.health.failures === 0,
    `open files ${figures.openFiles.before} → peak ${figures.openFiles.peak} → ${figures.openFiles.after}; /health p99 ${figures.health.p99Ms} ms, ${figures.health.failures} failed`,
  );
  return report.finish(`${connections} trickled bodies closed after at most ${figures.closedAfterMs.max} ms`);
}

/**
 * Issue 21 item 8: a real key (and a plain email address) in query strings and paths, the way a
 * careless script sends them; the server's log (info level) must hold none of them.
 */
export async function runKeyInQuery(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('key-in-query', options);
  const figures = await withDatabase('sqlite', null, async (databaseUrl) => {
    const seeded = await seedIssuer(databaseUrl);
    const email = 'careless.script@example.test';
    const server = await startFrontServer({ DATABASE_URL: databaseUrl }, true);
    const secret = seeded.key.slice(4);
    const urls = [
      `/api/v1/credentials?api_key=${seeded.key}`,
      `/api/v1/credentials?limit=5&apikey=${seeded.key}`,
      `/api/v1/credentials?token=${secret}`,
      `/api/v1/credentials?access_token=${encodeURIComponent(seeded.key)}&x=1`,
      `/api/v1/credentials?key=${seeded.key}`,
      `/api/v1/credentials/${seeded.key}`,
      `/api/v1/credentials?q=${seeded.key}`,
      `/api/v1/credentials?recipientEmail=${email}`,
      `/api/v1/credentials?recipientEmail=${encodeURIComponent(email)}`,
    ];
    try {
      const statuses: number[] = [];
      for (const path of urls) statuses.push((await request(`${server.url}${path}`)).status);
      statuses.push((await request(`${server.url}/api/v1/issuer/me`, { key: seeded.key })).status);
      await sleep(500);
      const log = server.output();
      return {
        requests: statuses.length,
        status: tally(statuses),
        logLines: log.split('\n').filter(Boolean).length,
        redactedLines: log.split('\n').filter((line) => line.includes('[redacted]')).length,
        keyFound: log.includes(secret) || log.includes(secret.slice(0, 20)) || log.includes(secret.slice(-20)),
        emailFound: log.toLowerCase().includes('careless.script'),
      };
    } finally {
      await server.stop();
    }
  });
  report.figures.sqlite = figures;
  report.check(
    'no key, no key fragment and no email in the log',
    !figures.keyFound && !figures.emailFound && figures.redactedLines >= 9,
    `${figures.logLines} log lines, ${figures.redactedLines} with [redacted]; key found: ${figures.keyFound}, email found: ${figures.emailFound}; answers ${JSON.stringify(figures.status)}`,
  );
  return report.finish(`${figures.requests} requests with keys and emails in URLs, none in the log`);
}
