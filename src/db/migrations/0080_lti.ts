import type { Kysely } from 'kysely';

/**
 * The LTI 1.3 Advantage tool (issue 43). Tool keys are the service's own (one tool per deployment of
 * Accolade), their private halves sealed under the signing keys' key-encryption key. A platform
 * belongs to one issuer; (platform issuer, client id) names it across the service, as a launch
 * names it. Deployments, placed links, the contexts a link was launched in (with the AGS line item
 * and the NRPS roster URL the launch carried) and used nonces hold ids and URLs only: no email, no
 * name.
 */
export function ltiMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('lti_tool_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('private_key_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('retired_at', 'text')
        .execute();
      await db.schema
        .createTable('lti_registration_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema
        .createTable('lti_platforms')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('platform_issuer', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('auth_login_url', 'text', (c) => c.notNull())
        .addColumn('token_url', 'text', (c) => c.notNull())
        .addColumn('jwks_uri', 'text', (c) => c.notNull())
        .addColumn('token_audience', 'text')
        .addColumn('registered_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('lti_platforms_issuer_client', ['platform_issuer', 'client_id'])
        .execute();
      await db.schema.createIndex('lti_platforms_by_issuer').on('lti_platforms').columns(['issuer_id']).execute();
      await db.schema
        .createTable('lti_deployments')
        .addColumn('platform_id', 'text', (c) => c.notNull())
        .addColumn('deployment_id', 'text', (c) => c.notNull())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('lti_deployments_pk', ['platform_id', 'deployment_id'])
        .execute();
      await db.schema
        .createTable('lti_nonces')
        .addColumn('platform_id', 'text', (c) => c.notNull())
        .addColumn('nonce', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('lti_nonces_pk', ['platform_id', 'nonce'])
        .execute();
      await db.schema.createIndex('lti_nonces_by_expiry').on('lti_nonces').columns(['expires_at']).execute();
      await db.schema
        .createTable('lti_links')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('platform_id', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('rule', 'text', (c) => c.notNull())
        .addColumn('min_score', 'real')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('lti_link_contexts')
        .addColumn('link_id', 'text', (c) => c.notNull())
        .addColumn('deployment_id', 'text', (c) => c.notNull())
        .addColumn('context_id', 'text', (c) => c.notNull())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('platform_id', 'text', (c) => c.notNull())
        .addColumn('lineitem_url', 'text')
        .addColumn('memberships_url', 'text')
        .addColumn('next_sync_at', 'text', (c) => c.notNull())
        .addColumn('last_synced_at', 'text')
        .addPrimaryKeyConstraint('lti_link_contexts_pk', ['link_id', 'deployment_id', 'context_id'])
        .execute();
      await db.schema.createIndex('lti_link_contexts_due').on('lti_link_contexts').columns(['next_sync_at']).execute();
    },
  };
}
