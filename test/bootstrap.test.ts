import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../src/db/database.js';
import { freshDatabase, type TestDatabase, testConfig } from './helpers.js';

/*
 * Issue 22 items 11 and 22: a first start that fails to listen creates no demo issuer (so the next
 * start still shows a key), and the "Try it" curl names the port the server really listens on.
 */

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function issuerCount(db: TestDatabase): Promise<number> {
  const database = createDatabase(testConfig(db.url).database);
  try {
    const row = await database.db
      .selectFrom('issuers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await database.close();
  }
}

describe('demo issuer at first start on sqlite', () => {
  let db: TestDatabase;
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    takenPort = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
    await db.drop();
  });

  it('creates nothing when the port is in use, then shows a working key with the real port on the next start', {
    timeout: 180_000,
  }, async () => {
    const failed = start({ DATABASE_URL: db.url, PORT: String(takenPort), HOST: '127.0.0.1' });
    expect(await failed.exited, failed.output()).toBe(1);
    expect(failed.output()).toMatch(/EADDRINUSE/);
    expect(await issuerCount(db)).toBe(0);

    // PORT=0: the operating system picks the port, so only the listening address can name it.
    const server = start({ DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1' });
    try {
      let curl: RegExpMatchArray | null = null;
      for (let i = 0; i < 600 && !curl; i++) {
        curl = server
          .output()
          .match(/Try it: {2}curl -H "Authorization: Bearer (acc_\S+)" (http:\/\/\S+)\/api\/v1\/issuer\/me/);
        if (!curl && server.child.exitCode !== null) break;
        if (!curl) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(curl, server.output()).not.toBeNull();
      const [, key, base] = curl ?? [];
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      const me = await fetch(`${base}/api/v1/issuer/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { slug: string }).slug).toBe('demo');
      expect(server.output()).toContain('npm run cli -- keys create --issuer demo');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(await issuerCount(db)).toBe(1);
  });
});
