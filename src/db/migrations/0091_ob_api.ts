import type { Kysely } from 'kysely';

/**
 * The Open Badges 3.0 API (issue 47 §2). `oauth_payloads` is the authorization server's whole
 * state (oidc-provider's models: clients, codes, tokens, sessions, grants, interactions), so every
 * replica shares it; `expires_at` is an ISO time or null for what never expires (a client).
 * `earner_api_credentials` holds what a client upserted into an earner's backpack, exactly as sent
 * (`format` json or jws), keyed by the credential's `id`. `earner_profiles` is the earner's OB 3.0
 * Profile as last PUT.
 */
export function obApiMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('oauth_payloads')
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text')
        .addColumn('grant_id', 'text')
        .addColumn('uid', 'text')
        .addColumn('user_code', 'text')
        .addColumn('expires_at', 'text')
        .addColumn('consumed_at', 'text')
        .addPrimaryKeyConstraint('oauth_payloads_pk', ['model', 'id'])
        .execute();
      await db.schema.createIndex('oauth_payloads_grant').on('oauth_payloads').column('grant_id').execute();
      await db.schema.createIndex('oauth_payloads_account').on('oauth_payloads').column('account_id').execute();
      await db.schema.createIndex('oauth_payloads_uid').on('oauth_payloads').column('uid').execute();
      await db.schema.createIndex('oauth_payloads_expiry').on('oauth_payloads').column('expires_at').execute();
      await db.schema
        .createTable('earner_api_credentials')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('credential_key', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('issued_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('earner_api_credentials_pk', ['account_id', 'credential_key'])
        .execute();
      await db.schema
        .createTable('earner_profiles')
        .addColumn('account_id', 'text', (c) => c.primaryKey())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
