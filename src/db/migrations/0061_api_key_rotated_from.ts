import type { Kysely } from 'kysely';

/**
 * A key made by rotating another keeps that key's label and names it here, so the key list can say
 * "rotated on <date>" (design.md §4, Added 2026-11-27: key rotation is per key). Keys made before
 * this migration, and keys made fresh, have none (null).
 */
export function apiKeyRotatedFromMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('api_keys').addColumn('rotated_from', 'text').execute();
    },
  };
}
