import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';

/**
 * PostgreSQL: the API key lookup is answered from a cache too (src/db/read-cache.ts, issue 26), so a
 * change of a key or of a plan notifies as 0053's triggers do: a changed or deleted key names its
 * issuer (`k`), a changed or deleted plan its code (`p`); an update that moves the row names the new
 * owner too. The trigger's arguments are the payload's key and the column naming the owner.
 * Issuers already notify (`i`, 0053), which covers moving one issuer to another plan. A new key is
 * never in the cache (misses are not kept), so an insert sends nothing. A truncate sends `all`.
 */
export function keyCacheNotifyMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function accolade_read_cache_owner_changed() returns trigger language plpgsql as $$
        declare
          v_old text := to_jsonb(OLD) ->> TG_ARGV[1];
          v_new text := case when TG_OP = 'UPDATE' then to_jsonb(NEW) ->> TG_ARGV[1] end;
        begin
          perform accolade_read_cache_notify(TG_TABLE_SCHEMA, jsonb_build_object(TG_ARGV[0], v_old));
          if v_new is not null and v_new is distinct from v_old then
            perform accolade_read_cache_notify(TG_TABLE_SCHEMA, jsonb_build_object(TG_ARGV[0], v_new));
          end if;
          return null;
        end $$`.execute(db);
      for (const [table, key, column] of [
        ['api_keys', 'k', 'issuer_id'],
        ['plans', 'p', 'code'],
      ] as const) {
        await sql`create trigger ${sql.id(`${table}_read_cache_updated`)} after update on ${sql.table(table)}
          for each row when (OLD.* is distinct from NEW.*)
          execute function accolade_read_cache_owner_changed(${sql.lit(key)}, ${sql.lit(column)})`.execute(db);
        await sql`create trigger ${sql.id(`${table}_read_cache_deleted`)} after delete on ${sql.table(table)}
          for each row execute function accolade_read_cache_owner_changed(${sql.lit(key)}, ${sql.lit(column)})`.execute(
          db,
        );
        await sql`create trigger ${sql.id(`${table}_read_cache_truncated`)} after truncate on ${sql.table(table)}
          for each statement execute function accolade_read_cache_truncated()`.execute(db);
      }
    },
  };
}
