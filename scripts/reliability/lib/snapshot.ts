import { sql } from 'kysely';
import type { Database } from '../../../src/db/database.js';

/** Every row one issuer owns, per table, as sorted canonical JSON lines. */
export type IssuerSnapshot = Map<string, string[]>;

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * The tables of the database (SQLite) or of its schema (PostgreSQL), with their columns. On
 * PostgreSQL only the one schema is read (less Kysely's migration tables, as its introspection leaves them out): Kysely's introspection reads every schema of the server,
 * and a test schema another run drops meanwhile made it fail ("schema … does not exist").
 */
async function tablesOf(database: Database, schema: string | null): Promise<{ name: string; columns: string[] }[]> {
  if (database.dialect === 'sqlite') {
    return (await database.db.introspection.getTables()).map((t) => ({
      name: t.name,
      columns: t.columns.map((c) => c.name),
    }));
  }
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = ${schema ?? 'public'} and t.table_type = 'BASE TABLE'
      and c.table_name not like 'kysely\\_%'
    order by c.table_name, c.ordinal_position`.execute(database.db);
  const tables = new Map<string, string[]>();
  for (const row of rows) tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), row.column_name]);
  return [...tables].map(([name, columns]) => ({ name, columns }));
}

/**
 * Reads the issuer's rows from every table the schema has now (so tables added later are covered):
 * rows carrying its issuer_id, its own issuers row, and whole tables that belong to no issuer.
 */
export async function snapshotIssuer(
  database: Database,
  issuerId: string,
  schema: string | null,
): Promise<IssuerSnapshot> {
  const tables = await tablesOf(database, schema);
  const snapshot: IssuerSnapshot = new Map();
  for (const table of tables) {
    const { columns } = table;
    const ref = sql.table(table.name);
    const query = columns.includes('issuer_id')
      ? sql<Record<string, unknown>>`select * from ${ref} where issuer_id = ${issuerId}`
      : table.name === 'issuers'
        ? sql<Record<string, unknown>>`select * from ${ref} where id = ${issuerId}`
        : sql<Record<string, unknown>>`select * from ${ref}`;
    const { rows } = await query.execute(database.db);
    snapshot.set(table.name, rows.map(canonical).sort());
  }
  return snapshot;
}

/** Tables whose rows differ, with the rows that appeared and disappeared. */
export function diffSnapshots(before: IssuerSnapshot, after: IssuerSnapshot) {
  const changes: { table: string; added: string[]; removed: string[] }[] = [];
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const a = new Set(before.get(table) ?? []);
    const b = new Set(after.get(table) ?? []);
    const added = [...b].filter((row) => !a.has(row));
    const removed = [...a].filter((row) => !b.has(row));
    if (added.length > 0 || removed.length > 0) changes.push({ table, added, removed });
  }
  return changes;
}

export function rowCount(snapshot: IssuerSnapshot): number {
  return [...snapshot.values()].reduce((n, rows) => n + rows.length, 0);
}
