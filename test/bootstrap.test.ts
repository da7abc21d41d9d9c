import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../src/db/database.js';
import { DEMO_OWNER_EMAIL } from '../src/modules/issuers/bootstrap.js';
import { PASSWORD } from './console.support.js';
import { freshDatabase, type TestDatabase, testConfig } from './helpers.js';

const PUBLIC = 'https://badges.example.test';

/*
 * Issue 22 items 11 and 22: a first start that fails to listen creates no demo issuer (so the next
 * start still shows a key), and the "Try it" curl names the port the server really listens on.
 * Issue 39 §1: the first start also prints the demo owner's one-time console link.
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

describe('first start on sqlite without BOOTSTRAP_ISSUER', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase('sqlite');
  });
  afterAll(async () => db.drop());

  it('prints a one-time set-up link for their own organisation and creates no demo issuer', {
    timeout: 180_000,
  }, async () => {
    const server = start({ DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1', PUBLIC_BASE_URL: PUBLIC });
    try {
      let link: string | undefined;
      for (let i = 0; i < 600 && !link; i++) {
        link = server.output().match(/^ {4}(https:\/\/\S+\/console\/setup\/\S+)$/m)?.[1];
        if (!link && server.child.exitCode !== null) break;
        if (!link) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(link, server.output()).toMatch(new RegExp(`^${PUBLIC}/console/setup/[A-Za-z0-9_-]{43}$`));
      expect(server.output()).not.toContain('acc_');
      expect(server.output()).toContain('BOOTSTRAP_ISSUER=true creates the demo issuer instead');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(await issuerCount(db)).toBe(0);
  });
});

describe('demo issuer at first start on sqlite (BOOTSTRAP_ISSUER=true, as scripts set it)', () => {
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
    const failed = start({
      DATABASE_URL: db.url,
      PORT: String(takenPort),
      HOST: '127.0.0.1',
      BOOTSTRAP_ISSUER: 'true',
    });
    expect(await failed.exited, failed.output()).toBe(1);
    expect(failed.output()).toMatch(/EADDRINUSE/);
    expect(await issuerCount(db)).toBe(0);

    // PORT=0: the operating system picks the port, so only the listening address can name it.
    const server = start({
      DATABASE_URL: db.url,
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: PUBLIC,
      BOOTSTRAP_ISSUER: 'true',
    });
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

      // Next to the key: the first owner's one-time console link, which sets a password and signs in.
      const link = server.output().match(/^ {4}(https:\/\/\S+)$/m)?.[1];
      expect(link, server.output()).toMatch(new RegExp(`^${PUBLIC}/console/invite/[A-Za-z0-9_-]{43}$`));
      expect(server.output()).toContain(`owner ${DEMO_OWNER_EMAIL}`);
      const token = link?.split('/').pop();
      const invite = await fetch(`${base}/api/v1/invites/${token}`);
      expect(await invite.json()).toMatchObject({ email: DEMO_OWNER_EMAIL, role: 'owner', issuerName: 'Demo Academy' });
      const accept = () =>
        fetch(`${base}/api/v1/invites/${token}/accept`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ password: PASSWORD }),
        });
      const accepted = await accept();
      expect(accepted.status).toBe(200);
      expect(((await accepted.json()) as { user: { role: string } }).user.role).toBe('owner');
      expect((await accept()).status).toBe(404);
      const signIn = await fetch(`${base}/api/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: DEMO_OWNER_EMAIL, password: PASSWORD }),
      });
      expect(signIn.status).toBe(200);
      expect(((await signIn.json()) as { user: { issuer: { slug: string } } }).user.issuer.slug).toBe('demo');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(await issuerCount(db)).toBe(1);
  });
});
