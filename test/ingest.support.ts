import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { auth, type TestApp } from './helpers.js';

/** Creates a definition for the key holder; returns its id and slug. */
export async function createDefinition(
  t: TestApp,
  key: string,
  body: { name: string; slug?: string; expiresAfterDays?: number },
): Promise<{ id: string; slug: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/definitions',
    headers: auth(key),
    payload: { description: 'Ingest test definition', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { id: res.json().id, slug: res.json().slug };
}

export async function archive(t: TestApp, key: string, id: string): Promise<void> {
  const res = await t.app.inject({
    method: 'PATCH',
    url: `/api/v1/definitions/${id}`,
    headers: auth(key),
    payload: { status: 'archived' },
  });
  expect(res.statusCode, res.body).toBe(200);
}

export async function postJson(
  t: TestApp,
  key: string,
  url: string,
  payload: unknown,
): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url, headers: auth(key), payload: payload as object });
}

export interface RowReport {
  rowNum: number;
  outcome: string;
  /** Dry runs only. */
  preview?: string;
  completionKey: string | null;
  credentialId: string | null;
  message: string | null;
  problems?: { field: string; code: string; value: string | null; column?: string | null }[];
  recipientName?: string | null;
  definitionName?: string | null;
}

export interface ImportReportBody {
  batchId: string;
  source: string;
  filename: string | null;
  total: number;
  issued: number;
  skipped: number;
  errored: number;
  dryRun: boolean;
  columns: { recognised: { header: string; field: string }[]; ignored: string[] };
  rows: RowReport[];
}

/** POST /api/v1/ingest/csv expecting 200; returns the report. */
export async function importCsv(
  t: TestApp,
  key: string,
  csv: string,
  extra: Record<string, unknown> = {},
): Promise<ImportReportBody> {
  const res = await postJson(t, key, '/api/v1/ingest/csv', { csv, ...extra });
  expect(res.statusCode, res.body.slice(0, 2000)).toBe(200);
  return res.json() as ImportReportBody;
}

export async function countRows(t: TestApp, table: 'credentials' | 'import_batches' | 'audit_log'): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A small deterministic PRNG (mulberry32) so generated files are the same on every run. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let r = state;
    r = Math.imul(r ^ (r >>> 15), r | 1);
    r ^= r + Math.imul(r ^ (r >>> 7), r | 61);
    return ((r ^ (r >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T,
  };
}

/**
 * A CSV with every kind of row an import meets: new rows, duplicates inside the file, rows issued
 * by an earlier file (the email pool is shared between seeds), bad emails, unknown and archived
 * definitions, future and unreadable dates, ragged rows, explicit keys and quoted text.
 */
export function generateCsv(seed: number, rows: number, courses: { active: string[]; archived: string }): string {
  const random = seeded(seed);
  const lines = ['Email,Full Name,Course,Date,Completion_Key'];
  for (let i = 0; i < rows; i++) {
    const person = random.int(Math.max(4, Math.floor(rows * 0.6)));
    const email = `learner${person}@gen.example`;
    const course = random.pick(courses.active);
    const roll = random.next();
    const name = random.next() < 0.2 ? `"Smith, Ann ""${person}""\nJr"` : `Learner ${person}`;
    const key = random.next() < 0.1 ? `key-${random.int(rows)}` : '';
    if (roll < 0.06) lines.push(`not-an-email,${name},${course},2024-01-02,${key}`);
    else if (roll < 0.1) lines.push(`${email},${name},no-such-course,2024-01-02,${key}`);
    else if (roll < 0.13) lines.push(`${email},${name},${courses.archived},2024-01-02,${key}`);
    else if (roll < 0.16) lines.push(`${email},${name},${course},2999-01-01,${key}`);
    else if (roll < 0.19) lines.push(`${email},${name},${course},31/12/2020,${key}`);
    else if (roll < 0.21) lines.push(`${email},${name}`);
    else lines.push(`${email},${name},${course},2024-0${1 + random.int(9)}-1${random.int(10)},${key}`);
  }
  return `${lines.join(random.next() < 0.5 ? '\r\n' : '\n')}\n`;
}

/**
 * Everything the database holds, as text: the SQLite file and its WAL, or every table of the
 * PostgreSQL schema as JSON. Tests grep it for emails that must never be stored.
 */
export async function storedText(t: TestApp): Promise<string> {
  if (t.testDb.file) {
    let text = '';
    for (const suffix of ['', '-wal']) {
      try {
        text += readFileSync(`${t.testDb.file}${suffix}`).toString('latin1');
      } catch {
        // No WAL file after a checkpoint: nothing to read.
      }
    }
    return text.toLowerCase();
  }
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = current_schema()`.execute(t.database.db);
  let text = '';
  for (const { table_name } of tables.rows) {
    const rows = await sql.raw(`select * from "${table_name}"`).execute(t.database.db);
    text += JSON.stringify(rows.rows);
  }
  return text.toLowerCase();
}
