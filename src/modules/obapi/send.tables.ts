import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** "Send to another platform" (migration 0160): registrations at other hosts, authorizations in flight, attempts. */
export type SendTables = {
  earner_remote_platforms: {
    id: string;
    account_id: string;
    discovery_url: string;
    origin: string;
    name: string;
    /** JSON: the RFC 8414 metadata openid-client is configured with (composed from the SDD). */
    server_metadata: string;
    /** The API's base URL (the SDD's servers[0].url); credentials are upserted at `${api_base}/credentials`. */
    api_base: string;
    client_id: string;
    client_secret_sealed: string | null;
    client_secret_expires_at: string | null;
    /** JSON: the RFC 7591 registration response without client_secret and registration_access_token. */
    registration: string;
    created_at: string;
    last_used_at: string;
  };
  earner_send_authorizations: {
    state_hash: string;
    account_id: string;
    session_hash: string;
    platform_id: string;
    code_verifier_sealed: string;
    /** JSON: the credential ids chosen, in the order shown. */
    credential_ids: string;
    created_at: string;
    expires_at: string;
    used_at: string | null;
  };
  earner_send_attempts: { account_id: string; origin: string; attempted_at: string };
};

export type SendDb = Kysely<DB & SendTables>;

export const withSend = (db: Kysely<DB>): SendDb => db.withTables<SendTables>();
