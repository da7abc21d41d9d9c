import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { type FaultsCluster, openFaultsCluster } from './faults-cluster.js';
import {
  badFailures,
  driveTraffic,
  firstAfter,
  inWindow,
  pollReadiness,
  type Sample,
  startClock,
  statusCounts,
} from './faults-traffic.js';
import {
  createReport,
  inspectDatabase,
  launchServer,
  percentile,
  type ReliabilityReport,
  type Report,
  type RunOptions,
  request,
  round,
  type SeededIssuer,
  type ServerProcess,
  scalar,
  seedIssuer,
} from './load.harness.js';
import { startFaultProxy } from './proxy.js';

/** src/db/database.ts: the pool's connection timeout and the client-side query timeout. */
const CONNECTION_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 20_000;
const CONCURRENCY = 20;

async function verifyTarget(server: ServerProcess, seeded: SeededIssuer, key: string): Promise<string> {
  const res = await request(`${server.url}/api/v1/credentials`, {
    key: seeded.key,
    body: { definitionId: seeded.definitionId, recipientEmail: 'target@example.test', completionKey: key },
  });
  if (res.status !== 201) throw new Error(`could not issue the verify target: ${res.status}`);
  return String(res.body.credentialId);
}

/** Keys answered 201 that have no row: issuance the client was told succeeded but that was lost. */
async function lostIssues(
  databaseUrl: string,
  samples: Sample[],
): Promise<{ lost: number; committedDespiteError: number }> {
  const inspector = await inspectDatabase(databaseUrl);
  try {
    const keys = new Set(
      (await inspector.db.selectFrom('credentials').select('completion_key').execute()).map((r) => r.completion_key),
    );
    const issues = samples.filter((s) => s.kind === 'issue' && s.key !== null);
    return {
      lost: issues.filter((s) => s.status === 201 && !keys.has(s.key as string)).length,
      committedDespiteError: issues.filter((s) => s.status !== 201 && keys.has(s.key as string)).length,
    };
  } finally {
    await inspector.close();
  }
}

interface Outage {
  kind: 'stop-start' | 'restart';
  at: number;
  holdMs: number;
}

