import type { Dialect, Executor } from '../../db/database.js';
import { forUpdate } from '../../db/dialect.js';
import type { SigningKeysTable } from '../../db/schema.js';

export type SigningKeyRow = SigningKeysTable;

export function createSigningKeyRepository(db: Executor, dialect: Dialect) {
  return {
    async list(issuerId: string): Promise<SigningKeyRow[]> {
      return db.selectFrom('signing_keys').selectAll().where('issuer_id', '=', issuerId).orderBy('version').execute();
    },
    async latest(issuerId: string): Promise<SigningKeyRow | undefined> {
      return db
        .selectFrom('signing_keys')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .orderBy('version', 'desc')
        .limit(1)
        .executeTakeFirst();
    },
    async get(issuerId: string, version: number): Promise<SigningKeyRow | undefined> {
      return db
        .selectFrom('signing_keys')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('version', '=', version)
        .executeTakeFirst();
    },
    /**
     * Locks the issuer's first key (PostgreSQL) for the surrounding transaction: rotations and
     * status-position allocations of one issuer take turns behind it.
     */
    async lockFirst(issuerId: string): Promise<void> {
      await forUpdate(
        dialect,
        db.selectFrom('signing_keys').select('version').where('issuer_id', '=', issuerId).where('version', '=', 1),
      ).execute();
    },
    /** Inserts unless that version exists (two first uses at once: one key wins, both read it). */
    async insert(row: SigningKeyRow): Promise<void> {
      await db
        .insertInto('signing_keys')
        .values(row)
        .onConflict((oc) => oc.columns(['issuer_id', 'version']).doNothing())
        .execute();
    },
  };
}
