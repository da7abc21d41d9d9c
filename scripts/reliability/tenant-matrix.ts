import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type FuzzRequest, materialise } from './fuzz.cases.js';
import type { AuthChoice, CaseDraw } from './fuzz.mutations.js';
import { type Dialect, startHarnessApp } from './lib/app.js';
import { loadApiDocument, type OperationSpec } from './lib/openapi.js';
import { parseCommonArgs, runMain, writeReport } from './lib/report.js';
import {
  collectionOf,
  collectionOfField,
  isVocabulary,
  poolValues,
  type ResourcePool,
  seedIssuer,
} from './lib/resources.js';
import { diffSnapshots, rowCount, snapshotIssuer } from './lib/snapshot.js';

/*
 * T6, the cross-tenant matrix: issuer A's key on issuer B's real resources, for every operation that
 * names a resource (path parameter, body field or query filter, derived from the published
 * document), under both key headers. Each answer must be byte-identical to the answer for a
 * resource that does not exist (404 where the operation documents it), and B's rows must not change.
 *   npx tsx scripts/reliability/tenant-matrix.ts [--dialect sqlite|postgres|both]
 */

/** Collections that name the same thing and must be swapped together (an id and its slug or URL). */
const GROUPS: string[][] = [
  ['definitions', 'badges'],
  ['credentials', 'assertionUrls'],
];

const HEADERS: AuthChoice[] = ['bearer', 'x-api-key'];

function groupOf(collection: string): string[] {
  return GROUPS.find((g) => g.includes(collection)) ?? [collection];
}

function bodyFieldCollections(schema: unknown, out = new Set<string>()): Set<string> {
  if (schema === null || typeof schema !== 'object') return out;
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  for (const [name, sub] of Object.entries(properties)) {
    const collection = collectionOfField(name);
    if (collection) out.add(collection);
    if (name === 'csv' || name === 'records') out.add('definitions');
    bodyFieldCollections(sub, out);
  }
  return out;
}

/** The resource groups an operation names, each keyed by its first collection. */
export function namedGroups(op: OperationSpec): string[][] {
  const collections = new Set<string>();
  for (const param of op.pathParams) collections.add(collectionOf(op.path, param.name));
  for (const param of op.queryParams) {
    const c = collectionOfField(param.name);
    if (c) collections.add(c);
  }
  for (const c of bodyFieldCollections(op.body?.schema)) collections.add(c);
  const groups = new Map<string, string[]>();
  for (const c of collections) {
    const group = groupOf(c);
    groups.set(group[0] ?? c, group);
  }
  return [...groups.values()];
}

function withGroup(base: ResourcePool, group: string[], source: ResourcePool): ResourcePool {
  const pool: ResourcePool = new Map(base);
  for (const c of group) pool.set(c, poolValues(source, c));
  return pool;
}

/** Stand-ins that exist nowhere, one per foreign value, in the same form (uuid, slug or URL). */
function missingLike(foreign: ResourcePool, group: string[]): ResourcePool {
  const pool: ResourcePool = new Map();
  const ids = new Map<string, string>();
  for (const c of group) {
    pool.set(
      c,
      poolValues(foreign, c).map((value) => {
        const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(value)?.[0];
        if (uuid) {
          const replacement = ids.get(uuid) ?? randomUUID();
          ids.set(uuid, replacement);
          return value.replace(uuid, replacement);
        }
        return `missing-${randomUUID().slice(0, 8)}`;
      }),
    );
  }
  return pool;
}

function replaceNamed(body: string, named: string[]): string {
  let out = body;
  named.forEach((value, i) => {
    if (value) out = out.split(value).join(`{named${i}}`);
  });
  return out;
}

/**
 * What may differ between two equivalent answers. A 404 may differ only in the id it was asked
 * about; other answers (a CSV import report, a page) may also carry fresh ids, times and nonces.
 */
function normalise(body: string, named: string[], status: number): string {
  const out = replaceNamed(body, named);
  if (status === 404 && !out.startsWith('<')) return out;
  return out
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '{uuid}')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '{time}')
    .replace(/nonce-[A-Za-z0-9_+/=-]+|nonce="[^"]*"/g, '{nonce}');
}

function namedValues(pool: ResourcePool, group: string[]): string[] {
  return group.flatMap((c) => poolValues(pool, c));
}

export interface MatrixFailure {
  operation: string;
  group: string;
  header: AuthChoice;
  resource: string;
  reason: string;
  foreign?: { status: number; body: string };
  missing?: { status: number; body: string };
}

export interface MatrixResult {
  dialect: Dialect;
  operations: string[];
  /** Rows of the matrix: operation × resource group × key header × B's resources of that group. */
  cells: number;
  byOperation: Record<string, number>;
  failures: MatrixFailure[];
  controls: { run: number; failed: { operation: string; group: string; status: number; body: string }[] };
  listLeaks: { operation: string; leaked: string[] }[];
  bRows: number;
  bRowsChanged: { operation: string; changes: ReturnType<typeof diffSnapshots> }[];
}

