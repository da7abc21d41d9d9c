import { statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { startReceiver } from '../scale-out/receiver.js';
import { startHarnessApp } from './lib/app.js';
import {
  createReport,
  type Engine,
  enginesFor,
  type ReliabilityReport,
  type RunOptions,
  request,
  round,
  scalar,
  tally,
} from './load.harness.js';

/** The attack of issue 21.3: this many anonymous bulk calls at once, each naming one credential 1,000 times. */
export const ATTACK_CALLS = 30;
export const IDS_PER_CALL = 1000;
/** What the attack may leave behind per client: one event and one delivery (a few, for slack). */
export const MAX_ROWS_LEFT = 3;

export interface AmplificationResult {
  engine: Engine;
  calls: number;
  status: Record<string, number>;
  answersComplete: number;
  seconds: number;
  verificationEvents: number;
  outboxRows: number;
  webhookPosts: number;
  databaseGrowthMb: number | null;
}

function fileMb(file: string | null): number | null {
  if (!file) return null;
  let bytes = 0;
  for (const suffix of ['', '-wal']) {
    try {
      bytes += statSync(file + suffix).size;
    } catch {
      // no WAL yet
    }
  }
  return bytes / 2 ** 20;
}

async function leg(engine: Engine, calls: number): Promise<AmplificationResult> {
  const harness = await startHarnessApp(engine, { env: { WEBHOOK_DISPATCH: 'inline' } });
  const receiver = await startReceiver();
  try {
    const { app } = harness;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const issuer = await harness.issuer('amplified');
    const definition = await app.services.definitions.create(issuer.id, { name: 'Amplified', description: 'x' });
    const { row } = await app.services.issuance.issue(issuer.id, 'reliability', {
      definitionId: definition.id,
      recipientEmail: 'amplified@example.test',
      completionKey: 'amplified-1',
      source: 'api',
    });
    const subscribed = await app.services.webhooks.subscriptions.create(issuer.id, 'cli', {
      url: receiver.urlFor('verified'),
      events: ['credential.verified'],
    });
    receiver.setSecret('verified', subscribed.secret);
    const sizeBefore = fileMb(harness.storage.file);

    const ids = Array.from({ length: IDS_PER_CALL }, () => row.id);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: calls }, () => request(`${base}/api/v1/verify/bulk`, { body: { ids } })),
    );
    const seconds = (performance.now() - started) / 1000;
    await app.services.verification.events.flush();
    // Inline dispatch polls every second: give it a few passes to send whatever was written.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await app.services.webhooks.dispatcher.drain();
    const db = harness.database.db;
    return {
      engine,
      calls,
      status: tally(answers.map((a) => a.status)),
      answersComplete: answers.filter((a) => a.status === 200 && a.body.count === IDS_PER_CALL).length,
      seconds: round(seconds, 2),
      verificationEvents: await scalar(
        db,
        sql`select count(*) as n from verification_events where issuer_id = ${issuer.id}`,
      ),
      outboxRows: await scalar(db, sql`select count(*) as n from webhook_deliveries where issuer_id = ${issuer.id}`),
      webhookPosts: receiver.received('verified').length,
      databaseGrowthMb:
        sizeBefore === null ? null : round((fileMb(harness.storage.file) ?? sizeBefore) - sizeBefore, 2),
    };
  } finally {
    await receiver.close();
    await harness.close();
  }
}

/**
 * Issue 21.3: 30 anonymous bulk calls of 1,000 copies of one credential id used to write 30,000
 * events, 30,000 outbox rows and 35,029 webhook POSTs. Now each call answers all 1,000 results and
 * the attack leaves one event, one outbox row and one POST. Full tier: ten times the calls.
 */
export async function runBulkAmplification(options: RunOptions): Promise<ReliabilityReport> {
  const report = createReport('bulk-amplification', options);
  const calls = options.full ? 10 * ATTACK_CALLS : ATTACK_CALLS;
  const results: AmplificationResult[] = [];
  for (const engine of enginesFor(options)) {
    report.log(`${engine}: ${calls} concurrent bulk calls of ${IDS_PER_CALL} copies of one id`);
    const result = await leg(engine, calls);
    results.push(result);
    report.figures[engine] = result;
    report.check(
      `${engine} answers`,
      result.answersComplete === calls,
      `${result.answersComplete}/${calls} calls answered ${IDS_PER_CALL} results; ${JSON.stringify(result.status)}`,
    );
    report.check(
      `${engine} rows and deliveries left`,
      result.verificationEvents <= MAX_ROWS_LEFT &&
        result.outboxRows <= MAX_ROWS_LEFT &&
        result.webhookPosts <= MAX_ROWS_LEFT,
      `${result.verificationEvents} events, ${result.outboxRows} outbox rows, ${result.webhookPosts} POSTs (at most ${MAX_ROWS_LEFT} each)`,
    );
    report.check(`${engine} the event is delivered`, result.webhookPosts >= 1, `${result.webhookPosts} POSTs`);
  }
  return report.finish(
    results
      .map((r) => `${r.engine}: ${r.verificationEvents} events, ${r.outboxRows} outbox rows, ${r.webhookPosts} POSTs`)
      .join('; '),
  );
}
