import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from '../../bench/lib/harness.js';

/**
 * A throwaway PostgreSQL cluster that the fault scenarios may stop, restart and starve; the shared
 * cluster on 5432 is never touched. Each run creates its own ("faults-<pid>", on a free port) and
 * drops it at the end, so runs in one checkout never share one; clusters left by a killed run are
 * dropped by the next. Needs root and Debian's postgresql-common (pg_createcluster / pg_ctlcluster),
 * as on the developers' machines and CI.
 */
const PREFIX = 'faults-';

export interface FaultsCluster {
  version: string;
  port: number;
  /** A URL for a database in the cluster. */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): void;
  start(): void;
  restart(): void;
  drop(): void;
}

function ctl(version: string, name: string, action: 'start' | 'stop' | 'restart'): void {
  // Fast shutdown: connected clients are cut off at once, as in a crash or failover.
  const mode = action === 'start' ? [] : ['-m', 'fast'];
  const args = ['--skip-systemctl-redirect', ...mode, version, name, action];
  execFileSync('pg_ctlcluster', args, { stdio: 'pipe' });
}

function installedVersion(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  const version = versions[0];
  if (!version) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql is empty)');
  return version;
}

/** Drops faults clusters whose run has ended (its process is gone). */
function dropAbandoned(version: string): void {
  const out = execFileSync('pg_lsclusters', ['--no-header'], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    const [v, name] = line.trim().split(/\s+/);
    if (v !== version || !name?.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length));
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {
      // no such process: the run that made it is over
    }
    if (!alive) execFileSync('pg_dropcluster', [version, name, '--stop'], { stdio: 'pipe' });
  }
}

async function waitForConnections(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** Creates and starts this run's faults cluster. */
export async function openFaultsCluster(): Promise<FaultsCluster> {
  const version = installedVersion();
  dropAbandoned(version);
  const name = `${PREFIX}${process.pid}`;
  const port = await freePort();
  execFileSync('pg_createcluster', [version, name, '--port', String(port), '--', '--auth=trust'], { stdio: 'pipe' });
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  ctl(version, name, 'start');
  await waitForConnections(url('postgres'), 30_000);
  return {
    version,
    port,
    url,
    async createDatabase(database: string) {
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        await admin.query(`create database ${database}`);
      } finally {
        await admin.end();
      }
      return url(database);
    },
    stop: () => ctl(version, name, 'stop'),
    start: () => ctl(version, name, 'start'),
    restart: () => ctl(version, name, 'restart'),
    drop: () => {
      execFileSync('pg_dropcluster', [version, name, '--stop'], { stdio: 'pipe' });
    },
  };
}
