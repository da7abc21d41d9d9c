import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { freePort } from '../../bench/lib/harness.js';
import { HARNESS_SIGNING_KEY_SECRET, launchServer, type ServerProcess } from '../reliability/load.harness.js';

/**
 * The scale-out topology on one machine: two API processes (dist/src/server.js), `accolade worker`
 * processes (dist/src/cli.js worker) and nginx in front of the API, all on loopback, sharing one
 * PostgreSQL database and Redis. Every process started here is tracked by PID and ended by close()
 * (or killNow() when the script itself is exiting).
 */

export const NGINX_MISSING =
  'nginx is not installed: the scale-out proof runs behind nginx (apt-get install -y nginx; CI installs it in .ci/run)';

/** nginx on PATH or in the sbin directories a non-root PATH often lacks; null when not installed. */
export function findNginx(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'nginx');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return null;
}

export function nginxVersion(binary: string): string {
  const out = spawnSync(binary, ['-v'], { encoding: 'utf8' });
  return (out.stderr || out.stdout).trim().replace(/^nginx version: /, '');
}

/** Debugging header naming the replica that answered; the proof reads it, production leaves it out. */
export const UPSTREAM_HEADER = 'x-upstream';

/**
 * The reverse proxy's configuration (docs/deployment.md shows the production form with TLS):
 * round-robin over the replicas with kept-alive upstream connections, a replica that refuses
 * connections is skipped for `failTimeoutSeconds`, and X-Forwarded-For is overwritten with the
 * connecting address so a client cannot choose the address its rate limit is counted under.
 */
export function nginxConfig(options: {
  prefix: string;
  listenPort: number;
  upstreamPorts: number[];
  failTimeoutSeconds: number;
}): string {
  const { prefix } = options;
  const servers = options.upstreamPorts
    .map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=${options.failTimeoutSeconds}s;`)
    .join('\n');
  return `daemon off;
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} warn;

events {
  worker_connections 4096;
}

