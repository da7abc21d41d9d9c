import type { Kysely } from 'kysely';

/**
 * Open Badges 3.0 endorsements (src/modules/vc): each recorded endorsement as the
 * EndorsementCredential its issuer signed on the endorser's claim, signed the first time an
 * Achievement carrying it is signed and stored, so it is signed once. Endorsements never change
 * once recorded, so neither does their signed form.
 */
export function vcEndorsementsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('vc_endorsements')
        .addColumn('endorsement_id', 'text', (c) => c.primaryKey().references('endorsements.id'))
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('key_version', 'integer', (c) => c.notNull())
        .addColumn('credential', 'text', (c) => c.notNull())
        .addColumn('signed_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
