import autocannon from 'autocannon';
import { sql } from 'kysely';
import { startServer } from '../../bench/lib/harness.js';
import {
  createReport,
  type Engine,
  enginesFor,
  inspectDatabase,
  type ReliabilityReport,
  type RunOptions,
  request,
  round,
  scalar,
  seedIssuer,
  withDatabase,
} from './load.harness.js';

/** An autocannon request as its runtime takes it (bench/lib/autocannon.d.ts declares a subset). */
interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Called before each send with the connection's own `context`; returns the request to send. */
  setupRequest?: (request: CannonRequest, context: Record<string, unknown>) => CannonRequest;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}

export const LOAD_CONNECTIONS = 50;

export interface MixedLoadResult {
  engine: Engine;
  seconds: number;
  connections: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  status: Record<string, number>;
  fiveXx: number;
  socketErrors: number;
  /** Requests with no answer within autocannon's 10 s. */
  timeouts: number;
  issuance: { sent: number; created201: number; answeredOther: number; unanswered: number };
  /** Unanswered issues the server had committed anyway (their replay answered 200). */
  committedWhileUnanswered: number;
  rowsAfterRun: number;
  /** rowsAfterRun - (201 responses + committedWhileUnanswered): 0 means none lost, none extra. */
  rowDiscrepancy: number;
  replayStatus: Record<string, number>;
  peakRssMb: number;
}

/**
 * Mixed traffic against a running server: each connection cycles issue (a unique completion key per
 * request) → verify → list. Afterwards every issue that got no answer before the clock stopped is
 * replayed with its key, so the row count can be reconciled exactly with the answers.
 */
export async function mixedLoad(
  baseUrl: string,
  seeded: { key: string; definitionId: string },
  options: { seconds: number; connections: number; keyPrefix: string },
): Promise<Omit<MixedLoadResult, 'engine' | 'rowsAfterRun' | 'rowDiscrepancy' | 'peakRssMb'>> {
  const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
  const verifyBody = await verifyTarget(baseUrl, seeded, options.keyPrefix);

  let counter = 0;
  const sent = new Set<string>();
  const answered = new Map<string, number>();
  const issue: CannonRequest = {
    method: 'POST',
    path: '/api/v1/credentials',
    headers,
    setupRequest: (req, context) => {
      const key = `${options.keyPrefix}${counter++}`;
      context.key = key;
      sent.add(key);
      return { ...req, body: JSON.stringify(issueBody(seeded.definitionId, key)) };
    },
    onResponse: (status, _body, context) => {
      answered.set(String(context.key), status);
    },
  };
  const requests: CannonRequest[] = [
    issue,
    { method: 'POST', path: '/api/v1/verify', headers: { 'content-type': 'application/json' }, body: verifyBody },
    { method: 'GET', path: '/api/v1/credentials?limit=20', headers: { authorization: headers.authorization } },
  ];
  // Called directly (not bench/lib/harness.ts load()) to keep timeouts apart from socket errors;
  // autocannon takes per-request context and onResponse, which the shared typings omit.
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.seconds,
    requests,
  } as unknown as Parameters<typeof autocannon>[0]);
  const status = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  return {
    seconds: options.seconds,
    connections: options.connections,
    rps: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    requests: result.requests.total,
    status,
    fiveXx: fiveXxOf(status),
    // autocannon counts a timeout (no answer within 10 s) as an error too.
    socketErrors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    ...(await reconcileIssues(baseUrl, seeded, sent, answered)),
  };
}

/** The issue request's body for a completion key: a new recipient per key. */
export function issueBody(definitionId: string, key: string) {
  return {
    definitionId,
    recipientEmail: `learner-${key}@example.test`,
    recipientName: 'Load Learner',
    completionKey: key,
  };
}

/** Issues the credential the load's verify requests ask about; returns their body. */
export async function verifyTarget(
  baseUrl: string,
  seeded: { key: string; definitionId: string },
  keyPrefix: string,
): Promise<string> {
  const first = await request(`${baseUrl}/api/v1/credentials`, {
    key: seeded.key,
    body: {
      definitionId: seeded.definitionId,
      recipientEmail: 'verify-target@example.test',
      completionKey: `${keyPrefix}verify-target`,
    },
  });
  if (first.status !== 201) throw new Error(`could not issue the verify target: ${first.status}`);
  return JSON.stringify({ id: String(first.body.credentialId) });
}

export function fiveXxOf(status: Record<string, number>): number {
  return Object.entries(status)
    .filter(([code]) => code.startsWith('5'))
    .reduce((sum, [, n]) => sum + n, 0);
}

