import type { Kysely } from 'kysely';

/**
 * "Send to another platform" (issue 47, OB 3.0 §6 Service Consumer Write): the backpack as a
 * client of another host's Open Badges API.
 *
 * - `earner_remote_platforms`: one RFC 7591 registration per earner account and remote Service
 *   Description Document, reused by every later send: the discovery URL and its origin, the
 *   server metadata composed from the SDD (and the host's RFC 8414 metadata when it serves one),
 *   the client_id, the client_secret sealed (AES-256-GCM under a key derived from the sealed key
 *   store, bound to the row's id) and the registration response without its secrets.
 * - `earner_send_authorizations`: an authorization in flight, so any replica can finish it: the
 *   SHA-256 of its RFC 6749 state (the state itself travels only in the URLs), the session it is
 *   bound to (its token's hash), the PKCE verifier sealed (bound to the state), the credentials
 *   chosen, an expiry of ten minutes and `used_at`, set once (single use).
 * - `earner_send_attempts`: one row per send started in the last hour, by account and remote
 *   origin, so the caps hold on every replica.
 *
 * No tokens are stored: the access token and refresh token live only while a send runs and are
 * revoked (RFC 7009) when it ends (docs/decisions.md, issue 47 "Send to another platform").
 */
export function earnerSendMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('earner_remote_platforms')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('discovery_url', 'text', (c) => c.notNull())
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('server_metadata', 'text', (c) => c.notNull())
        .addColumn('api_base', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('client_secret_sealed', 'text')
        .addColumn('client_secret_expires_at', 'text')
        .addColumn('registration', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('earner_remote_platforms_discovery', ['account_id', 'discovery_url'])
        .execute();
      await db.schema
        .createTable('earner_send_authorizations')
        .addColumn('state_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('session_hash', 'text', (c) => c.notNull())
        .addColumn('platform_id', 'text', (c) => c.notNull())
        .addColumn('code_verifier_sealed', 'text', (c) => c.notNull())
        .addColumn('credential_ids', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema
        .createIndex('earner_send_authorizations_expiry')
        .on('earner_send_authorizations')
        .column('expires_at')
        .execute();
      await db.schema
        .createTable('earner_send_attempts')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('attempted_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('earner_send_attempts_account')
        .on('earner_send_attempts')
        .columns(['account_id', 'attempted_at'])
        .execute();
      await db.schema
        .createIndex('earner_send_attempts_origin')
        .on('earner_send_attempts')
        .columns(['origin', 'attempted_at'])
        .execute();
    },
  };
}
