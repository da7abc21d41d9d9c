import { statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import { issuerDid, verificationMethodId } from '../../src/modules/vc/did.js';
import { CREDENTIAL_VERIFY_COST, MAX_BULK_JWTS } from '../../src/modules/verification/verification.routes.js';
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
    const definition = await app.services.definitions.create(issuer.id, 'system', {
      name: 'Amplified',
      description: 'x',
    });
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

/** Issue 37.1: the open limit the forged VC-JWT leg runs at (the default), and its measured calls per kind. */
export const OPEN_LIMIT = 300;
export const MEASURED_CALLS = 20;
const PLAIN_IDS = 1000;
const PLAIN_UNITS = 20;

export interface ForgedJwtResult {
  engine: Engine;
  /** Server time per unit of the rate limit charged: plain ids (the yardstick), forged JWTs with a real `kid`, and with unknown ones. */
  msPerUnit: { plainIds: number; forgedRealKid: number; forgedUnknownKid: number };
  /** One address sending bulk calls of MAX_BULK_JWTS forged JWTs in a row: the statuses, in order. */
  budgetStatuses: number[];
  /** The server time one address buys in a window with forged JWTs, in ms. */
  serverMsPerAddressWindow: number;
  /** A bulk call of 1,000 forged JWTs: its status. */
  thousandJwtsStatus: number;
}

/** A VC-JWT of the credential signed with the issuer's current key (a wallet's copy), and copies of it with other payloads. */
async function jwtsOf(app: FastifyInstance, base: string, issuer: { id: string; slug: string }, credentialId: string) {
  const did = issuerDid(base, issuer.slug);
  const key = await app.services.vc.signingKeys.current(issuer.id, (v) => verificationMethodId(did, v), did);
  const header = { alg: 'EdDSA', typ: 'JWT', kid: verificationMethodId(did, key.version) };
  const jwt = await new SignJWT({ iss: did, jti: `${base}/v1/issuers/${issuer.slug}/credentials/${credentialId}` })
    .setProtectedHeader(header)
    .sign(key.keyObject);
  const [, payload = '', signature = ''] = jwt.split('.');
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return {
    /** A signature that fails under the real key. */
    forged: (n: number) => `${encode(header)}.${encode({ n, payload })}.${signature}`,
    /** A `kid` of the real issuer naming a key version it does not have: looked up every time. */
    unknownKid: (n: number) =>
      `${encode({ ...header, kid: verificationMethodId(did, 1000 + n) })}.${payload}.${signature}`,
  };
}

/**
 * Issue 37.1: 1,000 forged VC-JWTs with a real `kid` in one bulk call used to cost 1.4–1.7 s of the
 * event loop for the price of 1,000 plain ids (20 units). Each forged JWT is now priced like a
 * credential, a call takes at most MAX_BULK_JWTS, and a `kid` is looked up once. Server time per
 * unit charged (sequential calls through the app, each from an address of its own) must stay at or
 * below that of plain ids, the service's yardstick; one address at the open limit is refused after
 * the calls its budget pays for.
 */
async function forgedJwtLeg(engine: Engine): Promise<ForgedJwtResult> {
  const harness = await startHarnessApp(engine, { env: { OPEN_RATE_LIMIT_PER_MINUTE: String(OPEN_LIMIT) } });
  try {
    const { app } = harness;
    const issuer = await harness.issuer('forged');
    const definition = await app.services.definitions.create(issuer.id, 'system', { name: 'Forged', description: 'x' });
    const { row } = await app.services.issuance.issue(issuer.id, 'reliability', {
      definitionId: definition.id,
      recipientEmail: 'forged@example.test',
      completionKey: 'forged-1',
      source: 'api',
    });
    const jwts = await jwtsOf(app, harness.config.publicBaseUrl, issuer, row.id);
    let address = 0;
    const bulk = async (ids: string[], remoteAddress = `192.0.2.${++address % 250}`) => {
      const started = performance.now();
      const res = await app.inject({ method: 'POST', url: '/api/v1/verify/bulk', payload: { ids }, remoteAddress });
      return { status: res.statusCode, ms: performance.now() - started };
    };
    const msPerUnit = async (ids: (call: number) => string[], units: number) => {
      let ms = 0;
      for (let call = 0; call < MEASURED_CALLS; call++) {
        const answer = await bulk(ids(call));
        if (answer.status !== 200) throw new Error(`bulk verify answered ${answer.status}`);
        ms += answer.ms;
      }
      return round(ms / (MEASURED_CALLS * units), 4);
    };
    const jwtUnits = MAX_BULK_JWTS * CREDENTIAL_VERIFY_COST;
    const forgedCall = (call: number) => Array.from({ length: MAX_BULK_JWTS }, (_, i) => jwts.forged(call * 100 + i));
    await bulk(forgedCall(999));
    const result = {
      plainIds: await msPerUnit(() => Array.from({ length: PLAIN_IDS }, () => row.id), PLAIN_UNITS),
      forgedRealKid: await msPerUnit(forgedCall, jwtUnits),
      forgedUnknownKid: await msPerUnit(
        (call) => Array.from({ length: MAX_BULK_JWTS }, (_, i) => jwts.unknownKid(call * 100 + i)),
        jwtUnits,
      ),
    };
    const budget = [];
    for (let call = 0; call < 5; call++) budget.push(await bulk(forgedCall(500 + call), '198.51.100.37'));
    const thousand = await bulk(Array.from({ length: 1000 }, (_, i) => jwts.forged(10_000 + i)));
    return {
      engine,
      msPerUnit: result,
      budgetStatuses: budget.map((b) => b.status),
      serverMsPerAddressWindow: round(
        budget.filter((b) => b.status === 200).reduce((sum, b) => sum + b.ms, 0),
        2,
      ),
      thousandJwtsStatus: thousand.status,
    };
  } finally {
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
  const forgedResults: ForgedJwtResult[] = [];
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

    report.log(`${engine}: forged VC-JWTs with a real kid, priced against plain ids`);
    const forged = await forgedJwtLeg(engine);
    forgedResults.push(forged);
    report.figures[`${engine}-forged-jwts`] = forged;
    const { plainIds, forgedRealKid, forgedUnknownKid } = forged.msPerUnit;
    const timing = `ms of server time per unit charged: ${forgedRealKid} (real kid), ${forgedUnknownKid} (unknown kid), ${plainIds} (plain ids)`;
    // A comparison of times is a claim about speed: only the full tier, run on a quiet host, checks
    // it. The quick tier (a vitest, on any machine under any load) reports it (issue 46, busy machine).
    if (options.full) {
      report.check(
        `${engine} forged VC-JWTs cost the client at least what they cost the server`,
        forgedRealKid <= plainIds && forgedUnknownKid <= plainIds,
        timing,
      );
    } else report.log(`${engine}: ${timing}`);
    const paidCalls = Math.floor(OPEN_LIMIT / (MAX_BULK_JWTS * CREDENTIAL_VERIFY_COST));
    report.check(
      `${engine} one address runs out of its budget`,
      forged.budgetStatuses.filter((s) => s === 200).length === paidCalls &&
        forged.budgetStatuses.slice(paidCalls).every((s) => s === 429),
      `statuses ${forged.budgetStatuses.join(',')}; ${forged.serverMsPerAddressWindow} ms of server time bought per window`,
    );
    report.check(
      `${engine} a bulk of 1,000 VC-JWTs is refused`,
      forged.thousandJwtsStatus === 400,
      `answered ${forged.thousandJwtsStatus}`,
    );
  }
  return report.finish(
    [
      ...results.map(
        (r) => `${r.engine}: ${r.verificationEvents} events, ${r.outboxRows} outbox rows, ${r.webhookPosts} POSTs`,
      ),
      ...forgedResults.map(
        (r) =>
          `${r.engine}: forged VC-JWT ${r.msPerUnit.forgedRealKid} ms/unit vs plain ids ${r.msPerUnit.plainIds} ms/unit`,
      ),
    ].join('; '),
  );
}
