import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
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
      let ready = false;
      for (let i = 0; i < 100 && !ready; i++) {
        ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
          (r) => r.ok,
          () => false,
        );
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
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
