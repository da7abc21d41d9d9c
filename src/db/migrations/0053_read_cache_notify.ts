import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';

/** The channel the triggers below notify and every replica's change feed listens on (src/db/change-feed.ts). */
export const READ_CACHE_CHANNEL = 'accolade_read_cache';

/**
 * PostgreSQL: every write that can change a cached public read (verify, the page, the hosted
 * assertion; src/db/read-cache.ts) notifies READ_CACHE_CHANNEL at its commit, whatever wrote it (the
 * API, the CLI, a GDPR erase, a reissue, the expiry sweep, SQL by hand). Those reads select from
 * credentials, issuers, definitions, alignments and endorsements, so each has triggers. A payload is
 * JSON naming the table's schema (`s`, so tenants or tests sharing a database ignore each other's)
 * and what changed: credential ids (`c`), an issuer (`i`) or definition (`d`) id, or everything
 * (`all`: a truncate, or an update of more than 100 credentials). NOTIFY folds identical payloads of
 * one transaction into one.
 * - credentials: an update or delete names every row whose values changed, and the credentials it
 *   replaced (`reissued_from`, whose page links its newest replacement); statement-level, over the
 *   transition tables, so a bulk update sends one notification. An insert is never in a cache
 *   (misses are not cached), so only a reissue's insert notifies, for the credential it replaces: a
 *   row trigger whose WHEN skips every other insert (bulk imports pay nothing for it).
 * - issuers, definitions: any changed row, or a deleted one, by id.
 * - alignments: their definition. endorsements: the definition or credential endorsed.
 * Whole rows are compared, so a column added later to a cached read is covered without a change here.
 * SQLite is in-process and its reads are not cached: nothing to do.
 */
export function readCacheNotifyMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function accolade_read_cache_notify(p_schema text, p_change jsonb) returns void
        language sql as $$
          select pg_notify(${sql.lit(READ_CACHE_CHANNEL)}, (jsonb_build_object('s', p_schema) || p_change)::text)
        $$`.execute(db);
      await sql`
        create function accolade_read_cache_credential_ids(p_schema text, p_ids text[]) returns void
        language sql as $$
          select accolade_read_cache_notify(p_schema, case
            when cardinality(p_ids) > 100 then '{"all": true}'::jsonb
            else jsonb_build_object('c', to_jsonb(p_ids)) end)
          where cardinality(p_ids) > 0
        $$`.execute(db);
      await sql`
        create function accolade_read_cache_credentials_updated() returns trigger language plpgsql as $$
        begin
          perform accolade_read_cache_credential_ids(TG_TABLE_SCHEMA, array(
            select distinct x from old_rows o full join new_rows n on n.id = o.id,
              unnest(array[o.id, o.reissued_from, n.id, n.reissued_from]) x
            where o is distinct from n and x is not null));
          return null;
        end $$`.execute(db);
      await sql`
        create function accolade_read_cache_credentials_deleted() returns trigger language plpgsql as $$
        begin
          perform accolade_read_cache_credential_ids(TG_TABLE_SCHEMA, array(
            select distinct x from old_rows o, unnest(array[o.id, o.reissued_from]) x where x is not null));
          return null;
        end $$`.execute(db);
      await sql`
        create function accolade_read_cache_reissued() returns trigger language plpgsql as $$
        begin
          perform accolade_read_cache_credential_ids(TG_TABLE_SCHEMA, array[NEW.reissued_from]);
          return null;
        end $$`.execute(db);
      await sql`
        create function accolade_read_cache_row_changed() returns trigger language plpgsql as $$
        declare
          v_row record := case when TG_OP = 'DELETE' then OLD else NEW end;
        begin
          perform accolade_read_cache_notify(TG_TABLE_SCHEMA, jsonb_build_object(TG_ARGV[0], v_row.id));
          return null;
        end $$`.execute(db);
      await sql`
        create function accolade_read_cache_alignment_changed() returns trigger language plpgsql as $$
        begin
          if TG_OP <> 'INSERT' then
            perform accolade_read_cache_notify(TG_TABLE_SCHEMA, jsonb_build_object('d', OLD.definition_id));
          end if;
          if TG_OP <> 'DELETE' then
            perform accolade_read_cache_notify(TG_TABLE_SCHEMA, jsonb_build_object('d', NEW.definition_id));
          end if;
          return null;
        end $$`.execute(db);
      await sql`
        create function accolade_read_cache_endorsement_target(p_schema text, p_type text, p_id text) returns void
        language sql as $$
          select accolade_read_cache_notify(p_schema, case when p_type = 'credential'
            then jsonb_build_object('c', jsonb_build_array(p_id)) else jsonb_build_object('d', p_id) end)
        $$`.execute(db);
      await sql`
        create function accolade_read_cache_endorsement_changed() returns trigger language plpgsql as $$
        begin
          if TG_OP <> 'INSERT' then
            perform accolade_read_cache_endorsement_target(TG_TABLE_SCHEMA, OLD.target_type, OLD.target_id);
          end if;
          if TG_OP <> 'DELETE' then
            perform accolade_read_cache_endorsement_target(TG_TABLE_SCHEMA, NEW.target_type, NEW.target_id);
          end if;
          return null;
        end $$`.execute(db);
      await sql`
        create function accolade_read_cache_truncated() returns trigger language plpgsql as $$
        begin
          perform accolade_read_cache_notify(TG_TABLE_SCHEMA, '{"all": true}'::jsonb);
          return null;
        end $$`.execute(db);

      await sql`create trigger credentials_read_cache_updated after update on credentials
        referencing old table as old_rows new table as new_rows
        for each statement execute function accolade_read_cache_credentials_updated()`.execute(db);
      await sql`create trigger credentials_read_cache_deleted after delete on credentials
        referencing old table as old_rows
        for each statement execute function accolade_read_cache_credentials_deleted()`.execute(db);
      await sql`create trigger credentials_read_cache_reissued after insert on credentials
        for each row when (NEW.reissued_from is not null)
        execute function accolade_read_cache_reissued()`.execute(db);
      for (const [table, key] of [
        ['issuers', 'i'],
        ['definitions', 'd'],
      ] as const) {
        await sql`create trigger ${sql.id(`${table}_read_cache_updated`)} after update on ${sql.table(table)}
          for each row when (OLD.* is distinct from NEW.*)
          execute function accolade_read_cache_row_changed(${sql.lit(key)})`.execute(db);
        await sql`create trigger ${sql.id(`${table}_read_cache_deleted`)} after delete on ${sql.table(table)}
          for each row execute function accolade_read_cache_row_changed(${sql.lit(key)})`.execute(db);
      }
      for (const table of ['alignment', 'endorsement']) {
        await sql`create trigger ${sql.id(`${table}s_read_cache_changed`)}
          after insert or update or delete on ${sql.table(`${table}s`)}
          for each row execute function ${sql.id(`accolade_read_cache_${table}_changed`)}()`.execute(db);
      }
      for (const table of ['credentials', 'issuers', 'definitions', 'alignments', 'endorsements']) {
        await sql`create trigger ${sql.id(`${table}_read_cache_truncated`)} after truncate on ${sql.table(table)}
          for each statement execute function accolade_read_cache_truncated()`.execute(db);
      }
    },
  };
}
