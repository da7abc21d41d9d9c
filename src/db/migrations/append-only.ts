import type { Dialect } from '../types.js';

/**
 * DDL that makes a table append-only in the database itself, so no code path (and no operator
 * with the application's role) can rewrite history.
 *
 * SQLite: triggers refuse UPDATE and DELETE. `INSERT OR REPLACE` deletes the conflicting row without
 * firing DELETE triggers unless recursive_triggers is on, so a BEFORE INSERT guard refuses any insert
 * that would collide with an existing row.
 *
 * PostgreSQL: row triggers refuse UPDATE and DELETE (which also blocks ON CONFLICT DO UPDATE), and a
 * statement trigger refuses TRUNCATE. Triggers bind every role except a superuser that disables them,
 * so the application must connect as a non-owner, non-superuser role (README: PostgreSQL roles).
 */
export function appendOnlyGuards(dialect: Dialect, table: string): string[] {
  if (dialect === 'sqlite') {
    const collision =
      table === 'audit_log'
        ? `select 1 from audit_log where id = new.id or (issuer_id = new.issuer_id and stripe = new.stripe and seq = new.seq)`
        : `select 1 from ${table} where id = new.id`;
    return [
      `create trigger ${table}_no_update before update on ${table} begin select raise(abort, '${table} is append-only'); end`,
      `create trigger ${table}_no_delete before delete on ${table} begin select raise(abort, '${table} is append-only'); end`,
      `create trigger ${table}_no_replace before insert on ${table} when exists (${collision}) begin select raise(abort, '${table} is append-only'); end`,
    ];
  }
  return [
    `create or replace function accolade_refuse_change() returns trigger language plpgsql as $$
     begin
       raise exception '% is append-only', tg_table_name using errcode = 'insufficient_privilege';
     end $$`,
    `create trigger ${table}_no_update_delete before update or delete on ${table}
       for each row execute function accolade_refuse_change()`,
    `create trigger ${table}_no_truncate before truncate on ${table}
       for each statement execute function accolade_refuse_change()`,
  ];
}
