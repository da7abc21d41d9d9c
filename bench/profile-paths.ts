import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seed } from './lib/setup.js';

/**
 * `npx tsx bench/profile-paths.ts [credentials] [calls] [profile dir]`: on SQLite, the hosted
 * assertion read and the single verify as a client that misses every cache meets them
 * (READ_CACHE=false), then single issuance, in process through `app.inject` (the whole Fastify
 * request path without a socket), each call for another credential. Prints the wall and CPU time per
 * call of each phase and, with a profile dir, writes one CPU profile per phase (open it in Chrome
 * DevTools). Short by design: a profile, not a benchmark.
 */
const credentials = Number(process.argv[2] ?? '5000');
const calls = Number(process.argv[3] ?? '20000');
const profileDir = process.argv[4];
const session = new Session();
session.connect();
await session.post('Profiler.enable');
const dir = mkdtempSync(join(tmpdir(), 'accolade-profile-'));
const seeded = await seed(`sqlite:${join(dir, 'profile.db')}`, {
  READ_CACHE: 'false',
  SQLITE_SYNCHRONOUS: 'NORMAL',
  OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
});
try {
  const ids: string[] = [];
  for (let i = 0; i < credentials; i++) {
    const outcome = await seeded.app.services.issuance.issue(seeded.issuerId, 'bench', {
      definitionId: seeded.definitionId,
      recipientEmail: `profile${i}@bench.example`,
      recipientName: `Learner Number${i}`,
      completionKey: `profile-${i}`,
      source: 'api',
    });
    ids.push(outcome.row.id);
  }
  const path = (id: string) => `/v1/issuers/${seeded.issuerSlug}/assertions/${id}`;
  const phases = {
    'hosted assertion read': (i: number) => seeded.app.inject({ method: 'GET', url: path(ids[i % ids.length] ?? '') }),
    'single verify': (i: number) =>
      seeded.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ id: `http://localhost:3000${path(ids[(i * 7919) % ids.length] ?? '')}` }),
      }),
    'single issuance': (i: number) =>
      seeded.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          definitionId: seeded.definitionId,
          recipientEmail: `issued${i}@bench.example`,
          recipientName: `Learner Number${i}`,
          completionKey: `issued-${i}`,
        }),
      }),
  };
  for (const [name, call] of Object.entries(phases)) {
    for (let i = 0; i < 500; i++) await call(calls + i);
    if (profileDir) await session.post('Profiler.start');
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const res = await call(i);
      if (res.statusCode !== 200 && res.statusCode !== 201)
        throw new Error(`${name}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    const us = ((performance.now() - started) * 1000) / calls;
    const used = process.cpuUsage(cpu);
    const cpuUs = (used.user + used.system) / calls;
    if (profileDir) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(profileDir, `${name.replaceAll(' ', '-')}.cpuprofile`), JSON.stringify(profile));
    }
    process.stdout.write(
      `${name}: ${us.toFixed(1)} µs a call (${cpuUs.toFixed(1)} µs of CPU) over ${calls} calls, ${credentials} credentials\n`,
    );
  }
} finally {
  await seeded.close();
  rmSync(dir, { recursive: true, force: true });
}
