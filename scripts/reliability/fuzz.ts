import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { type ConsoleSession, type FuzzRequest, materialise } from './fuzz.cases.js';
import { type CaseDraw, caseDraw } from './fuzz.mutations.js';
import { type Dialect, startHarnessApp } from './lib/app.js';
import { createContractChecker, NON_ERROR_4XX, type Violation } from './lib/contract.js';
import { fillPath, loadApiDocument, type OperationSpec } from './lib/openapi.js';
import { parseCommonArgs, runMain, writeReport } from './lib/report.js';
import { learnFromResponse, seedIssuer } from './lib/resources.js';

/*
 * T5, fuzzing from the published OpenAPI document: every operation gets K cases (json-schema-faker
 * bodies, real ids some of the time, fast-check mutations), and every answer is held to the
 * document: no 5xx, a documented status, a body valid against the documented schema, Error bodies
 * for 4xx.
 *   npx tsx scripts/reliability/fuzz.ts [--cases 500] [--seed N] [--dialect sqlite|postgres|both] [--op createPathway]
 */

export const QUICK_CASES: Record<Dialect, number> = { sqlite: 100, postgres: 30 };

export interface FuzzOptions {
  dialect: Dialect;
  casesPerOperation: number;
  seed: number;
  /** operationIds or "METHOD /path" keys; all operations when empty. */
  operations?: string[];
  progress?: (line: string) => void;
}

export interface FailureGroup {
  operation: string;
  rule: Violation['rule'] | 'front-door';
  status: number;
  count: number;
  /** The shortest failing request of the group, with the key replaced by $KEY. */
  reproduction: { caseIndex: number; mutation: string; request: FuzzRequest; detail: string };
}

export interface OperationFigures {
  operation: string;
  operationId: string;
  cases: number;
  statuses: Record<string, number>;
  failures: number;
}

export interface FuzzResult {
  dialect: Dialect;
  seed: number;
  casesPerOperation: number;
  documentProblems: string[];
  operations: OperationFigures[];
  /** Operations no case reached with a 2xx: the generator could not get past validation or lookups. */
  neverSucceeded: string[];
  mutations: Record<string, number>;
  totals: {
    operations: number;
    cases: number;
    /** Requests of the front-door probes (probeFrontDoor), outside the per-operation cases. */
    frontDoorProbes: number;
    failures: number;
    serverErrors: number;
    errorLogLines: number;
  };
  byRule: Record<string, number>;
  failureGroups: FailureGroup[];
  errorLogSamples: string[];
  documentedExceptions: Record<string, string>;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Each operation's cases depend on the seed and its own key only, so new routes leave the others' cases alone. */
function operationSeed(seed: number, op: OperationSpec): number {
  return (seed ^ hash(op.key)) >>> 0;
}

function selected(op: OperationSpec, filter: string[] | undefined): boolean {
  return !filter || filter.length === 0 || filter.includes(op.operationId) || filter.includes(op.key);
}

function redactKey(request: FuzzRequest, key: string): FuzzRequest {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, v.replaceAll(key, '$KEY')]));
  const payload = request.payload;
  return {
    ...request,
    headers,
    ...(payload !== undefined
      ? { payload: payload.length > 2_000 ? `${payload.slice(0, 2_000)}… (${payload.length} chars)` : payload }
      : {}),
  };
}

const SEED_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle r="4" cx="5" cy="5"/></svg>';

