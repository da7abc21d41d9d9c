import type { Kysely } from 'kysely';
import type { Dialect } from '../types.js';

/**
 * Images uploaded for the console (badge images, logos), stored in the database so every replica
 * serves them without shared files. PNGs as uploaded, SVGs as sanitised.
 */
export function imagesMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('images')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('bytes', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('images_issuer').on('images').columns(['issuer_id', 'created_at']).execute();
    },
  };
}
