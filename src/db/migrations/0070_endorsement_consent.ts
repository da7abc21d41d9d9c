import type { Kysely } from 'kysely';

/**
 * Endorsements given with a key need the endorsed issuer's consent (issue 48 §4, design.md
 * "Added 2026-12-01"): `status` is `pending` until the endorsed issuer accepts (`accepted`), rejects
 * (`rejected`) or removes (`removed`, final) it, and `decided_at` says when it last did. Only
 * accepted ones are embedded in its signed credentials.
 *
 * The endorsements given before this migration become `pending` (docs/decisions.md, "Endorsements
 * need the endorsed issuer's consent"): none of them was agreed to, and the attack that made this
 * necessary put hundreds of them in other issuers' credentials. Credentials already signed keep
 * their bytes.
 *
 * Signing reads a definition's accepted endorsements (`definition_id, status, created_at`); the
 * endorsed issuer lists what it received (`endorsed_issuer_id, created_at`).
 */
export function endorsementConsentMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('endorsement_credentials')
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
        .execute();
      await db.schema.alterTable('endorsement_credentials').addColumn('decided_at', 'text').execute();
      await db.schema.dropIndex('endorsement_credentials_definition').execute();
      await db.schema
        .createIndex('endorsement_credentials_definition_status')
        .on('endorsement_credentials')
        .columns(['definition_id', 'status', 'created_at'])
        .execute();
      await db.schema
        .createIndex('endorsement_credentials_endorsed')
        .on('endorsement_credentials')
        .columns(['endorsed_issuer_id', 'created_at'])
        .execute();
    },
  };
}