/** Invites an owner and accepts the invite through the API: a signed-in console session. */
async function consoleSession(app: FastifyInstance, issuerId: string, email: string): Promise<ConsoleSession> {
  const invited = await app.services.accounts.invite(issuerId, email, 'owner', 'system');
  const token = invited.inviteUrl.split('/').pop() ?? '';
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/invites/${token}/accept`,
    payload: { password: 'fuzz console password' },
  });
  if (res.statusCode !== 200) throw new Error(`console sign-in answered ${res.statusCode}: ${res.body}`);
  const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
  return { cookie, csrf: (res.json() as { csrfToken: string }).csrfToken };
}

/** Methods probed on every documented path; QUERY is one the service has no route for. */
const PROBED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY'];

/**
 * What the contract audit found outside any one operation, asked of every documented path: a method
 * the path does not document answers 405 with an Allow header naming exactly the documented methods
 * (a concrete path over a templated one, as OpenAPI matches them), with or without a Content-Type;
 * a CORS preflight without its headers answers the Error body.
 */
async function probeFrontDoor(
  app: FastifyInstance,
  operations: OperationSpec[],
  key: string,
): Promise<{ probes: number; failures: FailureGroup[] }> {
  const documented = new Map<string, Set<string>>();
  for (const op of operations) documented.set(op.path, (documented.get(op.path) ?? new Set()).add(op.method));
  const failures: FailureGroup[] = [];
  let probes = 0;
  const fail = (operation: string, status: number, request: FuzzRequest, detail: string) =>
    failures.push({
      operation,
      rule: 'front-door',
      status,
      count: 1,
      reproduction: { caseIndex: 0, mutation: 'front-door', request, detail },
    });
  const errorBody = (body: string) => {
    try {
      const parsed = JSON.parse(body) as { error?: unknown };
      return typeof parsed.error === 'string';
    } catch {
      return false;
    }
  };
  for (const [path, methods] of documented) {
    const url = fillPath(path, Object.fromEntries([...path.matchAll(/\{([^}]+)\}/g)].map((m) => [m[1], 'probe'])));
    const allowed = new Set([...methods, ...(methods.has('GET') ? ['HEAD'] : [])]);
    for (const method of PROBED_METHODS.filter((m) => !methods.has(m))) {
      const request: FuzzRequest = { method, url, headers: { authorization: `Bearer ${key}` } };
      const res = await app.inject({ method: method as 'GET', url, headers: request.headers });
      probes++;
      const allow = new Set(
        String(res.headers.allow ?? '')
          .split(/,\s*/)
          .filter(Boolean),
      );
      const sameAllow = allow.size === allowed.size && [...allow].every((m) => allowed.has(m));
      if (res.statusCode !== 405 || !sameAllow || !errorBody(res.body)) {
        fail(
          `${method} ${path}`,
          res.statusCode,
          request,
          `Allow ${res.headers.allow}; documented ${[...allowed]}: ${res.body.slice(0, 200)}`,
        );
      }
    }
  }
  for (const url of ['/api/v1/verify', '/api/v1/verify/bulk']) {
    const request: FuzzRequest = { method: 'OPTIONS', url, headers: { origin: 'https://elsewhere.example' } };
    const res = await app.inject({ method: 'OPTIONS', url, headers: request.headers });
    probes++;
    const json = String(res.headers['content-type'] ?? '').startsWith('application/json');
    if (res.statusCode !== 400 || !json || !errorBody(res.body)) {
      fail(`OPTIONS ${url}`, res.statusCode, request, `${res.headers['content-type']}: ${res.body.slice(0, 200)}`);
    }
  }
  return { probes, failures };
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const errorLines: string[] = [];
  const harness = await startHarnessApp(options.dialect, {
    logger: { level: 'error', stream: { write: (line: string) => errorLines.push(line) } },
  });
  try {
    const { app } = harness;
    const issuer = await harness.issuer('fuzz');
    const pool = await seedIssuer(app, issuer, {
      label: 'fuzz',
      recipients: ['seed.one@example.test', 'seed.two@example.test', 'seed.three@example.test'],
      webhookUrl: 'http://127.0.0.1:9/hooks',
    });
    const document = await loadApiDocument(app);
    const checker = createContractChecker();
    const operations = document.operations.filter((op) => selected(op, options.operations));
    // Console-only operations run as an owner of another issuer: a key rotation there ends that
    // issuer's keys, not the one every other operation uses.
    const consoleIssuer = await harness.issuer('fuzz-console');
    const keys = {
      valid: issuer.key,
      invalid: `acc_${'0'.repeat(40)}`,
      console: await consoleSession(app, consoleIssuer.id, 'owner@fuzz-console.example'),
      signOut: await consoleSession(app, consoleIssuer.id, 'leaver@fuzz-console.example'),
    };
    // An uploaded image for the image operations to name.
    const image = await app.services.images.upload(issuer.id, 'image/svg+xml', Buffer.from(SEED_SVG), 'system');
    pool.set('images', [image.id]);
    // Open invites (and their users) for the invite and team operations to name.
    for (let n = 1; n <= 5; n++) {
      const invited = await app.services.accounts.invite(
        consoleIssuer.id,
        `staff${n}@fuzz-console.example`,
        'viewer',
        'system',
      );
      pool.set('invites', [...(pool.get('invites') ?? []), invited.inviteUrl.split('/').pop() ?? '']);
      pool.set('users', [...(pool.get('users') ?? []), invited.user.id]);
    }
    const draws = new Map<OperationSpec, CaseDraw[]>(
      operations.map((op) => [
        op,
        fc.sample(caseDraw, { numRuns: options.casesPerOperation, seed: operationSeed(options.seed, op) }),
      ]),
    );
    const figures = new Map<OperationSpec, OperationFigures>(
      operations.map((op) => [
        op,
        { operation: op.key, operationId: op.operationId, cases: 0, statuses: {}, failures: 0 },
      ]),
    );
    const groups = new Map<string, FailureGroup>();
    const byRule: Record<string, number> = {};
    const mutations: Record<string, number> = {};
    let cases = 0;
    let failures = 0;
    let serverErrors = 0;

    // Round robin, so deletions early in one operation's cases never starve another of live resources.
    for (let i = 0; i < options.casesPerOperation; i++) {
      for (const op of operations) {
        const draw = draws.get(op)?.[i];
        const figure = figures.get(op);
        if (!draw || !figure) continue;
        const request = materialise(op, draw, pool, keys);
        const payload =
          request.payload !== undefined && request.encoding === 'latin1'
            ? Buffer.from(request.payload, 'latin1')
            : request.payload;
        const res = await app.inject({
          method: request.method as 'GET',
          url: request.url,
          headers: request.headers,
          ...(payload !== undefined ? { payload } : {}),
        });
        cases++;
        figure.cases++;
        figure.statuses[res.statusCode] = (figure.statuses[res.statusCode] ?? 0) + 1;
        mutations[draw.mutation.kind] = (mutations[draw.mutation.kind] ?? 0) + 1;
        if (res.statusCode >= 500) serverErrors++;
        if (res.statusCode < 300 && String(res.headers['content-type'] ?? '').includes('json')) {
          learnFromResponse(pool, op.method, op.path, res.statusCode, res.json());
        }
        const violations = checker.check(op, { statusCode: res.statusCode, headers: res.headers, body: res.body });
        if (violations.length === 0) continue;
        failures++;
        figure.failures++;
        for (const violation of violations) {
          byRule[violation.rule] = (byRule[violation.rule] ?? 0) + 1;
          const groupKey = `${op.key}|${violation.rule}|${res.statusCode}`;
          const candidate = {
            caseIndex: i,
            mutation: draw.mutation.kind,
            request: redactKey(request, issuer.key),
            detail: violation.detail,
          };
          const group = groups.get(groupKey);
          const size = (r: FuzzRequest) => r.url.length + (r.payload?.length ?? 0);
          if (!group) {
            groups.set(groupKey, {
              operation: op.key,
              rule: violation.rule,
              status: res.statusCode,
              count: 1,
              reproduction: candidate,
            });
          } else {
            group.count++;
            if (size(candidate.request) < size(group.reproduction.request)) group.reproduction = candidate;
          }
        }
      }
      if ((i + 1) % 25 === 0)
        options.progress?.(
          `  ${options.dialect}: ${i + 1}/${options.casesPerOperation} rounds, ${failures} failing cases`,
        );
    }
    const frontDoor = await probeFrontDoor(app, document.operations, issuer.key);
    for (const failure of frontDoor.failures) {
      failures++;
      byRule[failure.rule] = (byRule[failure.rule] ?? 0) + 1;
      groups.set(`${failure.operation}|${failure.rule}|${failure.status}`, failure);
    }
    await app.services.verification.events.flush();
    const figuresList = [...figures.values()];
    return {
      dialect: options.dialect,
      seed: options.seed,
      casesPerOperation: options.casesPerOperation,
      documentProblems: document.validationErrors,
      operations: figuresList,
      neverSucceeded: figuresList
        .filter((f) => !Object.keys(f.statuses).some((s) => Number(s) >= 200 && Number(s) < 400))
        .map((f) => f.operation),
      mutations,
      totals: {
        operations: operations.length,
        cases,
        frontDoorProbes: frontDoor.probes,
        failures,
        serverErrors,
        errorLogLines: errorLines.length,
      },
      byRule,
      failureGroups: [...groups.values()],
      errorLogSamples: errorLines.slice(0, 5).map((l) => l.slice(0, 1_000)),
      documentedExceptions: Object.fromEntries(Object.entries(NON_ERROR_4XX).map(([s, why]) => [`${s} body`, why])),
    };
  } finally {
    await harness.close();
  }
}

/** Passing means: the document is valid OpenAPI, no failing case, and nothing logged at error level. */
export function fuzzPassed(result: FuzzResult): boolean {
  return result.documentProblems.length === 0 && result.totals.failures === 0 && result.totals.errorLogLines === 0;
}

export function fuzzSummary(result: FuzzResult): string {
  return (
    `fuzz ${result.dialect}: ${result.totals.operations} operations × ${result.casesPerOperation} cases = ` +
    `${result.totals.cases} requests, ${result.totals.serverErrors} × 5xx, ${result.totals.failures} failing cases ` +
    `(${
      Object.entries(result.byRule)
        .map(([r, n]) => `${r} ${n}`)
        .join(', ') || 'none'
    }), ` +
    `${result.totals.errorLogLines} error log lines, seed ${result.seed}`
  );
}

async function main(): Promise<boolean> {
  const args = parseCommonArgs(process.argv.slice(2));
  const seed = args.seed ?? Math.floor(Math.random() * 2 ** 31);
  process.stdout.write(`fuzz seed ${seed} (replay with --seed ${seed})\n`);
  const results: FuzzResult[] = [];
  for (const dialect of args.dialects) {
    const result = await runFuzz({
      dialect,
      seed,
      casesPerOperation: args.cases ?? QUICK_CASES[dialect],
      operations: args.operations,
      progress: (line) => process.stdout.write(`${line}\n`),
    });
    results.push(result);
    process.stdout.write(`${fuzzSummary(result)}\n`);
    for (const group of result.failureGroups) {
      process.stdout.write(
        `  FAIL ${group.operation} ${group.rule} ${group.status} ×${group.count}: ${group.reproduction.detail.slice(0, 200)}\n` +
          `    repro (${group.reproduction.mutation}, case ${group.reproduction.caseIndex}): ${JSON.stringify(group.reproduction.request).slice(0, 600)}\n`,
      );
    }
  }
  const file = writeReport('fuzz', { seed, results });
  const passed = results.every(fuzzPassed);
  process.stdout.write(`fuzz: ${passed ? 'PASS' : 'FAIL'} (${file})\n`);
  return passed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) runMain(main);
