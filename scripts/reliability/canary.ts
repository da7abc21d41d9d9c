import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { logOptions } from '../../src/app.js';
import { type CanaryClient, ISSUING_CHANNELS, sendThroughEveryChannel } from './canary.channels.js';
import { type Dialect, freshDatabase, startHarnessApp } from './lib/app.js';
import { parseCommonArgs, runMain, writeReport } from './lib/report.js';
import { canaryNeedles, contains, type PlaceScan, scanBytes } from './lib/scan.js';
import { startSmtpServer } from './lib/smtp-receiver.js';

/*
 * T10, the email canary: a mixed-case email sent through every channel that takes one, with the app
 * logging at debug and PostgreSQL logging every statement, then searched for in every form across
 * the database files, a dump, the statement log, the app log, every response and every webhook.
 *   npx tsx scripts/reliability/canary.ts [--dialect sqlite|postgres|both]
 */

/** Where the shared server writes its log (stderr of the cluster); overridable for other set-ups. */
const PG_LOG_FILE = process.env.PG_LOG_FILE ?? '/var/log/postgresql/postgresql-15-main.log';

interface Captured {
  channel: string;
  method: string;
  url: string;
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

interface WebhookCapture {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function startReceiver() {
  const received: WebhookCapture[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/canary-hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface PlaceResult extends PlaceScan {
  /** A value known to be there, found by the same search: proof the place was really read. */
  control: { token: string; found: boolean } | null;
}

export interface CanaryResult {
  dialect: Dialect;
  canary: string;
  /** Statuses answered per channel, in order. */
  channels: Record<string, number[]>;
  requests: number;
  places: PlaceResult[];
  positiveControl: { place: string; found: string[] };
  hits: number;
  problems: string[];
}

function pgLogSize(): number {
  return existsSync(PG_LOG_FILE) ? statSync(PG_LOG_FILE).size : 0;
}

/** The log lines of one database since an offset, with the continuation lines of multi-line statements. */
function pgLogLines(database: string, offset: number): string {
  const text = readFileSync(PG_LOG_FILE).subarray(offset).toString('utf8');
  const out: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    const prefixed = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(line);
    if (prefixed) inside = line.includes(`@${database} `);
    if (inside) out.push(line);
  }
  return out.join('\n');
}

export async function runCanary(options: { dialect: Dialect }): Promise<CanaryResult> {
  const unique = randomUUID();
  const canary = `Canary.${unique}@Example.Test`;
  const broken = `Canary.${unique}@@Example.Test`;
  const control = `ctl-${randomUUID()}`;
  const needles = canaryNeedles(canary, unique);
  const problems: string[] = [];

  const logLines: string[] = [];
  const logger = {
    ...logOptions('debug'),
    stream: { write: (line: string) => logLines.push(line) },
  };
  const pgLogStart = pgLogSize();
  const storage = await freshDatabase(options.dialect, { ownDatabase: true, logStatements: true });
  // A real SMTP server takes the earners' notifications: the address must reach it and nothing else.
  const smtp = await startSmtpServer();
  const harness = await startHarnessApp(options.dialect, {
    storage,
    logger,
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'badges@canary.test', NOTIFY_RATE_PER_MINUTE: '60000' },
  });
  const receiver = await startReceiver();
  const requestLog: string[] = [];
  const captured: Captured[] = [];
  let closed = false;
  try {
    const { app } = harness;
    const issuer = await harness.issuer('canary');
    const keyed = { authorization: `Bearer ${issuer.key}` };

    const call: CanaryClient['call'] = async (channel, method, url, payload, key = true) => {
      requestLog.push(JSON.stringify({ channel, method, url, payload }));
      const res = await app.inject({
        method,
        url,
        headers: key ? keyed : {},
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      captured.push({ channel, method, url, status: res.statusCode, headers: res.headers, body: res.body });
      if (res.statusCode >= 500) problems.push(`${channel}: ${method} ${url} answered ${res.statusCode}`);
      return res;
    };
    const json: CanaryClient['json'] = async (channel, method, url, payload, key = true) => {
      const res = await call(channel, method, url, payload, key);
      return {
        status: res.statusCode,
        body: (res.headers['content-type'] ?? '').toString().includes('json') ? res.json() : null,
      };
    };

    const issued = await sendThroughEveryChannel(
      { call, json },
      { email: canary, broken, control },
      {
        issuerSlug: issuer.slug,
        receiverUrl: receiver.url,
        sendNotifications: () => app.services.notifications.drain(),
      },
    );
    await app.services.verification.events.flush();
    await app.services.webhooks.dispatcher.drain();
    await app.services.notifications.drain();
    if (receiver.received.length === 0) problems.push('no webhook was delivered, so webhook payloads prove nothing');
    if (!smtp.messages.some((m) => m.to.some((to) => to.toLowerCase() === canary.toLowerCase()))) {
      problems.push('no notification reached the SMTP server, so the notification path proves nothing');
    }

    const places: PlaceResult[] = [];
    const place = (name: string, data: Buffer | string, token: string | null) =>
      places.push({
        ...scanBytes(name, data, needles),
        control: token ? { token, found: contains(data, token) } : null,
      });
    const sqliteFiles = (state: string) => {
      if (!storage.file) return;
      const dir = dirname(storage.file);
      const contents = readdirSync(dir).map((file) => [file, readFileSync(join(dir, file))] as const);
      for (const [file, data] of contents) place(`sqlite ${file} (${state})`, data, null);
      // A row sits in the main file or still in the WAL, so the control is sought across the files.
      place(`sqlite files together (${state})`, Buffer.concat(contents.map(([, data]) => data)), control);
    };
    sqliteFiles('open');
    if (storage.pgDatabase) {
      const client = new pg.Client({ connectionString: storage.url });
      await client.connect();
      await client.query(`select '${control}' as statement_log_control`);
      await client.end();
      const dump = spawnSync('pg_dump', ['--no-owner', '-d', storage.url], { maxBuffer: 512 * 2 ** 20 });
      if (dump.status !== 0) problems.push(`pg_dump failed: ${dump.stderr.toString().slice(0, 300)}`);
      place('pg_dump', dump.stdout, control);
      if (existsSync(PG_LOG_FILE))
        place(`postgres statement log (${storage.pgDatabase})`, pgLogLines(storage.pgDatabase, pgLogStart), control);
      else problems.push(`the PostgreSQL log ${PG_LOG_FILE} is not readable; set PG_LOG_FILE`);
    }
    place('app log (debug)', logLines.join(''), control);
    place(
      'HTTP responses',
      captured.map((c) => `${c.status} ${JSON.stringify(c.headers)}\n${c.body}`).join('\n'),
      control,
    );
    place(
      'webhook payloads',
      receiver.received.map((r) => `${JSON.stringify(r.headers)}\n${r.body.toString('utf8')}`).join('\n'),
      issued.credentialId,
    );

    // SQLite once more after a clean close: the WAL is checkpointed into the main file.
    await harness.app.close();
    await harness.database.close();
    closed = true;
    sqliteFiles('closed');

    // A channel that refused everything would prove nothing: each issuing channel must have issued.
    for (const channel of ISSUING_CHANNELS) {
      if (!captured.some((c) => c.channel === channel && /"created":true|"outcome":"issued"/.test(c.body))) {
        problems.push(`${channel} issued nothing, so it was not really exercised`);
      }
    }
    const statuses: Record<string, number[]> = {};
    for (const c of captured) statuses[c.channel] = [...(statuses[c.channel] ?? []), c.status];
    const requestText = requestLog.join('\n');
    const positive = scanBytes('harness request log', requestText, needles);
    for (const p of places)
      if (p.control && !p.control.found)
        problems.push(`control not found in ${p.place}: the scan of it proves nothing`);
    if (!positive.hits.some((h) => h.form === 'plain'))
      problems.push('positive control failed: the request log does not show the canary');
    return {
      dialect: options.dialect,
      canary,
      channels: statuses,
      requests: captured.length,
      places,
      positiveControl: { place: positive.place, found: positive.hits.map((h) => `${h.form} ×${h.count}`) },
      hits: places.reduce((n, p) => n + p.hits.reduce((m, h) => m + h.count, 0), 0),
      problems,
    };
  } finally {
    await receiver.close();
    await smtp.close();
    if (!closed) {
      await harness.app.close();
      await harness.database.close();
    }
    await storage.drop();
  }
}

export function canaryPassed(result: CanaryResult): boolean {
  return result.hits === 0 && result.problems.length === 0;
}

export function canarySummary(result: CanaryResult): string {
  return (
    `canary ${result.dialect}: ${result.requests} requests over ${Object.keys(result.channels).length} channels, ` +
    `${result.places.length} places scanned (${result.places.reduce((n, p) => n + p.bytes, 0)} bytes), ${result.hits} hits, ` +
    `positive control ${result.positiveControl.found.length > 0 ? 'found' : 'MISSING'}, ${result.problems.length} problems`
  );
}

async function main(): Promise<boolean> {
  const args = parseCommonArgs(process.argv.slice(2));
  const results: CanaryResult[] = [];
  for (const dialect of args.dialects) {
    const result = await runCanary({ dialect });
    results.push(result);
    process.stdout.write(`${canarySummary(result)}\n`);
    for (const p of result.places.filter((p) => p.hits.length > 0)) {
      for (const h of p.hits)
        process.stdout.write(`  HIT ${p.place}: ${h.form} ×${h.count}: ${JSON.stringify(h.sample)}\n`);
    }
    for (const problem of result.problems) process.stdout.write(`  PROBLEM ${problem}\n`);
  }
  const file = writeReport('canary', { results });
  const passed = results.every(canaryPassed);
  process.stdout.write(`canary: ${passed ? 'PASS' : 'FAIL'} (${file})\n`);
  return passed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) runMain(main);
