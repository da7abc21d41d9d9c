import type { Kysely } from 'kysely';

/**
 * Endorsements an issuer of this service gives another issuer's definition (src/modules/vc): each
 * is an OB 3.0 EndorsementCredential issued and signed by the endorser with its own key, stored as
 * signed. It holds a place in the endorser's status list (`status_position`, from the same sequence
 * as the endorser's credentials in `vc_credentials`), so revoking it (`revoked_at`) flips its bit.
 */
export function endorsementCredentialsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('endorsement_credentials')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('endorser_issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('endorsed_issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('definition_id', 'text', (c) => c.notNull().references('definitions.id'))
        .addColumn('claim', 'text', (c) => c.notNull())
        .addColumn('status_position', 'integer', (c) => c.notNull())
        .addColumn('key_version', 'integer', (c) => c.notNull())
        .addColumn('credential', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addUniqueConstraint('endorsement_credentials_position', ['endorser_issuer_id', 'status_position'])
        .execute();
      await db.schema
        .createIndex('endorsement_credentials_definition')
        .on('endorsement_credentials')
        .columns(['definition_id', 'created_at'])
        .execute();
    },
  };
}
