import type { Kysely } from 'kysely';

/**
 * The earner's collections (issue 47 §1): named sets of the account's own badges
 * (`earner_collection_items`, the issuers' credentials linked to the account). A public collection
 * has a `public_id`, a random token its public page is found by; making it private clears it, so
 * the page is gone (404), and making it public again gives a new address. Account deletion removes
 * both tables' rows.
 */
export function earnerCollectionsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('earner_collections')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('public_id', 'text', (c) => c.unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('earner_collections_account')
        .on('earner_collections')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('earner_collection_items')
        .addColumn('collection_id', 'text', (c) => c.notNull())
        .addColumn('credential_id', 'text', (c) => c.notNull())
        .addColumn('added_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('earner_collection_items_pk', ['collection_id', 'credential_id'])
        .execute();
    },
  };
}
