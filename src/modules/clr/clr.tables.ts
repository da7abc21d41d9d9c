import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** The CLR module's table (migration 0130). */
export interface ClrCredentialsTable {
  id: string;
  issuer_id: string;
  pathway_id: string;
  recipient_hash: string;
  credential_ids: string;
  key_version: number;
  credential: string;
  valid_from: string;
  valid_until: string | null;
  created_at: string;
}

/**
 * The CLR module's table, and what it reads of the backpack's links (migration 0090): which
 * credentials an earner account holds.
 */
export type ClrTables = {
  clr_credentials: ClrCredentialsTable;
  earner_credentials: { credential_id: string; account_id: string };
};

export type ClrDb = Kysely<DB & ClrTables>;

export const withClr = (db: Kysely<DB>): ClrDb => db.withTables<ClrTables>();