/** PostgreSQL stopped and restarted under load: readiness follows, only 503s meanwhile, no exit. */
async function postgresRestartLeg(report: Report, cluster: FaultsCluster, full: boolean): Promise<void> {
  const databaseUrl = await cluster.createDatabase('accolade_faults_restart');
  const seeded = await seedIssuer(databaseUrl);
  const server = await launchServer({ DATABASE_URL: databaseUrl });
  const totalMs = full ? 90_000 : 20_000;
  const plan: Outage[] = full
    ? [
        { kind: 'stop-start', at: 10_000, holdMs: 10_000 },
        { kind: 'restart', at: 40_000, holdMs: 0 },
        { kind: 'stop-start', at: 60_000, holdMs: 5_000 },
      ]
    : [{ kind: 'stop-start', at: 5_000, holdMs: 4_000 }];
  try {
    const verifyId = await verifyTarget(server, seeded, 'restart-target');
    const clock = startClock();
    let done = false;
    const traffic = driveTraffic(server.url, seeded, {
      concurrency: CONCURRENCY,
      keyPrefix: 'restart-',
      verifyId,
      clock,
      stop: () => done,
      maxMs: totalMs + 60_000,
    });
    const readiness = pollReadiness(server.url, { clock, everyMs: 100, stop: () => done, maxMs: totalMs + 60_000 });
    const events: { kind: string; downAt: number; downDone: number; upAt: number }[] = [];
    for (const outage of plan) {
      await sleep(Math.max(0, outage.at - clock.now()));
      const downAt = clock.now();
      if (outage.kind === 'restart') {
        cluster.restart();
        const upAt = clock.now();
        events.push({ kind: outage.kind, downAt, downDone: downAt, upAt });
      } else {
        cluster.stop();
        const downDone = clock.now();
        await sleep(outage.holdMs);
        cluster.start();
        events.push({ kind: outage.kind, downAt, downDone, upAt: clock.now() });
      }
    }
    await sleep(Math.max(0, totalMs - clock.now()));
    done = true;
    const samples = await traffic;
    const ready = await readiness;

    const outages = events.map((e) => {
      const during = inWindow(samples, e.downAt, e.upAt + 5_000);
      return {
        ...e,
        downAt: Math.round(e.downAt),
        downDone: Math.round(e.downDone),
        upAt: Math.round(e.upAt),
        // A quick restart may fall between two probes; a 503 from a later outage does not count.
        readiness503AfterMs: firstAfter(
          ready.filter((r) => r.at <= e.upAt + 5_000),
          e.downDone,
          503,
        ),
        readiness200AfterRecoveryMs: firstAfter(ready, e.upAt, 200),
        statusDuringOutage: statusCounts(during),
        badDuringOutage: badFailures(during).length,
      };
    });
    const exitedDuring = server.hasExited();
    const finalIssue = await request(`${server.url}/api/v1/credentials`, {
      key: seeded.key,
      body: { definitionId: seeded.definitionId, recipientEmail: 'after@example.test', completionKey: 'restart-after' },
    });
    const reconciliation = await lostIssues(databaseUrl, samples);
    const bad = badFailures(samples);
    report.figures.postgresRestart = {
      seconds: totalMs / 1000,
      concurrency: CONCURRENCY,
      requests: samples.length,
      status: statusCounts(samples),
      outages,
      readinessSamples: ready.length,
      badFailures: bad.length,
      badExamples: bad.slice(0, 5),
      serverExited: exitedDuring,
      finalIssueStatus: finalIssue.status,
      ...reconciliation,
    };
    report.check('pg restart: process never exits', !exitedDuring && !server.hasExited(), `exited: ${exitedDuring}`);
    report.check(
      'pg restart: only 503 with Retry-After (0 × 500)',
      bad.length === 0,
      `${bad.length} bad answers of ${samples.length}; statuses ${JSON.stringify(statusCounts(samples))}`,
    );
    for (const o of outages.filter((x) => x.kind === 'stop-start')) {
      report.check(
        `pg outage at ${Math.round(o.downAt / 1000)} s: readiness 503 within 2 s`,
        o.readiness503AfterMs !== null && o.readiness503AfterMs <= 2_000,
        `${o.readiness503AfterMs} ms after the cluster stopped`,
      );
      report.check(
        `pg outage at ${Math.round(o.downAt / 1000)} s: readiness 200 within 5 s of recovery`,
        o.readiness200AfterRecoveryMs !== null && o.readiness200AfterRecoveryMs <= 5_000,
        `${o.readiness200AfterRecoveryMs} ms after the cluster was back`,
      );
    }
    report.check(
      'pg restart: issuing works afterwards, nothing answered 201 was lost',
      finalIssue.status === 201 && reconciliation.lost === 0,
      `final issue ${finalIssue.status}; ${reconciliation.lost} lost; ${reconciliation.committedDespiteError} committed although the answer was an error (commit acknowledged as the connection died)`,
    );
  } finally {
    await server.stop();
  }
}

