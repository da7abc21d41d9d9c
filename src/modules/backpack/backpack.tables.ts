import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** The backpack's tables (migration 0090); the module reaches them through `withBackpack`. */
export interface EarnerAccountsTable {
  id: string;
  email_hash: string;
  created_at: string;
  last_sign_in_at: string;
}

export interface EarnerSignInLinksTable {
  token_hash: string;
  email_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface EarnerSessionsTable {
  token_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export interface EarnerCredentialsTable {
  credential_id: string;
  account_id: string;
  issuer_id: string;
  linked_at: string;
}

export type BackpackTables = {
  earner_accounts: EarnerAccountsTable;
  earner_sign_in_links: EarnerSignInLinksTable;
  earner_sessions: EarnerSessionsTable;
  earner_credentials: EarnerCredentialsTable;
};

export type BackpackDb = Kysely<DB & BackpackTables>;

/** The service's database handle (or a transaction) seen with the backpack's tables. */
export const withBackpack = (db: Kysely<DB>): BackpackDb => db.withTables<BackpackTables>();