http {
  access_log off;
  client_body_temp_path ${join(prefix, 'client_body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
  client_max_body_size 11m;

  upstream accolade {
${servers}
    keepalive 64;
  }

  server {
    listen 127.0.0.1:${options.listenPort};

    location / {
      proxy_pass http://accolade;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
      proxy_next_upstream error timeout;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

export interface Proxy {
  url: string;
  port: number;
  pid: number;
  config: string;
  stop(): Promise<void>;
  killNow(): void;
}

/** Children of a process, from /proc (nginx's workers, so a stuck master's workers can be ended too). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((p) => p !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** Resident set size of a process in MB (0 once it is gone). */
export function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ), asked once. */
let clockTicks: number | null = null;

/** CPU seconds (user + system) a process has used so far, from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return 0;
  }
}

/** Processes whose command line contains `text` (a PostgreSQL backend shows its database's name). */
export function pidsWhere(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function exitOf(child: ChildProcess): { exited: Promise<void>; hasExited: () => boolean } {
  let done = child.exitCode !== null || child.signalCode !== null;
  const exited = done ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    done = true;
  });
  return { exited, hasExited: () => done };
}

/** Waits for `exited`; false when `ms` passed first. */
async function within(exited: Promise<void>, ms: number): Promise<boolean> {
  const timer = sleep(ms).then(() => false);
  return Promise.race([exited.then(() => true), timer]);
}

/** Starts nginx as this user's own process (no daemon) with a generated config in a temp prefix. */
export async function startProxy(
  binary: string,
  port: number,
  upstreamPorts: number[],
  failTimeoutSeconds = 2,
): Promise<Proxy> {
  const prefix = mkdtempSync(join(tmpdir(), 'accolade-nginx-'));
  // Run as root, nginx's workers drop to nobody and must reach the temp directories under the prefix.
  chmodSync(prefix, 0o755);
  const config = nginxConfig({ prefix, listenPort: port, upstreamPorts, failTimeoutSeconds });
  const file = join(prefix, 'nginx.conf');
  writeFileSync(file, config);
  const child = spawn(binary, ['-e', join(prefix, 'error.log'), '-p', prefix, '-c', file], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const { exited, hasExited } = exitOf(child);
  const pid = child.pid ?? 0;
  const url = `http://127.0.0.1:${port}`;
  const errors = () => (existsSync(join(prefix, 'error.log')) ? readFileSync(join(prefix, 'error.log'), 'utf8') : '');
  const stop = async () => {
    if (!hasExited()) {
      const workers = childPids(pid);
      child.kill('SIGTERM');
      if (!(await within(exited, 10_000))) {
        for (const worker of workers) process.kill(worker, 'SIGKILL');
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (hasExited()) {
      rmSync(prefix, { recursive: true, force: true });
      throw new Error(`nginx exited before it was ready:\n${errors()}`);
    }
    try {
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not answer within 10 s:\n${errors()}`);
    }
    await sleep(50);
  }
  return {
    url,
    port,
    pid,
    config,
    stop,
    killNow: () => {
      if (!hasExited()) child.kill('SIGTERM');
    },
  };
}

export interface WorkerProcess {
  pid: number;
  rssMb(): number;
  stop(): Promise<void>;
  killNow(): void;
}

/** Starts `node dist/src/cli.js worker` with the API's environment; resolves once it says it is delivering. */
export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['dist/src/cli.js', 'worker'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { exited, hasExited } = exitOf(child);
  let output = '';
  const ready = new Promise<boolean>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (/^Worker \d+ delivering/m.test(output)) resolve(true);
    });
    void exited.then(() => resolve(false));
    setTimeout(() => resolve(false), 20_000).unref();
  });
  const stop = async () => {
    if (hasExited()) return;
    child.kill('SIGTERM');
    if (!(await within(exited, 15_000))) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  if (!(await ready)) {
    await stop();
    throw new Error(`accolade worker did not start: ${output.trim() || 'no output'}`);
  }
  const pid = child.pid ?? 0;
  return {
    pid,
    rssMb: () => rssMb(pid),
    stop,
    killNow: () => {
      if (!hasExited()) child.kill('SIGKILL');
    },
  };
}

export interface Cluster {
  proxy: Proxy;
  /** The API processes; a restarted replica replaces its slot. */
  replicas: ServerProcess[];
  replicaPorts: number[];
  workers: WorkerProcess[];
  /** The environment every API and worker process gets. */
  env: Record<string, string>;
  nginx: string;
  startWorkers(count: number): Promise<void>;
  /** SIGKILLs replica `index` and waits for the process to be gone. */
  kill(index: number): Promise<void>;
  /** Starts replica `index` again on its port; resolves once it answers /health/ready. */
  restart(index: number): Promise<void>;
  close(): Promise<void>;
  /** Synchronous last resort when the script is exiting: signal every process still running. */
  killNow(): void;
}

export interface ClusterOptions {
  databaseUrl: string;
  redisUrl: string;
  replicas: number;
  openRateLimitPerMinute: number;
  expirySweepIntervalMs: number;
}

/** Starts the API replicas (TRUST_PROXY, Redis, WEBHOOK_DISPATCH=off) and nginx in front of them. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const nginx = findNginx();
  if (!nginx) throw new Error(NGINX_MISSING);
  const replicaPorts = await Promise.all(Array.from({ length: options.replicas }, () => freePort()));
  // Public URLs name the proxy, the one origin clients see, so its port is chosen before the replicas start.
  const proxyPort = await freePort();
  const env: Record<string, string> = {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    TRUST_PROXY: '127.0.0.1',
    WEBHOOK_DISPATCH: 'off',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    OPEN_RATE_LIMIT_PER_MINUTE: String(options.openRateLimitPerMinute),
    EXPIRY_SWEEP_INTERVAL_MS: String(options.expirySweepIntervalMs),
    PUBLIC_BASE_URL: `http://127.0.0.1:${proxyPort}`,
    LOG_LEVEL: 'error',
    // The workers open the webhook secrets the replicas sealed, so both need the same key.
    SIGNING_KEY_SECRET: HARNESS_SIGNING_KEY_SECRET,
  };
  const replicas: ServerProcess[] = [];
  const workers: WorkerProcess[] = [];
  let proxy: Proxy | null = null;
  const close = async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await proxy?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
  };
  try {
    replicas.push(...(await Promise.all(replicaPorts.map((port) => launchServer(env, { port })))));
    proxy = await startProxy(nginx, proxyPort, replicaPorts);
  } catch (err) {
    await close();
    throw err;
  }
  const started = proxy;
  return {
    proxy: started,
    replicas,
    replicaPorts,
    workers,
    env,
    nginx,
    async startWorkers(count) {
      workers.push(...(await Promise.all(Array.from({ length: count }, () => startWorker(env)))));
    },
    async kill(index) {
      await replicas[index]?.kill9();
    },
    async restart(index) {
      replicas[index] = await launchServer(env, { port: replicaPorts[index] as number });
    },
    close,
    killNow() {
      for (const worker of workers) worker.killNow();
      for (const replica of replicas) if (!replica.hasExited()) process.kill(replica.pid, 'SIGKILL');
      started.killNow();
    },
  };
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** The replica port that answered (from the proxy's X-Upstream), or null. */
  upstreamPort: number | null;
}

/** The port of the last upstream nginx tried ("127.0.0.1:A, 127.0.0.1:B" after a failover). */
export function upstreamPortOf(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value.join(', ') : value;
  const last = text?.split(',').pop()?.trim();
  const port = last ? Number(last.split(':').pop()) : Number.NaN;
  return Number.isInteger(port) ? port : null;
}

/**
 * HTTP through the proxy from one client address: `localAddress` binds the client socket to another
 * loopback address (127.0.0.0/8 is all loopback on Linux), which is how several clients are told apart.
 */
export function createClient(baseUrl: string, localAddress?: string) {
  const agent = new Agent({ connections: 256, ...(localAddress ? { localAddress } : {}) });
  return {
    async call(
      path: string,
      init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<Answer> {
      try {
        const res = await request(`${baseUrl}${path}`, {
          dispatcher: agent,
          method: (init.method ?? (init.body === undefined ? 'GET' : 'POST')) as 'GET' | 'POST',
          headers: {
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
            ...init.headers,
          },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          headersTimeout: 60_000,
          bodyTimeout: 60_000,
        });
        const text = await res.body.text();
        let body: Record<string, unknown>;
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        } catch {
          body = { raw: text.slice(0, 200) };
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        return { status: res.statusCode, body, headers, upstreamPort: upstreamPortOf(res.headers[UPSTREAM_HEADER]) };
      } catch (err) {
        return {
          status: 0,
          body: { error: err instanceof Error ? err.message : String(err) },
          headers: {},
          upstreamPort: null,
        };
      }
    },
    close: () => agent.close(),
  };
}

export type Client = ReturnType<typeof createClient>;

/** Counts values: {value: occurrences}. */
export function tally(values: (string | number | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}

/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
export async function inBatches<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index] as T, index);
      }
    }),
  );
  return results;
}
