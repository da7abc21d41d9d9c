import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freshBenchDatabase } from '../../bench/lib/harness.js';
import {
  createReport,
  inspectDatabase,
  launchServer,
  type ReliabilityReport,
  type Report,
  type RunOptions,
  request,
  type SeededIssuer,
  type ServerProcess,
  seedIssuer,
} from './load.harness.js';

const run = promisify(execFile);

/** Runs the built console (`bin/accolade.js`) against `databaseUrl`; never throws on a non-zero exit. */
export async function accolade(args: string[], databaseUrl: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/accolade.js', ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, out: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** Issues, revokes and reissues through the API so the copy has every kind of row and audit record. */
async function populate(server: ServerProcess, seeded: SeededIssuer, count: number): Promise<void> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - start) }, (_, i) =>
        request(`${server.url}/api/v1/credentials`, {
          key: seeded.key,
          body: {
            definitionId: seeded.definitionId,
            recipientEmail: `b${start + i}@example.test`,
            recipientName: `Backup Learner ${start + i}`,
            completionKey: `backup-${start + i}`,
          },
        }),
      ),
    );
    ids.push(...batch.map((r) => String(r.body.credentialId)));
  }
  for (const id of ids.slice(0, 10)) {
    await request(`${server.url}/api/v1/credentials/${id}/revoke`, {
      key: seeded.key,
      body: { reason: 'backup test' },
    });
  }
  for (const id of ids.slice(10, 15)) {
    await request(`${server.url}/api/v1/credentials/${id}/reissue`, { key: seeded.key, body: {} });
  }
}

/** Issues in the background until stopped: the backup must be taken while writes happen. */
function backgroundWrites(server: ServerProcess, seeded: SeededIssuer, prefix: string) {
  let stop = false;
  let written = 0;
  const done = (async () => {
    for (let n = 0; !stop && n < 100_000; n++) {
      const res = await request(`${server.url}/api/v1/credentials`, {
        key: seeded.key,
        body: {
          definitionId: seeded.definitionId,
          recipientEmail: `w${n}@example.test`,
          completionKey: `${prefix}${n}`,
        },
      });
      if (res.status === 201) written++;
    }
  })();
  return {
    async stop() {
      stop = true;
      await done;
      return written;
    },
  };
}

type Rows = Record<string, unknown>[];

async function snapshot(databaseUrl: string): Promise<{ credentials: Rows; audit: Rows }> {
  const inspector = await inspectDatabase(databaseUrl);
  try {
    return {
      credentials: await inspector.db.selectFrom('credentials').selectAll().orderBy('id').execute(),
      audit: await inspector.db
        .selectFrom('audit_log')
        .selectAll()
        .orderBy('issuer_id')
        .orderBy('stripe')
        .orderBy('seq')
        .execute(),
    };
  } finally {
    await inspector.close();
  }
}

const same = (a: Rows, b: Rows) => JSON.stringify(a) === JSON.stringify(b);

/** Rows of `copy` that are not byte-identical to the row with the same id in `source`. */
function notInSource(copy: Rows, source: Rows): number {
  const byId = new Map(source.map((r) => [String(r.id), JSON.stringify(r)]));
  return copy.filter((r) => byId.get(String(r.id)) !== JSON.stringify(r)).length;
}

/** Starts a fresh server on the restored database and checks it serves every credential. */
async function restoreAndServe(databaseUrl: string, seeded: SeededIssuer, expected: number) {
  const started = performance.now();
  const server = await launchServer({ DATABASE_URL: databaseUrl });
  const readyMs = Math.round(performance.now() - started);
  try {
    const list = await request(`${server.url}/api/v1/credentials?limit=1`, { key: seeded.key });
    return { readyMs, apiTotal: Number(list.body.total), expected };
  } finally {
    await server.stop();
  }
}

