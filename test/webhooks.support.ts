import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDatabase, type Database } from '../src/db/database.js';
import { createExpirySweeper } from '../src/modules/webhooks/expiry-sweeper.js';
import type { TestApp } from './helpers.js';

/** One request the receiver got, with the body exactly as it arrived on the wire. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** What the receiver does with request number `index` (0-based). */
export type Behaviour = (index: number, res: ServerResponse) => void;

export const answer =
  (status: number): Behaviour =>
  (_i, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(status >= 300 ? 'nope' : 'ok');
  };

/** A real HTTP receiver on loopback that records every request and counts raw TCP connections. */
export async function startReceiver(behaviour: Behaviour = answer(200)) {
  const requests: ReceivedRequest[] = [];
  let connections = 0;
  let current = behaviour;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const index = requests.length;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      current(index, res);
    });
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    connections: () => connections,
    behave(next: Behaviour) {
      current = next;
    },
    /** Resolves once `count` requests have arrived (or rejects after `ms`). */
    waitFor(count: number, ms = 10_000): Promise<void> {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length}/${count} requests`)), ms);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** What a receiver should do: recompute the HMAC over the raw bytes and compare in constant time. */
export function signatureValid(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const presented = Buffer.from(header);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

let counter = 0;

/** A definition row, written directly (the definitions module is not needed for webhook tests). */
export async function insertDefinition(database: Database, issuerId: string, now = new Date().toISOString()) {
  counter++;
  const row = {
    id: randomUUID(),
    issuer_id: issuerId,
    slug: `webhook-def-${counter}`,
    name: `Webhook definition ${counter}`,
    description: 'A definition for webhook tests',
    criteria_narrative: null,
    criteria_url: null,
    image_url: null,
    tags: '[]',
    skills: '[]',
    expires_after_days: 365,
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  await database.db.insertInto('definitions').values(row).execute();
  return row;
}

/** A credential row carrying personal data (a display name, a recipient hash) the events must not leak. */
export async function insertCredential(
  database: Database,
  issuerId: string,
  definitionId: string,
  fields: Partial<{
    issued_on: string;
    expires_on: string | null;
    revoked_at: string | null;
    revoked_reason: string | null;
    reissued_from: string | null;
    expiry_announced_at: string | null;
    source: string;
  }> = {},
) {
  counter++;
  const row = {
    id: randomUUID(),
    issuer_id: issuerId,
    definition_id: definitionId,
    recipient_hash: `f00d${counter.toString(16).padStart(60, '0')}`,
    display_name: 'Ada Lovelace',
    completion_key: `webhook-test-${counter}`,
    issued_on: fields.issued_on ?? '2026-01-10T08:00:00.000Z',
    expires_on: fields.expires_on === undefined ? '2027-01-10T08:00:00.000Z' : fields.expires_on,
    revoked_at: fields.revoked_at ?? null,
    revoked_reason: fields.revoked_reason ?? null,
    evidence_url: null,
    reissued_from: fields.reissued_from ?? null,
    source: fields.source ?? 'api',
    expiry_announced_at: fields.expiry_announced_at ?? null,
    created_at: fields.issued_on ?? '2026-01-10T08:00:00.000Z',
  };
  await database.db.insertInto('credentials').values(row).execute();
  return row;
}

/** `count` live credentials of one definition in one insert, each expiring at `expiresOn(i)`: a sweeper race's work. */
export async function insertCredentials(
  database: Database,
  issuerId: string,
  definitionId: string,
  count: number,
  expiresOn: (index: number) => string,
) {
  const rows = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    issuer_id: issuerId,
    definition_id: definitionId,
    recipient_hash: 'b'.repeat(64),
    display_name: null,
    completion_key: `race-${i}`,
    issued_on: '2025-01-01T00:00:00.000Z',
    expires_on: expiresOn(i),
    revoked_at: null,
    revoked_reason: null,
    evidence_url: null,
    reissued_from: null,
    source: 'api',
    expiry_announced_at: null,
    created_at: '2025-01-01T00:00:00.000Z',
  }));
  await database.db.insertInto('credentials').values(rows).execute();
}

type ExpirySweeper = ReturnType<typeof createExpirySweeper>;

/** Two expiry sweepers of the same app on separate pools, run at once: what each one did. */
export async function raceTwoSweepers(t: TestApp, run: (sweeper: ExpirySweeper) => Promise<number>) {
  const second = createDatabase(t.config.database);
  try {
    const deps = { outbox: t.app.services.outbox, audit: t.app.services.audit };
    const one = createExpirySweeper(t.app.core, deps, { batchSize: 50 });
    const two = createExpirySweeper({ ...t.app.core, db: second.db }, deps, { batchSize: 50 });
    return await Promise.all([run(one), run(two)]);
  } finally {
    await second.close();
  }
}
