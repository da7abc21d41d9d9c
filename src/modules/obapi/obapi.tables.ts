import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { BackpackTables } from '../backpack/backpack.tables.js';

/** The OB 3.0 API's tables (migration 0091). */
export type ObApiTables = {
  oauth_payloads: {
    model: string;
    id: string;
    payload: string;
    account_id: string | null;
    grant_id: string | null;
    uid: string | null;
    user_code: string | null;
    expires_at: string | null;
    consumed_at: string | null;
  };
  earner_api_credentials: {
    account_id: string;
    credential_key: string;
    format: 'json' | 'jws';
    body: string;
    issued_at: string;
    created_at: string;
    updated_at: string;
    /** Migration 0150: the app that sent it and the backpack's last check. */
    client_id: string | null;
    status: string | null;
    reason: string | null;
    checked_at: string | null;
  };
  earner_profiles: { account_id: string; profile: string; updated_at: string };
};

export type ObApiDb = Kysely<DB & BackpackTables & ObApiTables>;

export const withObApi = (db: Kysely<DB>): ObApiDb => db.withTables<BackpackTables & ObApiTables>();