/** A database that stops answering (the proxy paused): bounded failures as 503, stable memory, recovery. */
async function stalledDatabaseLeg(report: Report, cluster: FaultsCluster, full: boolean): Promise<void> {
  const directUrl = await cluster.createDatabase('accolade_faults_stall');
  const seeded = await seedIssuer(directUrl);
  const proxy = await startFaultProxy({ host: '127.0.0.1', port: cluster.port });
  const proxiedUrl = directUrl.replace(`:${cluster.port}/`, `:${proxy.port}/`);
  const server = await launchServer({ DATABASE_URL: proxiedUrl });
  const warmMs = full ? 20_000 : 10_000;
  const stallMs = full ? 30_000 : 8_000;
  const afterMs = full ? 30_000 : 12_000;
  try {
    const verifyId = await verifyTarget(server, seeded, 'stall-target');
    const clock = startClock();
    let done = false;
    const rss: { at: number; mb: number }[] = [];
    const sampler = setInterval(() => rss.push({ at: clock.now(), mb: server.rssMb() }), 250);
    const traffic = driveTraffic(server.url, seeded, {
      concurrency: CONCURRENCY,
      keyPrefix: 'stall-',
      verifyId,
      clock,
      stop: () => done,
      maxMs: warmMs + stallMs + afterMs + 60_000,
    });
    const readiness = pollReadiness(server.url, {
      clock,
      everyMs: 100,
      stop: () => done,
      maxMs: warmMs + stallMs + afterMs + 60_000,
    });
    await sleep(warmMs);
    const pausedAt = clock.now();
    proxy.pause();
    await sleep(stallMs);
    const resumedAt = clock.now();
    proxy.resume();
    await sleep(afterMs);
    done = true;
    const samples = await traffic;
    const ready = await readiness;
    clearInterval(sampler);

    // Baseline: the highest RSS of the warmed-up traffic before the stall (the heap settles in the first seconds).
    const baseline = Math.max(...rss.filter((r) => r.at >= 3_000 && r.at < pausedAt).map((r) => r.mb));
    // What the stall itself costs: the peak while requests pile up; the catch-up after it is reported apart.
    const peak = Math.max(...rss.filter((r) => r.at >= pausedAt && r.at <= resumedAt).map((r) => r.mb));
    const peakAfter = Math.max(...rss.filter((r) => r.at > resumedAt).map((r) => r.mb));
    const growth = baseline > 0 ? (peak - baseline) / baseline : 0;
    // Every request in flight at some moment of the stall, including those waiting since before it.
    const stalled = samples.filter((s) => s.start < resumedAt && s.end > pausedAt);
    const failed = stalled.filter((s) => s.status !== 200 && s.status !== 201);
    const failedLatency = failed.map((s) => s.end - s.start);
    const bound = CONNECTION_TIMEOUT_MS + QUERY_TIMEOUT_MS + 2_000;
    const overBound = stalled.filter((s) => s.end - s.start > bound);
    // The first request the stall failed, whether it was sent before the pause or during it: on a slow
    // machine every worker can still be waiting on a request sent before the pause when the stall ends.
    const first503 = samples.find((s) => s.end > pausedAt && s.start < resumedAt && s.status === 503);
    const afterResume = samples.filter((s) => s.start >= resumedAt);
    const firstOkAfter = afterResume.find((s) => s.status === 200 || s.status === 201);
    const lastBadAfter = [...afterResume].reverse().find((s) => s.status !== 200 && s.status !== 201);
    const bad = badFailures(samples);
    const reconciliation = await lostIssues(directUrl, samples);
    report.figures.stalledDatabase = {
      stallSeconds: stallMs / 1000,
      concurrency: CONCURRENCY,
      requests: samples.length,
      status: statusCounts(samples),
      statusDuringStall: statusCounts(stalled),
      firstFailureAfterPauseMs: first503 ? Math.round(first503.end - pausedAt) : null,
      failedDuringStall: failed.length,
      failedLatencyMs: {
        p50: Math.round(percentile(failedLatency, 50)),
        p99: Math.round(percentile(failedLatency, 99)),
        max: Math.round(Math.max(0, ...failedLatency)),
      },
      boundMs: bound,
      overBound: overBound.length,
      readiness503AfterPauseMs: firstAfter(ready, pausedAt, 503),
      readiness200AfterResumeMs: firstAfter(ready, resumedAt, 200),
      firstSuccessAfterResumeMs: firstOkAfter ? Math.round(firstOkAfter.end - resumedAt) : null,
      lastFailureAfterResumeMs: lastBadAfter ? Math.round(lastBadAfter.end - resumedAt) : null,
      rssMb: {
        baseline: round(baseline),
        peak: round(peak),
        growthPercent: round(growth * 100),
        peakAfterResume: round(peakAfter),
      },
      badFailures: bad.length,
      badExamples: bad.slice(0, 5),
      serverExited: server.hasExited(),
      ...reconciliation,
    };
    report.check(
      'stall: failures are 503 with Retry-After (0 × 500)',
      bad.length === 0 && failed.every((s) => s.status === 503),
      `${failed.length} failed during the stall, statuses ${JSON.stringify(statusCounts(stalled))}`,
    );
    report.check(
      'stall: requests fail within the configured timeouts',
      overBound.length === 0 && first503 !== undefined,
      `first 503 ${first503 ? Math.round(first503.end - pausedAt) : '-'} ms after the pause; failed latency p50 ${Math.round(percentile(failedLatency, 50))} ms, max ${Math.round(Math.max(0, ...failedLatency))} ms (bound ${bound} ms = pool connect ${CONNECTION_TIMEOUT_MS} + query ${QUERY_TIMEOUT_MS} + 2000)`,
    );
    report.check(
      'stall: readiness 503 within 2 s of the stall',
      (firstAfter(ready, pausedAt, 503) ?? Number.POSITIVE_INFINITY) <= 2_500,
      `${firstAfter(ready, pausedAt, 503)} ms (the probe's own deadline is 2 s)`,
    );
    report.check(
      'stall: memory stable',
      growth < 0.1,
      `RSS ${round(baseline)} → peak ${round(peak)} MB during the stall (${round(growth * 100)} %); ${round(peakAfter)} MB at most while catching up`,
    );
    report.check(
      'stall: recovers when resumed',
      !server.hasExited() &&
        firstOkAfter !== undefined &&
        (firstAfter(ready, resumedAt, 200) ?? Number.POSITIVE_INFINITY) <= 5_000 &&
        reconciliation.lost === 0,
      `readiness 200 ${firstAfter(ready, resumedAt, 200)} ms, first success ${firstOkAfter ? Math.round(firstOkAfter.end - resumedAt) : '-'} ms after resume; last failure ${lastBadAfter ? Math.round(lastBadAfter.end - resumedAt) : '-'} ms after; ${reconciliation.lost} lost`,
    );
  } finally {
    await server.stop();
    await proxy.close();
  }
}

