import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** The backpack's tables (migrations 0090, 0125 and 0151); the module reaches them through `withBackpack`. */
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

/** An imported credential (migration 0125) and what its last check found. */
export interface EarnerImportsTable {
  id: string;
  account_id: string;
  credential_key: string;
  spec: 'ob2' | 'ob3';
  format: 'url' | 'json' | 'jws' | 'png' | 'svg';
  document: string;
  source_url: string | null;
  name: string;
  description: string;
  issuer_name: string;
  issuer_id: string;
  image_url: string | null;
  issued_on: string | null;
  expires_on: string | null;
  status: 'verified' | 'expired' | 'revoked' | 'suspended' | 'unverified';
  reason: string | null;
  checked_at: string;
  created_at: string;
}

/** Migration 0151: the earner's collections and the badges in them. */
export interface EarnerCollectionsTable {
  id: string;
  account_id: string;
  name: string;
  public_id: string | null;
  created_at: string;
  updated_at: string;
}

export type BackpackTables = {
  earner_collections: EarnerCollectionsTable;
  earner_collection_items: { collection_id: string; credential_id: string; added_at: string };
  earner_accounts: EarnerAccountsTable;
  earner_sign_in_links: EarnerSignInLinksTable;
  earner_sessions: EarnerSessionsTable;
  earner_credentials: EarnerCredentialsTable;
  earner_imports: EarnerImportsTable;
  earner_import_attempts: { account_id: string; attempted_at: string };
};

export type BackpackDb = Kysely<DB & BackpackTables>;

/** The service's database handle (or a transaction) seen with the backpack's tables. */
export const withBackpack = (db: Kysely<DB>): BackpackDb => db.withTables<BackpackTables>();
