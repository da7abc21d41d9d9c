import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { type EarnerImportsTable, withBackpack } from './backpack.tables.js';

export type ImportRow = EarnerImportsTable;

/** The SQL of imported credentials; every statement is scoped to the account first. */
export function createImportsRepository(root: Kysely<DB>) {
  const db = withBackpack(root);
  return {
    list: (accountId: string) =>
      db
        .selectFrom('earner_imports')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),

    find: (accountId: string, id: string) =>
      db
        .selectFrom('earner_imports')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst(),

    findByKey: (accountId: string, key: string) =>
      db
        .selectFrom('earner_imports')
        .select(['id', 'created_at'])
        .where('account_id', '=', accountId)
        .where('credential_key', '=', key)
        .executeTakeFirst(),

    /** Inserts the import, or replaces what an earlier import of the same credential found. */
    async save(row: ImportRow) {
      const { id: _id, account_id: _a, credential_key: _k, created_at: _c, ...changes } = row;
      await db
        .insertInto('earner_imports')
        .values(row)
        .onConflict((oc) => oc.columns(['account_id', 'credential_key']).doUpdateSet(changes))
        .execute();
    },

    async delete(accountId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('earner_imports')
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Counts the account's checks since `since`, after dropping its older ones. */
    async attemptsSince(accountId: string, since: string): Promise<number> {
      await db
        .deleteFrom('earner_import_attempts')
        .where('account_id', '=', accountId)
        .where('attempted_at', '<=', since)
        .execute();
      const row = await db
        .selectFrom('earner_import_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async addAttempt(accountId: string, at: string) {
      await db.insertInto('earner_import_attempts').values({ account_id: accountId, attempted_at: at }).execute();
    },

    async deleteAccount(accountId: string) {
      await db.deleteFrom('earner_imports').where('account_id', '=', accountId).execute();
      await db.deleteFrom('earner_import_attempts').where('account_id', '=', accountId).execute();
    },
  };
}