/** SQLite on a small tmpfs: issue until the disk is full, then free space and issue again. */
async function diskFullLeg(report: Report, full: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'accolade-diskfull-'));
  const sizeMb = 8;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    report.check('disk full: tmpfs mounted', false, `mount failed (root needed): ${String(err)}`);
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  let server: ServerProcess | null = null;
  try {
    const databaseUrl = `sqlite:${join(dir, 'full.db')}`;
    const seeded = await seedIssuer(databaseUrl);
    // Ballast freed later: "space returns" without remounting.
    const ballast = join(dir, 'ballast');
    writeFileSync(ballast, Buffer.alloc(2 * 1024 * 1024, 1));
    server = await launchServer({ DATABASE_URL: databaseUrl });
    const issue = (key: string) =>
      request(`${(server as ServerProcess).url}/api/v1/credentials`, {
        key: seeded.key,
        body: { definitionId: seeded.definitionId, recipientEmail: `${key}@example.test`, completionKey: key },
        timeoutMs: 30_000,
      });
    const statuses: number[] = [];
    const bodies: Record<string, unknown>[] = [];
    const issued = new Set<string>();
    let consecutiveFailures = 0;
    let n = 0;
    const deadline = Date.now() + (full ? 300_000 : 120_000);
    // Eight at a time until 40 answers in a row are failures (the disk is full) or the deadline.
    while (consecutiveFailures < 40 && Date.now() < deadline) {
      const keys = Array.from({ length: 8 }, () => `full-${n++}`);
      const answers = await Promise.all(keys.map(issue));
      answers.forEach((res, i) => {
        statuses.push(res.status);
        if (res.status === 201) {
          issued.add(keys[i] as string);
          consecutiveFailures = 0;
        } else {
          consecutiveFailures++;
          if (bodies.length < 5)
            bodies.push({ status: res.status, retryAfter: res.headers.get('retry-after'), ...res.body });
        }
      });
    }
    const failures = statuses.filter((s) => s !== 201);
    const readinessWhileFull = (await request(`${server.url}/health/ready`)).status;
    rmSync(ballast);
    let resumedAfter = -1;
    for (let attempt = 0; attempt < 50; attempt++) {
      const res = await issue(`resume-${attempt}`);
      if (res.status === 201) {
        resumedAfter = attempt + 1;
        break;
      }
      await sleep(200);
    }
    const exited = server.hasExited();
    await server.stop();
    server = null;
    const inspector = await inspectDatabase(databaseUrl);
    let counts: { credentials: number; auditIssued: number; integrity: string; lost: number };
    try {
      const db = inspector.db;
      const keys = new Set(
        (await db.selectFrom('credentials').select('completion_key').execute()).map((r) => r.completion_key),
      );
      counts = {
        credentials: await scalar(db, sql`select count(*) as n from credentials`),
        auditIssued: await scalar(db, sql`select count(*) as n from audit_log where action = 'credential.issued'`),
        integrity: (await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db)).rows
          .map((r) => r.integrity_check)
          .join(','),
        lost: [...issued].filter((k) => !keys.has(k)).length,
      };
    } finally {
      await inspector.close();
    }
    const wellFormed =
      failures.length > 0 && bodies.every((b) => typeof b.error === 'string' && typeof b.message === 'string');
    const allowed = statuses.every((s) => s === 201 || s === 503 || s === 507);
    const statusCount = statuses.reduce<Record<string, number>>((acc, s) => {
      acc[String(s)] = (acc[String(s)] ?? 0) + 1;
      return acc;
    }, {});
    report.figures.diskFull = {
      tmpfsMb: sizeMb,
      requests: statuses.length,
      issued201: issued.size,
      statusCounts: statusCount,
      exampleErrorBodies: bodies,
      readinessWhileFull,
      resumedAfterAttempts: resumedAfter,
      serverExited: exited,
      ...counts,
    };
    report.check(
      'disk full: clear 503/507 Error bodies (0 × 500)',
      allowed && wellFormed,
      `${failures.length} refusals, statuses ${JSON.stringify(statusCount)}; e.g. ${JSON.stringify(bodies[0] ?? null)}`,
    );
    report.check(
      'disk full: counts consistent',
      counts.credentials === counts.auditIssued &&
        counts.lost === 0 &&
        counts.credentials === issued.size + (resumedAfter > 0 ? 1 : 0),
      `${counts.credentials} credentials, ${counts.auditIssued} credential.issued audit records, ${issued.size} + ${resumedAfter > 0 ? 1 : 0} answered 201, ${counts.lost} lost; integrity ${counts.integrity}`,
    );
    report.check('disk full: integrity', counts.integrity === 'ok', counts.integrity);
    report.check(
      'disk full: issuing resumes once space is freed; process never exits',
      resumedAfter > 0 && !exited,
      `first 201 on attempt ${resumedAfter} after freeing 2 MB; exited ${exited}`,
    );
  } finally {
    if (server) await server.stop();
    try {
      execFileSync('umount', [dir], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/**
 * Issue 9 item 4: PostgreSQL restarted under load, a stalled database behind the fault proxy, and
 * SQLite on a full disk. The PostgreSQL legs use a throwaway cluster that is dropped at the end.
 */
export async function runFaults(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('faults', options);
  report.log('PostgreSQL legs on a throwaway cluster of their own (faults-<pid>, dropped at the end)');
  const cluster = await openFaultsCluster();
  try {
    await postgresRestartLeg(report, cluster, options.full);
    await stalledDatabaseLeg(report, cluster, options.full);
  } finally {
    cluster.drop();
  }
  report.log('SQLite on a full disk (8 MiB tmpfs)');
  await diskFullLeg(report, options.full);
  const restart = report.figures.postgresRestart as {
    outages: { readiness503AfterMs: number | null; readiness200AfterRecoveryMs: number | null }[];
  };
  const stall = report.figures.stalledDatabase as {
    rssMb: { growthPercent: number };
    failedLatencyMs: { max: number };
  };
  const disk = report.figures.diskFull as { statusCounts: Record<string, number> } | undefined;
  return report.finish(
    `pg restart: readiness 503 after ${restart.outages.map((o) => o.readiness503AfterMs).join('/')} ms, 200 after ${restart.outages.map((o) => o.readiness200AfterRecoveryMs).join('/')} ms; stall: failed within ${stall.failedLatencyMs.max} ms, RSS ${stall.rssMb.growthPercent} %; disk full: ${JSON.stringify(disk?.statusCounts ?? null)}`,
  );
}
