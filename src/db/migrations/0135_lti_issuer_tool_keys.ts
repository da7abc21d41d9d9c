import type { Kysely } from 'kysely';

/**
 * Each issuer may hold its own LTI tool key (issue 43: rotation by the issuer's owner). A key with no
 * issuer is the service's, which signs for every issuer that never rotated; every key, whoever holds
 * it, is published at the one JWKS URL that platforms were given, until its overlap window ends.
 */
export function ltiIssuerToolKeysMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('lti_tool_keys').addColumn('issuer_id', 'text').execute();
      await db.schema
        .createIndex('lti_tool_keys_by_issuer')
        .on('lti_tool_keys')
        .columns(['issuer_id', 'retired_at'])
        .execute();
    },
  };
}
