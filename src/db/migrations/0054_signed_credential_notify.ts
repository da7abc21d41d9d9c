import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';

/**
 * PostgreSQL: the OB 3.0 credential's warm fetch is answered from the read cache too (issue 26), so
 * a change of a stored signature notifies as 0053's triggers do, with the credential's id. The
 * service stores a signature once and never changes it; this covers SQL by hand and anything later.
 * Inserts (a status position, not yet signed) are never cached, so they send nothing; storing the
 * signature is an update, and drops the credential's other cached rows once, harmlessly.
 */
export function signedCredentialNotifyMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function accolade_read_cache_signed_updated() returns trigger language plpgsql as $$
        begin
          perform accolade_read_cache_credential_ids(TG_TABLE_SCHEMA, array(
            select distinct x from old_rows o full join new_rows n on n.credential_id = o.credential_id,
              unnest(array[o.credential_id, n.credential_id]) x
            where o is distinct from n and x is not null));
          return null;
        end $$`.execute(db);
      await sql`
        create function accolade_read_cache_signed_deleted() returns trigger language plpgsql as $$
        begin
          perform accolade_read_cache_credential_ids(TG_TABLE_SCHEMA, array(select credential_id from old_rows));
          return null;
        end $$`.execute(db);
      await sql`create trigger vc_credentials_read_cache_updated after update on vc_credentials
        referencing old table as old_rows new table as new_rows
        for each statement execute function accolade_read_cache_signed_updated()`.execute(db);
      await sql`create trigger vc_credentials_read_cache_deleted after delete on vc_credentials
        referencing old table as old_rows
        for each statement execute function accolade_read_cache_signed_deleted()`.execute(db);
      await sql`create trigger vc_credentials_read_cache_truncated after truncate on vc_credentials
        for each statement execute function accolade_read_cache_truncated()`.execute(db);
    },
  };
}
