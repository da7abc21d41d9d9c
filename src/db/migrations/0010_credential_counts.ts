import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';

/**
 * The credentials list answers in constant time however many credentials an issuer holds.
 * - `credentials_issuer_definition` (issuer, definition) was a prefix of 0008's status index and
 *   left the list filtered by definition to walk the issuer's whole creation index. It becomes
 *   (issuer, definition, created_at, id): the filtered page is an index range in its own order.
 * - SQLite: `credential_counts` holds the number of credentials per issuer and definition, kept by
 *   triggers, so the list's `total` without a status filter is a sum of a few rows instead of a
 *   count of every credential. SQLite has one writer, so the counter rows cost no concurrency.
 *   PostgreSQL gets the same table in 0012, kept differently: there a counter row would serialise
 *   every concurrent issuance of a definition on its lock.
 */
export function credentialCountsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('credentials_issuer_definition').execute();
      await db.schema
        .createIndex('credentials_issuer_definition_created')
        .on('credentials')
        .columns(['issuer_id', 'definition_id', 'created_at', 'id'])
        .execute();
      if (dialect !== 'sqlite') return;
      await db.schema
        .createTable('credential_counts')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('credentials', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('credential_counts_pk', ['issuer_id', 'definition_id'])
        .execute();
      await sql`insert into credential_counts (issuer_id, definition_id, credentials)
        select issuer_id, definition_id, count(*) from credentials group by issuer_id, definition_id`.execute(db);
      const add = (row: 'new') =>
        `insert into credential_counts (issuer_id, definition_id, credentials)
         values (${row}.issuer_id, ${row}.definition_id, 1)
         on conflict (issuer_id, definition_id) do update set credentials = credentials + 1;`;
      const remove = (row: 'old') =>
        `update credential_counts set credentials = credentials - 1
         where issuer_id = ${row}.issuer_id and definition_id = ${row}.definition_id;`;
      for (const statement of [
        `create trigger credential_counts_insert after insert on credentials begin ${add('new')} end`,
        `create trigger credential_counts_delete after delete on credentials begin ${remove('old')} end`,
        `create trigger credential_counts_move after update of issuer_id, definition_id on credentials
         begin ${remove('old')} ${add('new')} end`,
      ]) {
        await sql.raw(statement).execute(db);
      }
    },
  };
}