async function send(app: FastifyInstance, request: FuzzRequest) {
  return app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    ...(request.payload !== undefined ? { payload: request.payload } : {}),
  });
}

/** Items of a list answer (an array, or a page with `items`); 0 for anything else. */
function listedCount(res: LightMyRequestResponse): number {
  if (!String(res.headers['content-type'] ?? '').includes('json')) return 0;
  const body = res.json() as unknown;
  if (Array.isArray(body)) return body.length;
  const items = (body as { items?: unknown }).items;
  return Array.isArray(items) ? items.length : 0;
}

function excerpt(res: LightMyRequestResponse) {
  return { status: res.statusCode, body: res.body.slice(0, 300) };
}

/**
 * Path parameters that are single-use secrets (a wallet offer's code, a Learner Credential Wallet
 * challenge), not resources: whoever holds one may use it, so they are not owned by a tenant, and an
 * issuer's public wallet endpoints behind them are public by design.
 */
const SINGLE_USE_SECRETS = new Set(['offers', 'exchanges']);

export async function runTenantMatrix(options: {
  dialect: Dialect;
  progress?: (line: string) => void;
}): Promise<MatrixResult> {
  const harness = await startHarnessApp(options.dialect);
  try {
    const { app, database, storage } = harness;
    const a = await harness.issuer('tenant-a');
    const b = await harness.issuer('tenant-b');
    const seed = (label: string, issuer: typeof a) =>
      seedIssuer(app, issuer, {
        label,
        recipients: [`${label}.one@example.test`, `${label}.two@example.test`, `${label}.three@example.test`],
        webhookUrl: 'http://127.0.0.1:9/hooks',
      });
    const poolA = await seed('a', a);
    const poolB = await seed('b', b);
    const document = await loadApiDocument(app);
    const keys = { valid: a.key, invalid: `acc_${'0'.repeat(40)}` };
    const flush = () => app.services.verification.events.flush();
    const snapshotB = async () => {
      await flush();
      return snapshotIssuer(database, b.id, storage.schema);
    };

    const result: MatrixResult = {
      dialect: options.dialect,
      operations: [],
      cells: 0,
      byOperation: {},
      failures: [],
      controls: { run: 0, failed: [] },
      listLeaks: [],
      bRows: rowCount(await snapshotB()),
      bRowsChanged: [],
    };
    const controls: { op: OperationSpec; group: string[] }[] = [];

    for (const op of document.operations) {
      // Only what B owns counts (not vocabularies such as provider names), and an open operation with
      // one owned parameter is public by design (an issuer profile, an earner profile, an issuer's
      // status list 0).
      const owned = op.pathParams.filter((p) => {
        const collection = collectionOf(op.path, p.name);
        return !isVocabulary(collection) && !SINGLE_USE_SECRETS.has(collection);
      });
      const groups = namedGroups(op).filter((group) => poolB.has(group[0] ?? '') && (op.secured || owned.length > 1));
      if (groups.length === 0) continue;
      result.operations.push(op.key);
      const before = await snapshotB();
      for (const group of groups) {
        const label = group.join('+');
        const foreignPool = withGroup(poolA, group, poolB);
        const missingPool = withGroup(poolA, group, missingLike(poolB, group));
        const count = poolValues(poolB, group[0] ?? '').length;
        for (const header of HEADERS) {
          for (let pick = 0; pick < count; pick++) {
            const draw: CaseDraw = {
              jsfSeed: 1_000 + pick,
              realIds: true,
              pick,
              auth: header,
              mutation: { kind: 'valid-all-optionals' },
            };
            const foreignRequest = materialise(op, draw, foreignPool, keys);
            const missingRequest = materialise(op, draw, missingPool, keys);
            const foreign = await send(app, foreignRequest);
            const missing = await send(app, missingRequest);
            result.cells++;
            result.byOperation[op.key] = (result.byOperation[op.key] ?? 0) + 1;
            const resource = poolValues(poolB, group[0] ?? '')[pick % count] ?? '';
            const fail = (reason: string) =>
              result.failures.push({
                operation: op.key,
                group: label,
                header,
                resource,
                reason,
                foreign: excerpt(foreign),
                missing: excerpt(missing),
              });
            if (foreign.statusCode >= 500 || missing.statusCode >= 500) fail('server error');
            if (op.responses.has('404') && op.pathParams.some((p) => group.includes(collectionOf(op.path, p.name)))) {
              if (foreign.statusCode !== 404) fail(`expected 404, got ${foreign.statusCode}`);
            }
            if (foreign.statusCode !== missing.statusCode) fail('status differs from a missing resource');
            else if (String(foreign.headers['content-type']) !== String(missing.headers['content-type']))
              fail('content type differs');
            else if (
              normalise(foreign.body, namedValues(foreignPool, group), foreign.statusCode) !==
              normalise(missing.body, namedValues(missingPool, group), missing.statusCode)
            ) {
              fail('body differs from a missing resource');
            } else if (op.method === 'GET' && foreign.statusCode === 200 && listedCount(foreign) > 0) {
              fail('a list filtered by B’s resource is not empty');
            }
          }
        }
        controls.push({ op, group });
      }
      const changes = diffSnapshots(before, await snapshotB());
      if (changes.length > 0) result.bRowsChanged.push({ operation: op.key, changes });
      options.progress?.(`  ${options.dialect}: ${op.key}: ${result.byOperation[op.key]} cells`);
    }

    // Listing operations must never show B's values to A.
    const bValues = [...poolB.entries()].filter(([c]) => c !== 'urls').flatMap(([, values]) => values);
    for (const op of document.operations.filter((o) => o.secured && o.method === 'GET' && o.pathParams.length === 0)) {
      const request = materialise(
        op,
        { jsfSeed: 7, realIds: true, pick: 0, auth: 'bearer', mutation: { kind: 'valid' } },
        poolA,
        keys,
      );
      const res = await send(app, request);
      const leaked = bValues.filter((value) => res.body.includes(value));
      if (leaked.length > 0) result.listLeaks.push({ operation: op.key, leaked });
    }

    // Controls: the same requests on A's own resources must get past the lookup (else a row proves nothing).
    // Reads first, then creations, then changes (an archived definition issues nothing), deletions last.
    // A revocation, reissue or name correction is a change made with POST: it runs after the other POSTs (a wallet
    // offer is made only for a credential that is still valid).
    const order = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
    const rank = (op: OperationSpec) =>
      /\/(revoke|reissue|correct-name)$/.test(op.path) ? order.indexOf('PATCH') : order.indexOf(op.method);
    controls.sort((x, y) => rank(x.op) - rank(y.op));
    for (const { op, group } of controls) {
      const draw: CaseDraw = {
        jsfSeed: 1_000,
        realIds: true,
        pick: 0,
        auth: 'bearer',
        mutation: { kind: 'valid-all-optionals' },
      };
      const res = await send(app, materialise(op, draw, poolA, keys));
      result.controls.run++;
      if (res.statusCode === 404 || res.statusCode === 400 || res.statusCode >= 500) {
        result.controls.failed.push({
          operation: op.key,
          group: group.join('+'),
          status: res.statusCode,
          body: res.body.slice(0, 300),
        });
      }
    }
    return result;
  } finally {
    await harness.close();
  }
}

