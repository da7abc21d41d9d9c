import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { percentile, round, type SeededIssuer, scalar } from '../reliability/load.harness.js';
import {
  type Answer,
  type Client,
  type Cluster,
  childPids,
  cpuSeconds,
  createClient,
  inBatches,
  pidsWhere,
  tally,
  upstreamPortOf,
} from './cluster.js';
import { countDeliveries, type DeliveryCount, undelivered, type WebhookReceiver } from './receiver.js';

/**
 * The proofs of issue 10 item 5, each run through the proxy against the running cluster: shared
 * rate limits, idempotency across replicas, exactly-once webhook delivery by the workers, the steady
 * issuance rate, and no lost work when a replica is SIGKILLed under load.
 */

export type CheckFn = (name: string, pass: boolean, detail: string) => boolean;

export interface LegContext {
  cluster: Cluster;
  /** Through the proxy from 127.0.0.1. */
  client: Client;
  db: Kysely<DB>;
  receiver: WebhookReceiver;
  check: CheckFn;
  log: (line: string) => void;
}

/** Replica ports by how many answers each served, keyed "replica 1", "replica 2". */
function byReplica(cluster: Cluster, ports: (number | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const port of ports) {
    const index = port === null ? -1 : cluster.replicaPorts.indexOf(port);
    const name = index < 0 ? 'proxy only' : `replica ${index + 1}`;
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

const servedByEveryReplica = (cluster: Cluster, counts: Record<string, number>) =>
  cluster.replicaPorts.every((_, i) => (counts[`replica ${i + 1}`] ?? 0) > 0);

/** A 429 as documented: Error body rate_limited with Retry-After and the X-RateLimit-* headers. */
function wellFormed429(a: Answer, limit: number): boolean {
  return (
    a.status === 429 &&
    a.body.error === 'rate_limited' &&
    a.headers['retry-after'] !== undefined &&
    a.headers['x-ratelimit-limit'] === String(limit) &&
    a.headers['x-ratelimit-remaining'] === '0'
  );
}

/** A random loopback address other than 127.0.0.1: one simulated client. */
function loopbackAddress(): string {
  const octet = () => 2 + Math.floor(Math.random() * 250);
  return `127.${octet()}.${octet()}.${octet()}`;
}

export interface RateLimitFigures {
  limit: number;
  keyed: { requests: number; succeeded: number; status: Record<string, number>; byReplica: Record<string, number> };
  open: {
    requests: number;
    succeeded: number;
    status: Record<string, number>;
    byReplica: Record<string, number>;
    clientAddress: string;
    otherClientStatus: number;
  };
}

/**
 * 2L concurrent keyed requests for an issuer whose plan allows L per minute, round-robined over both
 * replicas → exactly L succeed (one count in Redis). Then 2L open requests from one client address,
 * each forging a different X-Forwarded-For → exactly L succeed (the proxy overwrites the header and
 * the replicas, with TRUST_PROXY, count the client's address), while another client address is not
 * limited (the count is per client, not per proxy).
 */
export async function rateLimitLeg(ctx: LegContext, seeded: SeededIssuer, limit: number): Promise<RateLimitFigures> {
  const { cluster, check } = ctx;
  const keyedAnswers = await Promise.all(
    Array.from({ length: 2 * limit }, () => ctx.client.call('/api/v1/issuer/me', { key: seeded.key })),
  );
  const keyedOk = keyedAnswers.filter((a) => a.status === 200);
  const keyedRefused = keyedAnswers.filter((a) => a.status !== 200);
  const keyed = {
    requests: keyedAnswers.length,
    succeeded: keyedOk.length,
    status: tally(keyedAnswers.map((a) => a.status)),
    byReplica: byReplica(
      cluster,
      keyedAnswers.map((a) => a.upstreamPort),
    ),
  };
  check(
    'rate limit per key shared by the replicas',
    keyed.succeeded === limit && keyedRefused.every((a) => wellFormed429(a, limit)),
    `${keyed.requests} requests at ${limit}/min: ${keyed.succeeded} succeeded, status ${JSON.stringify(keyed.status)}`,
  );
  const okByReplica = byReplica(
    cluster,
    keyedOk.map((a) => a.upstreamPort),
  );
  check(
    'rate-limited requests spread over both replicas',
    servedByEveryReplica(cluster, keyed.byReplica) && servedByEveryReplica(cluster, okByReplica),
    `answered ${JSON.stringify(keyed.byReplica)}; successes ${JSON.stringify(okByReplica)}`,
  );

  const clientAddress = loopbackAddress();
  const storm = createClient(cluster.proxy.url, clientAddress);
  const other = createClient(cluster.proxy.url, loopbackAddress());
  try {
    const openAnswers = await Promise.all(
      Array.from({ length: 2 * limit }, (_, n) =>
        storm.call('/api/v1/verify', {
          body: { id: 'scale-out-unknown-credential' },
          headers: { 'x-forwarded-for': `198.51.100.${n % 250}` },
        }),
      ),
    );
    const otherAnswer = await other.call('/api/v1/verify', { body: { id: 'scale-out-unknown-credential' } });
    const open = {
      requests: openAnswers.length,
      succeeded: openAnswers.filter((a) => a.status === 200).length,
      status: tally(openAnswers.map((a) => a.status)),
      byReplica: byReplica(
        cluster,
        openAnswers.map((a) => a.upstreamPort),
      ),
      clientAddress,
      otherClientStatus: otherAnswer.status,
    };
    check(
      'open limit per client address behind the proxy',
      open.succeeded === limit &&
        openAnswers.every((a) => a.status === 200 || wellFormed429(a, limit)) &&
        servedByEveryReplica(cluster, open.byReplica),
      `${open.requests} requests from ${clientAddress}, each with a forged X-Forwarded-For: ${open.succeeded} succeeded, status ${JSON.stringify(open.status)}, answered ${JSON.stringify(open.byReplica)}`,
    );
    check(
      'another client address keeps its own allowance',
      otherAnswer.status === 200,
      `a second client address answered ${otherAnswer.status}`,
    );
    return { limit, keyed, open };
  } finally {
    await storm.close();
    await other.close();
  }
}

/** The issuer's credentials by completion key, and the row count (a duplicated key would show there). */
async function credentialKeys(db: Kysely<DB>, issuerId: string): Promise<{ byKey: Map<string, string>; rows: number }> {
  const rows = await db
    .selectFrom('credentials')
    .select(['id', 'completion_key'])
    .where('issuer_id', '=', issuerId)
    .execute();
  return { byKey: new Map(rows.map((r) => [r.completion_key, r.id])), rows: rows.length };
}

/** Issued counts that must each equal the number of credentials: audit records and quota usage. */
async function bookkeeping(db: Kysely<DB>, issuerId: string) {
  return {
    auditIssued: await scalar(
      db,
      sql`select count(*) as n from audit_log where issuer_id = ${issuerId} and action = 'credential.issued'`,
    ),
    usageCounted: await scalar(
      db,
      sql`select coalesce(sum(issuance), 0) as n from usage_counters where issuer_id = ${issuerId}`,
    ),
  };
}

export interface IdempotencyFigures {
  requests: number;
  keys: number;
  status: Record<string, number>;
  byReplica: Record<string, number>;
  credentials: number;
  keysWithOneId: number;
  keysWithOne201: number;
  auditIssued: number;
  usageCounted: number;
  p99Ms: number;
}

/** `requests` concurrent issues over `keys` completion keys through the proxy → exactly `keys` credentials. */
export async function idempotencyLeg(
  ctx: LegContext,
  seeded: SeededIssuer,
  requests: number,
  keys: number,
): Promise<IdempotencyFigures> {
  const prefix = 'idem-';
  const elapsed: number[] = [];
  const answers = await Promise.all(
    Array.from({ length: requests }, async (_, n) => {
      const key = `${prefix}${n % keys}`;
      const started = performance.now();
      const answer = await ctx.client.call('/api/v1/credentials', {
        key: seeded.key,
        body: {
          definitionId: seeded.definitionId,
          recipientEmail: `${key}@example.test`,
          recipientName: 'Idempotent Learner',
          completionKey: key,
        },
      });
      elapsed.push(performance.now() - started);
      return { key, answer };
    }),
  );
  const stored = await credentialKeys(ctx.db, seeded.issuerId);
  let keysWithOneId = 0;
  let keysWithOne201 = 0;
  for (let k = 0; k < keys; k++) {
    const key = `${prefix}${k}`;
    const mine = answers.filter((a) => a.key === key).map((a) => a.answer);
    const ids = new Set(mine.map((a) => a.body.credentialId));
    if (ids.size === 1 && mine.every((a) => a.status === 200 || a.status === 201) && ids.has(stored.byKey.get(key))) {
      keysWithOneId++;
    }
    if (mine.filter((a) => a.status === 201).length === 1) keysWithOne201++;
  }
  const counts = await bookkeeping(ctx.db, seeded.issuerId);
  const figures: IdempotencyFigures = {
    requests,
    keys,
    status: tally(answers.map((a) => a.answer.status)),
    byReplica: byReplica(
      ctx.cluster,
      answers.map((a) => a.answer.upstreamPort),
    ),
    credentials: stored.rows,
    keysWithOneId,
    keysWithOne201,
    ...counts,
    p99Ms: round(percentile(elapsed, 99)),
  };
  ctx.check(
    'idempotency across replicas',
    figures.credentials === keys && keysWithOneId === keys && keysWithOne201 === keys,
    `${requests} concurrent requests over ${keys} keys: ${figures.credentials} credentials; ${keysWithOneId}/${keys} keys answered with one id, ${keysWithOne201}/${keys} with exactly one 201; status ${JSON.stringify(figures.status)}; answered ${JSON.stringify(figures.byReplica)}`,
  );
  ctx.check(
    'idempotent replays leave no extra audit or quota',
    counts.auditIssued === keys && counts.usageCounted === keys,
    `${counts.auditIssued} credential.issued audit records, ${counts.usageCounted} issuances counted (expected ${keys})`,
  );
  return figures;
}

async function outboxStatus(db: Kysely<DB>, issuerId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('issuer_id', '=', issuerId)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Waits (bounded) until every expected event reached the receiver, then until the issuer's outbox
 * holds nothing pending or in delivery, then one more dispatcher poll, so a late repeat would be seen.
 */
async function awaitDeliveries(
  ctx: LegContext,
  leg: string,
  issuerId: string,
  expected: { event: string; ids: string[] }[],
  timeoutMs: number,
): Promise<{ seconds: number; complete: boolean; outbox: Record<string, number> }> {
  const started = performance.now();
  const deadline = Date.now() + timeoutMs;
  const missing = () => expected.reduce((sum, e) => sum + undelivered(ctx.receiver.received(leg), e.event, e.ids), 0);
  while (missing() > 0 && Date.now() < deadline) await sleep(100);
  const seconds = round((performance.now() - started) / 1000, 2);
  const complete = missing() === 0;
  let outbox = await outboxStatus(ctx.db, issuerId);
  while ((outbox.pending ?? 0) + (outbox.delivering ?? 0) > 0 && Date.now() < deadline) {
    await sleep(250);
    outbox = await outboxStatus(ctx.db, issuerId);
  }
  await sleep(1_500);
  return { seconds, complete, outbox: await outboxStatus(ctx.db, issuerId) };
}

async function subscribe(ctx: LegContext, seeded: SeededIssuer, leg: string, events: string[]): Promise<void> {
  const sub = await ctx.client.call('/api/v1/webhooks', {
    key: seeded.key,
    body: { url: ctx.receiver.urlFor(leg), events },
  });
  if (sub.status !== 201 || typeof sub.body.secret !== 'string') {
    throw new Error(`webhook subscription failed: ${sub.status} ${JSON.stringify(sub.body)}`);
  }
  ctx.receiver.setSecret(leg, sub.body.secret);
}

export interface WebhookFigures {
  workers: number;
  issued: number;
  expiring: number;
  /** Deliveries received while only the API processes (WEBHOOK_DISPATCH=off) were running. */
  deliveredWithoutWorkers: number;
  workerStartSeconds: number;
  secondsToDeliverAll: number;
  deliveriesPerSecond: number;
  outbox: Record<string, number>;
  count: DeliveryCount;
}

/**
 * Issues `issued` credentials through the proxy (`expiring` of them already past their expiry) with no
 * worker running: nothing may be delivered. Then `workers` start at once and share the backlog:
 * every credential.issued and every credential.expired arrives exactly once.
 */
export async function webhookLeg(
  ctx: LegContext,
  seeded: SeededIssuer,
  sizes: { issued: number; expiring: number; workers: number },
): Promise<WebhookFigures> {
  const leg = 'webhooks';
  await subscribe(ctx, seeded, leg, ['credential.issued', 'credential.expired']);
  const expiringDefinition = await ctx.client.call('/api/v1/definitions', {
    key: seeded.key,
    body: { name: 'Scale-out Expiring Badge', description: 'Expires a day after issue', expiresAfterDays: 1 },
  });
  if (expiringDefinition.status !== 201) {
    throw new Error(`definition failed: ${expiringDefinition.status} ${JSON.stringify(expiringDefinition.body)}`);
  }
  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString();
  // The single-issue API takes no issuedOn; the completions ingest does (a completion reported late).
  const answers = await inBatches(
    Array.from({ length: sizes.issued }, (_, n) => n),
    25,
    (n) =>
      n < sizes.expiring
        ? ctx.client.call('/api/v1/ingest/completions', {
            key: seeded.key,
            body: {
              definitionId: String(expiringDefinition.body.id),
              recipientEmail: `hook-${n}@example.test`,
              completionKey: `hook-${n}`,
              issuedOn: threeDaysAgo,
            },
          })
        : ctx.client.call('/api/v1/credentials', {
            key: seeded.key,
            body: {
              definitionId: seeded.definitionId,
              recipientEmail: `hook-${n}@example.test`,
              completionKey: `hook-${n}`,
            },
          }),
  );
  const notCreated = answers.filter((a) => a.status !== 201);
  if (notCreated.length > 0) {
    throw new Error(
      `issuing for the webhook leg failed: ${JSON.stringify(tally(notCreated.map((a) => a.status)))}, e.g. ${JSON.stringify(notCreated[0]?.body)}`,
    );
  }
  const ids = answers.map((a) => String(a.body.credentialId));
  const expiringIds = ids.slice(0, sizes.expiring);

  // The API processes run with WEBHOOK_DISPATCH=off: two dispatcher polls later nothing has arrived.
  await sleep(2_500);
  const deliveredWithoutWorkers = ctx.receiver.received(leg).length;
  const workersStarted = performance.now();
  await ctx.cluster.startWorkers(sizes.workers);
  const workerStartSeconds = round((performance.now() - workersStarted) / 1000, 2);
  const waited = await awaitDeliveries(
    ctx,
    leg,
    seeded.issuerId,
    [
      { event: 'credential.issued', ids },
      { event: 'credential.expired', ids: expiringIds },
    ],
    60_000 + 20 * sizes.issued,
  );
  const count = countDeliveries(ctx.receiver.received(leg));
  const expected = sizes.issued + sizes.expiring;
  const figures: WebhookFigures = {
    workers: sizes.workers,
    issued: sizes.issued,
    expiring: sizes.expiring,
    deliveredWithoutWorkers,
    workerStartSeconds,
    secondsToDeliverAll: waited.seconds,
    deliveriesPerSecond: waited.seconds > 0 ? Math.round(expected / waited.seconds) : 0,
    outbox: waited.outbox,
    count,
  };
  ctx.check(
    'API processes with WEBHOOK_DISPATCH=off deliver nothing',
    deliveredWithoutWorkers === 0,
    `${deliveredWithoutWorkers} deliveries in 2.5 s with ${sizes.issued} events queued and no worker`,
  );
  ctx.check(
    'every webhook delivered exactly once by the workers',
    waited.complete &&
      count.deliveries === expected &&
      count.repeatedDeliveryIds === 0 &&
      count.duplicateEvents === 0 &&
      count.byEvent['credential.issued'] === sizes.issued &&
      count.byEvent['credential.expired'] === sizes.expiring &&
      waited.outbox.delivered === expected &&
      Object.keys(waited.outbox).length === 1,
    `${sizes.workers} workers: ${count.deliveries} deliveries (${JSON.stringify(count.byEvent)}) for ${sizes.issued} issued + ${sizes.expiring} expired, ${count.distinctDeliveryIds} distinct X-Service-Delivery, ${count.duplicateEvents} duplicate events, in ${waited.seconds} s; outbox ${JSON.stringify(waited.outbox)}`,
  );
  ctx.check(
    'webhook signatures verify',
    count.badSignatures === 0 && count.deliveries > 0,
    `${count.badSignatures} of ${count.deliveries} deliveries failed the HMAC check`,
  );
  return figures;
}

const headerValue = (headers: Record<string, string | string[]>, name: string) =>
  Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];

/** An autocannon request as its runtime takes it (bench/lib/autocannon.d.ts declares a subset). */
interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest?: (request: CannonRequest, context: Record<string, unknown>) => CannonRequest;
  onResponse?: (
    status: number,
    body: string,
    context: Record<string, unknown>,
    headers: Record<string, string | string[]>,
  ) => void;
}

export interface ThroughputFigures {
  seconds: number;
  connections: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  status: Record<string, number>;
  byReplica: Record<string, number>;
  /** CPU milliseconds per answered request, by component (PostgreSQL: this database's backends only). */
  cpuMsPerRequest: Record<string, number>;
}

/**
 * Steady issuance through the proxy, nothing killed: the rate the cluster sustains on this machine,
 * and where the CPU goes per request, read from /proc for every process of the topology.
 */
export async function throughputLeg(
  ctx: LegContext,
  seeded: SeededIssuer,
  sizes: { seconds: number; connections: number },
): Promise<ThroughputFigures> {
  const { cluster } = ctx;
  const databaseName = new URL(cluster.env.DATABASE_URL as string).pathname.slice(1);
  const components = (): Record<string, number[]> => ({
    'API replicas': cluster.replicas.map((r) => r.pid),
    workers: cluster.workers.map((w) => w.pid),
    nginx: [cluster.proxy.pid, ...childPids(cluster.proxy.pid)],
    PostgreSQL: pidsWhere(databaseName),
  });
  const cpuAt = () => new Map(Object.values(components()).flatMap((pids) => pids.map((p) => [p, cpuSeconds(p)])));
  let n = 0;
  const ports: (number | null)[] = [];
  const issue: CannonRequest = {
    method: 'POST',
    path: '/api/v1/credentials',
    headers: { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' },
    setupRequest: (req) => {
      const key = `steady-${n++}`;
      return {
        ...req,
        body: JSON.stringify({
          definitionId: seeded.definitionId,
          recipientEmail: `${key}@example.test`,
          completionKey: key,
        }),
      };
    },
    onResponse: (_status, _body, _context, headers) => {
      ports.push(upstreamPortOf(headerValue(headers, 'x-upstream')));
    },
  };
  const before = cpuAt();
  const ownBefore = process.cpuUsage();
  const result = await autocannon({
    url: cluster.proxy.url,
    connections: sizes.connections,
    duration: sizes.seconds,
    requests: [issue],
  } as unknown as Parameters<typeof autocannon>[0]);
  const own = process.cpuUsage(ownBefore);
  const answered = result.requests.total;
  const cpuMsPerRequest: Record<string, number> = {};
  for (const [name, pids] of Object.entries(components())) {
    const used = pids.reduce((sum, pid) => sum + cpuSeconds(pid) - (before.get(pid) ?? 0), 0);
    cpuMsPerRequest[name] = round((used * 1000) / Math.max(1, answered), 2);
  }
  cpuMsPerRequest['load generator'] = round((own.user + own.system) / 1000 / Math.max(1, answered), 2);
  const status = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  const figures: ThroughputFigures = {
    seconds: sizes.seconds,
    connections: sizes.connections,
    requests: answered,
    rps: Math.round(answered / sizes.seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    status,
    byReplica: byReplica(cluster, ports),
    cpuMsPerRequest,
  };
  ctx.check(
    'steady issuance through the proxy',
    answered > 0 &&
      figures.status['201'] === answered &&
      result.errors === 0 &&
      servedByEveryReplica(cluster, figures.byReplica),
    `${answered} issues in ${sizes.seconds} s at ${sizes.connections} connections: ${figures.rps}/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, status ${JSON.stringify(status)}, answered ${JSON.stringify(figures.byReplica)}; CPU ms per request ${JSON.stringify(cpuMsPerRequest)}`,
  );
  return figures;
}

export interface KillFigures {
  requests: number;
  connections: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  status: Record<string, number>;
  byReplica: Record<string, number>;
  timeouts: number;
  kill: {
    /** Responses received when the SIGKILL was sent, and how far into the run. */
    atResponse: number;
    atSeconds: number;
    /** Answers other than 201 (nginx's 502 for the requests in flight at the killed replica). */
    failed: number;
    failedStatus: Record<string, number>;
    /** From the SIGKILL to the last failed answer. */
    failureWindowMs: number;
    restartReadyMs: number;
    /** From the SIGKILL to the first answer the restarted replica served through the proxy. */
    rejoinMs: number | null;
    rpsBeforeKill: number;
    rpsWhileOneReplica: number;
    rpsAfterRejoin: number | null;
  };
  /** Peak resident memory of one API process and of one worker during the run. */
  peakRssMb: { replica: number; worker: number };
  committedAtKill: number;
  retryStatus: Record<string, number>;
  rowsBeforeRetry: number;
  rows: number;
  distinctKeys: number;
  lost: number;
  extra: number;
  auditIssued: number;
  usageCounted: number;
  webhooks: { secondsToDeliverAll: number; outbox: Record<string, number>; count: DeliveryCount };
}

/**
 * autocannon issues `requests` credentials (a unique completion key each, made in setupRequest)
 * through the proxy; when `killAt` of the answers are in, replica 2 is SIGKILLed and restarted on its
 * port. Afterwards: every 201's credential is in the database under its key, rows = 201 answers +
 * the interrupted requests that had committed, nothing else; the interrupted requests are retried
 * with their keys → one credential each; every credential's webhook arrives exactly once.
 */
export async function killLeg(
  ctx: LegContext,
  seeded: SeededIssuer,
  sizes: { requests: number; connections: number; killAt: number },
): Promise<KillFigures> {
  const { cluster, check } = ctx;
  const leg = 'kill';
  await subscribe(ctx, seeded, leg, ['credential.issued']);
  const prefix = 'kill-';
  const bodyFor = (key: string) => ({
    definitionId: seeded.definitionId,
    recipientEmail: `${key}@example.test`,
    recipientName: 'Load Learner',
    completionKey: key,
  });
  const sent = new Set<string>();
  const answered = new Map<string, number>();
  const createdIds = new Map<string, string>();
  const timeline: { t: number; status: number; port: number | null }[] = [];
  const killAtResponse = Math.floor(sizes.requests * sizes.killAt);
  const marks = { start: 0, kill: 0, dead: 0, ready: 0 };
  let killing: Promise<void> | null = null;
  const killed = cluster.replicaPorts[1] as number;

  const issue: CannonRequest = {
    method: 'POST',
    path: '/api/v1/credentials',
    headers: { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' },
    setupRequest: (req, context) => {
      const key = `${prefix}${sent.size}`;
      sent.add(key);
      context.key = key;
      return { ...req, body: JSON.stringify(bodyFor(key)) };
    },
    onResponse: (status, body, context, headers) => {
      const key = String(context.key);
      answered.set(key, status);
      timeline.push({
        t: performance.now(),
        status,
        port: upstreamPortOf(headerValue(headers, 'x-upstream')),
      });
      if (status === 201) createdIds.set(key, String((JSON.parse(body) as { credentialId: unknown }).credentialId));
      if (timeline.length === killAtResponse && !killing) {
        marks.kill = performance.now();
        killing = (async () => {
          await cluster.kill(1);
          marks.dead = performance.now();
          await cluster.restart(1);
          marks.ready = performance.now();
        })();
      }
    },
  };
  const peak = { replica: 0, worker: 0 };
  const sampler = setInterval(() => {
    for (const r of cluster.replicas) peak.replica = Math.max(peak.replica, r.rssMb());
    for (const w of cluster.workers) peak.worker = Math.max(peak.worker, w.rssMb());
  }, 250);
  marks.start = performance.now();
  // autocannon takes per-request context, onResponse and headers, which the shared typings omit.
  let result: Awaited<ReturnType<typeof autocannon>>;
  try {
    result = await autocannon({
      url: cluster.proxy.url,
      connections: sizes.connections,
      amount: sizes.requests,
      requests: [issue],
    } as unknown as Parameters<typeof autocannon>[0]);
  } finally {
    clearInterval(sampler);
  }
  const end = performance.now();
  if (!killing) throw new Error(`the run ended before ${killAtResponse} answers: no replica was killed`);
  await killing;

  const failedKeys = [...sent].filter((key) => answered.get(key) !== 201);
  const failedAnswers = timeline.filter((e) => e.status !== 201);
  const rejoin = timeline.find((e) => e.t > marks.ready && e.port === killed);
  // Not rejoined during the run: probe through the proxy (bounded) until the restarted replica answers.
  let rejoinAt = rejoin?.t ?? null;
  for (let tries = 0; rejoinAt === null && tries < 150; tries++) {
    const probe = await ctx.client.call('/health');
    if (probe.upstreamPort === killed) rejoinAt = performance.now();
    else await sleep(100);
  }
  const rate = (from: number, to: number) => {
    const n = timeline.filter((e) => e.t > from && e.t <= to).length;
    return to > from ? Math.round(n / ((to - from) / 1000)) : 0;
  };
  const rejoinedInRun = rejoin !== undefined;

  const before = await credentialKeys(ctx.db, seeded.issuerId);
  const lost = [...createdIds].filter(([key, id]) => before.byKey.get(key) !== id).length;
  const extra = [...before.byKey.keys()].filter((key) => !sent.has(key)).length;
  const committedAtKill = failedKeys.filter((key) => before.byKey.has(key)).length;

  const retries = await inBatches(failedKeys, 16, async (key) => ({
    key,
    answer: await ctx.client.call('/api/v1/credentials', { key: seeded.key, body: bodyFor(key) }),
  }));
  const after = await credentialKeys(ctx.db, seeded.issuerId);
  const retryConsistent = retries.every(
    ({ key, answer }) =>
      (answer.status === 200 && before.byKey.get(key) === answer.body.credentialId) ||
      (answer.status === 201 && !before.byKey.has(key) && after.byKey.get(key) === answer.body.credentialId),
  );
  const waited = await awaitDeliveries(
    ctx,
    leg,
    seeded.issuerId,
    [{ event: 'credential.issued', ids: [...after.byKey.values()] }],
    120_000 + 10 * sizes.requests,
  );
  const count = countDeliveries(ctx.receiver.received(leg));
  const counts = await bookkeeping(ctx.db, seeded.issuerId);
  const status = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  const figures: KillFigures = {
    requests: sizes.requests,
    connections: sizes.connections,
    seconds: round((end - marks.start) / 1000, 2),
    rps: Math.round(timeline.length / ((end - marks.start) / 1000)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    status,
    byReplica: byReplica(
      cluster,
      timeline.map((e) => e.port),
    ),
    timeouts: result.timeouts,
    kill: {
      atResponse: killAtResponse,
      atSeconds: round((marks.kill - marks.start) / 1000, 2),
      failed: failedAnswers.length,
      failedStatus: tally(failedAnswers.map((e) => e.status)),
      failureWindowMs:
        failedAnswers.length > 0 ? Math.round(Math.max(...failedAnswers.map((e) => e.t)) - marks.kill) : 0,
      restartReadyMs: Math.round(marks.ready - marks.kill),
      rejoinMs: rejoinAt === null ? null : Math.round(rejoinAt - marks.kill),
      rpsBeforeKill: rate(marks.start, marks.kill),
      rpsWhileOneReplica: rate(marks.kill, rejoinedInRun && rejoinAt !== null ? rejoinAt : end),
      rpsAfterRejoin: rejoinedInRun && rejoinAt !== null ? rate(rejoinAt, end) : null,
    },
    peakRssMb: { replica: round(peak.replica), worker: round(peak.worker) },
    committedAtKill,
    retryStatus: tally(retries.map((r) => r.answer.status)),
    rowsBeforeRetry: before.rows,
    rows: after.rows,
    distinctKeys: after.byKey.size,
    lost,
    extra,
    ...counts,
    webhooks: { secondsToDeliverAll: waited.seconds, outbox: waited.outbox, count },
  };
  const k = figures.kill;
  check(
    'replica killed mid-run',
    k.atResponse > 0 && timeline.some((e) => e.t > marks.dead && e.status === 201) && k.failed > 0,
    `SIGKILL at answer ${k.atResponse}/${sizes.requests} (${k.atSeconds} s in): ${k.failed} requests in flight failed ${JSON.stringify(k.failedStatus)} within ${k.failureWindowMs} ms; the other replica went on answering`,
  );
  check(
    'no 500 and no unanswered request',
    // 502: nginx, for a request in flight at the killed replica; 503: a replica shedding load (Retry-After).
    Object.keys(status).every((code) => !code.startsWith('5') || code === '502' || code === '503') &&
      result.timeouts === 0,
    `status ${JSON.stringify(status)}, ${result.timeouts} timeouts`,
  );
  check(
    'every 201 is in the database under its key',
    lost === 0 && createdIds.size === (status['201'] ?? 0),
    `${createdIds.size} answered 201, ${lost} of them missing or under another id`,
  );
  check(
    'rows = 201 answers + interrupted requests that had committed',
    extra === 0 && before.rows === createdIds.size + committedAtKill,
    `${before.rows} rows = ${createdIds.size} answered 201 + ${committedAtKill} committed before the kill cut their answer; ${extra} rows with keys never sent`,
  );
  check(
    'interrupted requests retried with their keys → one credential each',
    retryConsistent && after.rows === sent.size && figures.distinctKeys === sent.size,
    `${failedKeys.length} retried: ${JSON.stringify(figures.retryStatus)} (200 = committed before the kill, same id); ${after.rows} rows for ${sent.size} keys sent`,
  );
  check(
    'audit and quota count each credential once after the kill',
    counts.auditIssued === after.rows && counts.usageCounted === after.rows,
    `${counts.auditIssued} audit records, ${counts.usageCounted} issuances counted for ${after.rows} credentials`,
  );
  check(
    'killed replica restarted and rejoined through the proxy',
    rejoinAt !== null,
    `ready ${k.restartReadyMs} ms after the SIGKILL, serving through the proxy after ${k.rejoinMs ?? 'never'} ms`,
  );
  check(
    'webhooks after the kill: each credential delivered once',
    waited.complete &&
      count.deliveries === after.rows &&
      count.repeatedDeliveryIds === 0 &&
      count.duplicateEvents === 0 &&
      count.badSignatures === 0 &&
      waited.outbox.delivered === after.rows,
    `${count.deliveries} deliveries for ${after.rows} credentials, ${count.repeatedDeliveryIds} repeated delivery ids, ${count.duplicateEvents} duplicates, all in ${waited.seconds} s after the retries; outbox ${JSON.stringify(waited.outbox)}`,
  );
  return figures;
}
