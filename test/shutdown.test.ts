import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../src/db/database.js';
import { createTestApp, testConfig } from './helpers.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Waits for the spawned server to answer ready. The bound is for a loaded 2-core machine (a tsx
 * start there took up to ~20 s), not a measure of speed: a server that never gets ready still fails.
 */
async function untilReady(port: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) throw new Error('the server did not get ready within 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('graceful shutdown on sqlite', () => {
  it('writes buffered verification events before closing the database on SIGTERM', async () => {
    const t = await createTestApp('sqlite');
    const issuer = await t.issuer();
    const definition = await t.app.services.definitions.create(issuer.id, 'system', {
      name: 'Shutdown',
      description: 'x',
    });
    const { row } = await t.app.services.issuance.issue(issuer.id, 'test', {
      definitionId: definition.id,
      recipientEmail: 'shutdown@example.test',
      completionKey: 'shutdown-1',
      source: 'api',
    });
    await t.app.close();
    await t.database.close();

    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        DATABASE_URL: t.testDb.url,
        LOG_LEVEL: 'silent',
        SIGNING_KEY_SECRET: 'shutdown-test-signing-secret-not-for-production',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await untilReady(port);
      const verified = await fetch(`http://127.0.0.1:${port}/api/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: row.id }),
      });
      expect(((await verified.json()) as { status: string }).status).toBe('valid');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }

    const database = createDatabase(testConfig(t.testDb.url).database);
    const events = await database.db.selectFrom('verification_events').selectAll().execute();
    expect(events).toEqual([expect.objectContaining({ credential_id: row.id, channel: 'api' })]);
    await database.close();
    await t.testDb.drop();
  });
});

/**
 * Issue 48: a server ignored SIGTERM for 7 minutes, retrying a write to its closed stdout every
 * 100 ms (pino's synchronous flush at exit retries a failed write for as long as it fails). Here the
 * child's stdout is a pipe nobody reads, filled by request log lines, then closed: the shutdown must
 * still end, and in bounded time. 30 s is generous for a loaded machine; the old code never exited.
 */
describe('shutdown whatever became of stdout', () => {
  async function startLogging(): Promise<{ port: number; child: ReturnType<typeof spawn>; dir: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'accolade-stdout-'));
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        DATABASE_URL: `sqlite:${join(dir, 'accolade.db')}`,
        BOOTSTRAP_ISSUER: 'false',
        LOG_LEVEL: 'info',
        SIGNING_KEY_SECRET: 'shutdown-test-signing-secret-not-for-production',
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    // Never read: the pipe (64 KiB) fills and the server's log writes stay pending.
    child.stdout?.pause();
    await untilReady(port);
    const padding = 'x'.repeat(300);
    for (let round = 0; round < 20; round++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`http://127.0.0.1:${port}/health?round=${round}&i=${i}&p=${padding}`).then((r) => r.text()),
        ),
      );
    }
    return { port, child, dir };
  }

  async function exitsWithin(child: ReturnType<typeof spawn>, ms: number): Promise<number | null | 'still running'> {
    if (child.exitCode !== null) return child.exitCode;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve('still running'), ms);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  }

  it('exits on SIGTERM when stdout is full and then closed while it stops', async () => {
    const { child, dir } = await startLogging();
    try {
      const exited = exitsWithin(child, 30_000);
      child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      child.stdout?.destroy();
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('exits on SIGTERM when stdout was closed before it', async () => {
    const { port, child, dir } = await startLogging();
    try {
      child.stdout?.destroy();
      // More lines after the reader went: each write now fails with EPIPE.
      await Promise.all(
        Array.from({ length: 50 }, () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.text())),
      );
      const exited = exitsWithin(child, 30_000);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