export function matrixPassed(result: MatrixResult): boolean {
  return (
    result.failures.length === 0 &&
    result.listLeaks.length === 0 &&
    result.bRowsChanged.length === 0 &&
    result.controls.failed.length === 0
  );
}

export function matrixSummary(result: MatrixResult): string {
  return (
    `tenant matrix ${result.dialect}: ${result.operations.length} operations, ${result.cells} cells ` +
    `(operation × resource × header), ${result.failures.length} failures, ${result.listLeaks.length} list leaks, ` +
    `${result.bRowsChanged.length} operations changed B's ${result.bRows} rows, ` +
    `${result.controls.failed.length}/${result.controls.run} controls failed`
  );
}

async function main(): Promise<boolean> {
  const args = parseCommonArgs(process.argv.slice(2));
  const results: MatrixResult[] = [];
  for (const dialect of args.dialects) {
    const result = await runTenantMatrix({ dialect });
    results.push(result);
    process.stdout.write(`${matrixSummary(result)}\n`);
    for (const f of result.failures.slice(0, 20)) {
      process.stdout.write(
        `  FAIL ${f.operation} [${f.group}, ${f.header}] ${f.reason}: ${JSON.stringify(f.foreign)} vs ${JSON.stringify(f.missing)}\n`,
      );
    }
    for (const c of result.controls.failed)
      process.stdout.write(`  CONTROL ${c.operation} [${c.group}] ${c.status}: ${c.body}\n`);
    for (const l of result.listLeaks) process.stdout.write(`  LEAK ${l.operation}: ${l.leaked.join(', ')}\n`);
    for (const ch of result.bRowsChanged)
      process.stdout.write(`  B CHANGED by ${ch.operation}: ${JSON.stringify(ch.changes).slice(0, 400)}\n`);
  }
  const file = writeReport('tenant-matrix', { results });
  const passed = results.every(matrixPassed);
  process.stdout.write(`tenant matrix: ${passed ? 'PASS' : 'FAIL'} (${file})\n`);
  return passed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) runMain(main);
