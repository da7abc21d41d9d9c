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
  type SeededIssuer,
  scalar,
  seedIssuer,
  tally,
  withDatabase,
} from './load.harness.js';

export const STORM_KEYS = 20;
export const STORM_REQUESTS_PER_KEY = 10;

export interface StormResult {
  engine: Engine;
  processes: number;
  rounds: number;
  requests: number;
  status: Record<string, number>;
  keys: number;
  /** Keys whose responses all carried one credential id, with exactly one 201. */
  keysConsistent: number;
  credentials: number;
  auditIssued: number;
  usageCounted: number;
}

/**
 * Fires `perKey` identical requests for each of `keys` completion keys at once, spread round-robin
 * over `urls` (one or more server processes), and checks each key's answers agree.
 */
export async function storm(
  urls: string[],
  seeded: SeededIssuer,
  options: { keys: number; perKey: number; keyPrefix: string },
): Promise<{ statuses: number[]; consistentKeys: number; mismatches: string[] }> {
  const jobs: Promise<{ key: string; status: number; id: unknown; created: unknown }>[] = [];
  let n = 0;
  for (let r = 0; r < options.perKey; r++) {
    for (let k = 0; k < options.keys; k++) {
      const key = `${options.keyPrefix}${k}`;
      const url = urls[n++ % urls.length] as string;
      jobs.push(
        request(`${url}/api/v1/credentials`, {
          key: seeded.key,
          body: {
            definitionId: seeded.definitionId,
            recipientEmail: `storm-${k}@example.test`,
            recipientName: 'Storm Learner',
            completionKey: key,
          },
        }).then((res) => ({ key, status: res.status, id: res.body.credentialId, created: res.body.created })),
      );
    }
  }
  const answers = await Promise.all(jobs);
  const byKey = new Map<string, typeof answers>();
  for (const a of answers) byKey.set(a.key, [...(byKey.get(a.key) ?? []), a]);
  const mismatches: string[] = [];
  let consistentKeys = 0;
  for (const [key, list] of byKey) {
    const ids = new Set(list.map((a) => a.id));
    const created = list.filter((a) => a.status === 201 && a.created === true).length;
    const replays = list.filter((a) => a.status === 200 && a.created === false).length;
    if (ids.size === 1 && typeof list[0]?.id === 'string' && created === 1 && replays === list.length - 1) {
      consistentKeys++;
    } else {
      mismatches.push(
        `${key}: ids ${ids.size}, 201 ${created}, statuses ${JSON.stringify(tally(list.map((a) => a.status)))}`,
      );
    }
  }
  return { statuses: answers.map((a) => a.status), consistentKeys, mismatches };
}

async function stormLeg(
  engine: Engine,
  processes: number,
  rounds: number,
  options: RunOptions,
): Promise<StormResult & { mismatches: string[] }> {
  return withDatabase(engine, options.postgresUrl, async (databaseUrl) => {
    const seeded = await seedIssuer(databaseUrl);
    const servers = [];
    for (let i = 0; i < processes; i++) {
      servers.push(
        await startServer({ DATABASE_URL: databaseUrl, OPEN_RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'error' }),
      );
    }
    try {
      const statuses: number[] = [];
      const mismatches: string[] = [];
      let consistent = 0;
      for (let round = 0; round < rounds; round++) {
        const result = await storm(
          servers.map((s) => s.url),
          seeded,
          { keys: STORM_KEYS, perKey: STORM_REQUESTS_PER_KEY, keyPrefix: `storm-${round}-` },
        );
        statuses.push(...result.statuses);
        mismatches.push(...result.mismatches);
        consistent += result.consistentKeys;
      }
      const inspector = await inspectDatabase(databaseUrl);
      try {
        const db = inspector.db;
        const credentials = await scalar(
          db,
          sql`select count(*) as n from credentials where issuer_id = ${seeded.issuerId}`,
        );
        const auditIssued = await scalar(
          db,
          sql`select count(*) as n from audit_log where issuer_id = ${seeded.issuerId} and action = 'credential.issued'`,
        );
        const usageCounted = await scalar(
          db,
          sql`select coalesce(sum(issuance), 0) as n from usage_counters where issuer_id = ${seeded.issuerId}`,
        );
        return {
          engine,
          processes,
          rounds,
          requests: statuses.length,
          status: tally(statuses),
          keys: STORM_KEYS * rounds,
          keysConsistent: consistent,
          credentials,
          auditIssued,
          usageCounted,
          mismatches: mismatches.slice(0, 10),
        };
      } finally {
        await inspector.close();
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  });
}

/**
 * Issue 9 item 2: 200 concurrent requests over 20 completion keys → exactly 20 credentials and one
 * id per key; on PostgreSQL also across two server processes sharing the database.
 */
export async function runStorm(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('storm', options);
  const rounds = options.full ? 10 : 1;
  const legs: { engine: Engine; processes: number }[] = enginesFor(options).map((engine) => ({ engine, processes: 1 }));
  if (options.postgresUrl) legs.push({ engine: 'postgres', processes: 2 });
  const results: StormResult[] = [];
  for (const { engine, processes } of legs) {
    const label = `${engine} ×${processes} process${processes > 1 ? 'es' : ''}`;
    report.log(`${label}: ${rounds} storm(s) of ${STORM_KEYS * STORM_REQUESTS_PER_KEY} concurrent requests`);
    const { mismatches, ...leg } = await stormLeg(engine, processes, rounds, options);
    results.push(leg);
    report.figures[`${engine}-${processes}p`] = { ...leg, mismatches };
    const expected = STORM_KEYS * rounds;
    report.check(
      `${label} credentials`,
      leg.credentials === expected,
      `${leg.credentials} credentials for ${expected} keys`,
    );
    report.check(
      `${label} one id per key`,
      leg.keysConsistent === expected,
      `${leg.keysConsistent}/${expected} keys answered one id with exactly one 201 ${mismatches.length ? mismatches.join('; ') : ''}`,
    );
    report.check(
      `${label} audit and quota`,
      leg.auditIssued === expected && leg.usageCounted === expected,
      `${leg.auditIssued} credential.issued audit records, ${leg.usageCounted} counted against the quota`,
    );
    report.check(
      `${label} statuses`,
      Object.keys(leg.status).every((s) => s === '200' || s === '201'),
      JSON.stringify(leg.status),
    );
  }
  return report.finish(
    results
      .map(
        (r) =>
          `${r.engine}×${r.processes}: ${r.keysConsistent}/${r.keys} keys consistent, ${r.credentials} credentials`,
      )
      .join('; '),
  );
}
