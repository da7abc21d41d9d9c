import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';

/**
 * PostgreSQL: the credentials list's `total` without a status filter stops counting credentials.
 * - `credential_counts` has SQLite's shape (0010), so the repository reads one table on both engines.
 *   It starts with the credentials already stored.
 * - A counter row updated on every insert would hold its lock until the issuance commits and so
 *   serialise concurrent issuances of a definition. Instead statement triggers append net changes to
 *   `credential_count_deltas`: one row per issuer and definition a statement touched (a 500-row
 *   import batch adds one row per definition in it). An append takes no lock another writer waits on.
 * - The list sums counts and deltas in one statement (one snapshot), and the app folds an issuer's
 *   deltas into its counts now and then (credentials/counts.compaction.ts).
 * - Transition tables cannot go with a column list, so the UPDATE trigger fires on every update; it
 *   writes only when an issuer or definition changed. It nets old rows against new ones by group and
 *   needs no join, so a changed id cannot lose a count either.
 * - The triggers run as the role that writes credentials. That role gets on the new tables whatever
 *   it holds on `credentials`, so issuance keeps working before the operator grants anew.
 * SQLite keeps 0010's counter rows: it has one writer, so they serialise nothing.
 */
export function credentialCountDeltasMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await db.schema
        .createTable('credential_counts')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('credentials', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('credential_counts_pk', ['issuer_id', 'definition_id'])
        .execute();
      await db.schema
        .createTable('credential_count_deltas')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('delta', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('credential_count_deltas_issuer_definition')
        .on('credential_count_deltas')
        .columns(['issuer_id', 'definition_id'])
        .execute();
      const netChange = (rows: string) =>
        `insert into credential_count_deltas (issuer_id, definition_id, delta)
         select issuer_id, definition_id, sum(delta) from (${rows}) changed
         group by issuer_id, definition_id having sum(delta) <> 0;`;
      const added = 'select issuer_id, definition_id, 1 as delta from new_credentials';
      const removed = 'select issuer_id, definition_id, -1 as delta from old_credentials';
      for (const statement of [
        `create function accolade_count_credentials() returns trigger language plpgsql as $$
         begin
           if tg_op = 'INSERT' then
             ${netChange(added)}
           elsif tg_op = 'DELETE' then
             ${netChange(removed)}
           else
             ${netChange(`${removed} union all ${added}`)}
           end if;
           return null;
         end $$`,
        `create trigger credential_counts_insert after insert on credentials
         referencing new table as new_credentials for each statement execute function accolade_count_credentials()`,
        `create trigger credential_counts_delete after delete on credentials
         referencing old table as old_credentials for each statement execute function accolade_count_credentials()`,
        `create trigger credential_counts_move after update on credentials
         referencing old table as old_credentials new table as new_credentials
         for each statement execute function accolade_count_credentials()`,
        // Creating the triggers locked credentials against writes until this migration commits, so
        // no credential lands between the backfill and the first delta.
        `insert into credential_counts (issuer_id, definition_id, credentials)
         select issuer_id, definition_id, count(*) from credentials group by issuer_id, definition_id`,
        // Whoever may write credentials may append (and fold) their counts.
        `do $$
         declare granted record;
         begin
           for granted in
             select a.grantee::regrole::text as grantee, string_agg(a.privilege_type, ', ') as privileges
             from pg_class c, aclexplode(c.relacl) a
             where c.oid = 'credentials'::regclass and a.grantee <> 0 and a.grantee <> c.relowner
               and a.privilege_type in ('SELECT', 'INSERT', 'UPDATE', 'DELETE')
             group by a.grantee
           loop
             execute format('grant %s on credential_counts, credential_count_deltas to %s', granted.privileges, granted.grantee);
           end loop;
         end $$`,
      ]) {
        await sql.raw(statement).execute(db);
      }
    },
  };
}