/**
 * After a run: every issue sent but not answered before the clock stopped is replayed with its key,
 * so the stored rows can be reconciled exactly with the answers (a replay answering 200 means the
 * server had committed the first send).
 */
export async function reconcileIssues(
  baseUrl: string,
  seeded: { key: string; definitionId: string },
  sent: Set<string>,
  answered: Map<string, number>,
): Promise<Pick<MixedLoadResult, 'issuance' | 'committedWhileUnanswered' | 'replayStatus'>> {
  let created201 = 0;
  let answeredOther = 0;
  for (const status of answered.values()) {
    if (status === 201) created201++;
    else answeredOther++;
  }
  const unanswered = [...sent].filter((key) => !answered.has(key));
  const replayStatus: Record<string, number> = {};
  for (const key of unanswered) {
    const res = await request(`${baseUrl}/api/v1/credentials`, {
      key: seeded.key,
      body: issueBody(seeded.definitionId, key),
    });
    replayStatus[String(res.status)] = (replayStatus[String(res.status)] ?? 0) + 1;
  }
  return {
    issuance: { sent: sent.size, created201, answeredOther, unanswered: unanswered.length },
    committedWhileUnanswered: replayStatus['200'] ?? 0,
    replayStatus,
  };
}

async function engineLeg(engine: Engine, options: RunOptions, seconds: number): Promise<MixedLoadResult> {
  return withDatabase(engine, options.postgresUrl, async (databaseUrl) => {
    const seeded = await seedIssuer(databaseUrl);
    const server = await startServer({
      DATABASE_URL: databaseUrl,
      OPEN_RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'error',
    });
    try {
      const prefix = `load-${engine}-`;
      const run = await mixedLoad(server.url, seeded, { seconds, connections: LOAD_CONNECTIONS, keyPrefix: prefix });
      const inspector = await inspectDatabase(databaseUrl);
      // Rows from the run itself: the verify target and the replays of never-sent requests are excluded.
      const rows = await scalar(
        inspector.db,
        sql`select count(*) as n from credentials where completion_key like ${`${prefix}%`} and completion_key <> ${`${prefix}verify-target`}`,
      );
      await inspector.close();
      const replayCreated = run.replayStatus['201'] ?? 0;
      const rowsAfterRun = rows - replayCreated;
      return {
        engine,
        ...run,
        rowsAfterRun,
        rowDiscrepancy: rowsAfterRun - (run.issuance.created201 + run.committedWhileUnanswered),
        peakRssMb: round(server.peakRssMb()),
      };
    } finally {
      await server.stop();
    }
  });
}

/** Issue 9 item 1: mixed issuance/verify/list at 50 connections on each engine. */
export async function runLoad(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('load', options);
  const seconds = options.full ? 60 : 5;
  const legs: MixedLoadResult[] = [];
  for (const engine of enginesFor(options)) {
    report.log(`${engine}: ${seconds} s of mixed load at ${LOAD_CONNECTIONS} connections`);
    const leg = await engineLeg(engine, options, seconds);
    legs.push(leg);
    report.figures[engine] = leg;
    report.check(`${engine} 5xx`, leg.fiveXx === 0, `${leg.fiveXx} × 5xx of ${leg.requests} requests`);
    report.check(
      `${engine} socket errors`,
      leg.socketErrors === 0 && leg.timeouts === 0,
      `${leg.socketErrors} socket errors, ${leg.timeouts} timeouts (no answer in 10 s); latency p50 ${leg.p50Ms} ms, p99 ${leg.p99Ms} ms, max ${leg.maxMs} ms`,
    );
    report.check(
      `${engine} rows = 201 responses`,
      leg.rowDiscrepancy === 0 && leg.issuance.answeredOther === 0,
      `${leg.rowsAfterRun} rows = ${leg.issuance.created201} × 201 + ${leg.committedWhileUnanswered} committed in flight when the clock stopped (discrepancy ${leg.rowDiscrepancy}; ${leg.issuance.answeredOther} issue answers other than 201)`,
    );
    report.check(
      `${engine} replays`,
      Object.keys(leg.replayStatus).every((s) => s === '200' || s === '201'),
      `${leg.issuance.unanswered} unanswered issues replayed: ${JSON.stringify(leg.replayStatus)}`,
    );
  }
  return report.finish(
    legs
      .map(
        (l) =>
          `${l.engine} ${l.rps} req/s p99 ${l.p99Ms} ms, ${l.fiveXx} × 5xx, ${l.socketErrors} socket errors, rows-201 diff ${l.rowDiscrepancy}`,
      )
      .join('; '),
  );
}