async function sqliteLeg(report: Report, full: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'accolade-backup-'));
  const source = `sqlite:${join(dir, 'live.db')}`;
  try {
    const seeded = await seedIssuer(source);
    const server = await launchServer({ DATABASE_URL: source });
    try {
      await populate(server, seeded, full ? 5_000 : 300);
      // Backup 1 while writes go on: a consistent snapshot, every row identical to the live one.
      const writes = backgroundWrites(server, seeded, 'during-');
      const underLoadFile = join(dir, 'under-load.db');
      const t0 = performance.now();
      const underLoad = await accolade(['backup', underLoadFile], source);
      const underLoadMs = Math.round(performance.now() - t0);
      const writtenDuring = await writes.stop();
      // Backup 2 with the server still running but idle: must equal the live database row for row.
      const atRestFile = join(dir, 'at-rest.db');
      const atRest = await accolade(['backup', atRestFile], source);
      const again = await accolade(['backup', atRestFile], source);
      const live = await snapshot(source);
      const copyUnderLoad = await snapshot(`sqlite:${underLoadFile}`);
      const copyAtRest = await snapshot(`sqlite:${atRestFile}`);
      const restored = await restoreAndServe(`sqlite:${atRestFile}`, seeded, live.credentials.length);
      const verifyRestore = await accolade(['audit', 'verify'], `sqlite:${atRestFile}`);
      const verifyUnderLoad = await accolade(['audit', 'verify'], `sqlite:${underLoadFile}`);
      const figures = {
        credentials: live.credentials.length,
        auditRecords: live.audit.length,
        backupUnderLoad: {
          exit: underLoad.code,
          ms: underLoadMs,
          bytes: underLoad.code === 0 ? statSync(underLoadFile).size : 0,
          writesDuringBackupRun: writtenDuring,
          credentialsInCopy: copyUnderLoad.credentials.length,
          rowsDifferingFromLive: notInSource(copyUnderLoad.credentials, live.credentials),
          auditVerifyExit: verifyUnderLoad.code,
          output: underLoad.out.trim(),
        },
        backupAtRest: {
          exit: atRest.code,
          credentialsIdentical: same(copyAtRest.credentials, live.credentials),
          auditIdentical: same(copyAtRest.audit, live.audit),
          refusesToOverwrite: again.code !== 0,
        },
        restore: { ...restored, auditVerifyExit: verifyRestore.code, auditVerify: verifyRestore.out.trim() },
      };
      report.figures.sqlite = figures;
      report.check(
        'sqlite backup while writing',
        underLoad.code === 0 &&
          figures.backupUnderLoad.rowsDifferingFromLive === 0 &&
          copyUnderLoad.credentials.length > 0 &&
          verifyUnderLoad.code === 0,
        `${underLoad.out.trim()} (${writtenDuring} credentials issued while the command ran; ${figures.backupUnderLoad.rowsDifferingFromLive} copied rows differ from the live ones; audit verify exit ${verifyUnderLoad.code})`,
      );
      report.check(
        'sqlite restore identical',
        atRest.code === 0 &&
          figures.backupAtRest.credentialsIdentical &&
          figures.backupAtRest.auditIdentical &&
          restored.apiTotal === live.credentials.length,
        `${live.credentials.length} credentials and ${live.audit.length} audit records identical; the restored instance was ready in ${restored.readyMs} ms and lists ${restored.apiTotal}`,
      );
      report.check(
        'sqlite audit verify on the restore',
        verifyRestore.code === 0 && /chain intact/.test(verifyRestore.out),
        verifyRestore.out.trim(),
      );
      report.check('sqlite backup refuses to overwrite', again.code !== 0, again.out.trim());
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresLeg(report: Report, postgresUrl: string, full: boolean): Promise<void> {
  const live = await freshBenchDatabase('postgres', postgresUrl);
  const restoreName = `accolade_restore_${process.pid}_${Date.now()}`;
  const restoreUrl = new URL(postgresUrl);
  restoreUrl.pathname = `/${restoreName}`;
  const dir = mkdtempSync(join(tmpdir(), 'accolade-pgdump-'));
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    const seeded = await seedIssuer(live.url);
    const server = await launchServer({ DATABASE_URL: live.url });
    let dumpMs = 0;
    let restoreMs = 0;
    const dumpFile = join(dir, 'accolade.dump');
    let dumpOut = '';
    const cli = await accolade(['backup', join(dir, 'nope.db')], live.url);
    try {
      await populate(server, seeded, full ? 5_000 : 300);
      const writes = backgroundWrites(server, seeded, 'during-');
      const t0 = performance.now();
      try {
        await run('pg_dump', ['--format=custom', `--file=${dumpFile}`, live.url]);
      } catch (err) {
        dumpOut = String((err as { stderr?: string }).stderr ?? err);
      }
      dumpMs = Math.round(performance.now() - t0);
      await writes.stop();
    } finally {
      await server.stop();
    }
    const t1 = performance.now();
    await admin.query(`create database ${restoreName}`);
    try {
      await run('pg_restore', ['--no-owner', `--dbname=${restoreUrl.toString()}`, dumpFile]);
    } catch (err) {
      dumpOut += String((err as { stderr?: string }).stderr ?? err);
    }
    restoreMs = Math.round(performance.now() - t1);
    const source = await snapshot(live.url);
    const copy = await snapshot(restoreUrl.toString());
    const restored = await restoreAndServe(restoreUrl.toString(), seeded, source.credentials.length);
    const verify = await accolade(['audit', 'verify'], restoreUrl.toString());
    // The dump is a snapshot taken while writes went on: every copied row equals the live one.
    const differing = notInSource(copy.credentials, source.credentials);
    const auditDiffering = notInSource(copy.audit, source.audit);
    report.figures.postgres = {
      backupCommand: { exit: cli.code, output: cli.out.trim() },
      dump: { ms: dumpMs, bytes: dumpOut === '' ? statSync(dumpFile).size : 0, errors: dumpOut },
      restore: { ms: restoreMs, ...restored, auditVerifyExit: verify.code, auditVerify: verify.out.trim() },
      credentials: { live: source.credentials.length, restored: copy.credentials.length, differing },
      audit: { live: source.audit.length, restored: copy.audit.length, differing: auditDiffering },
    };
    report.check(
      'postgres: accolade backup points to pg_dump (exit 2)',
      cli.code === 2 && /pg_dump/.test(cli.out),
      cli.out.split('\n')[0] ?? '',
    );
    report.check(
      'postgres pg_dump | pg_restore identical',
      dumpOut === '' &&
        differing === 0 &&
        auditDiffering === 0 &&
        copy.credentials.length > 0 &&
        restored.apiTotal === copy.credentials.length,
      `dump ${dumpMs} ms, restore ${restoreMs} ms; ${copy.credentials.length} credentials (live ${source.credentials.length} after the writes that followed the dump), ${differing} differ; ${copy.audit.length} audit records, ${auditDiffering} differ; restored instance ready in ${restored.readyMs} ms${dumpOut ? `; errors: ${dumpOut.slice(0, 300)}` : ''}`,
    );
    report.check(
      'postgres audit verify on the restore',
      verify.code === 0 && /chain intact/.test(verify.out),
      verify.out.trim(),
    );
  } finally {
    await admin.query(`drop database if exists ${restoreName} with (force)`);
    await admin.end();
    await live.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Issue 9 item 11: `accolade backup <file>` while the server runs, a fresh instance on the copy with
 * identical credentials and a verifying audit chain; on PostgreSQL a pg_dump | pg_restore round trip.
 */
export async function runBackup(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('backup', options);
  await sqliteLeg(report, options.full);
  if (options.postgresUrl) await postgresLeg(report, options.postgresUrl, options.full);
  const sqlite = report.figures.sqlite as { credentials: number; backupUnderLoad: { ms: number } };
  const postgres = report.figures.postgres as { dump: { ms: number }; restore: { ms: number } } | undefined;
  return report.finish(
    `sqlite: ${sqlite.credentials} credentials, online backup ${sqlite.backupUnderLoad.ms} ms${postgres ? `; postgres: dump ${postgres.dump.ms} ms, restore ${postgres.restore.ms} ms` : ''}`,
  );
}
