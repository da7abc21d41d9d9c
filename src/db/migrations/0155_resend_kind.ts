import type { Kysely } from 'kysely';

/**
 * Which message a resend repeated (issue 46: a resend is no longer always the award): `award`,
 * `renewal`, `reissue`, `correction` or `reminder`, so a subject access request's history names a
 * resent reminder as a reminder. Rows from before this migration hold null: they were awards.
 */
export function resendKindMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('credential_resends').addColumn('kind', 'text').execute();
    },
  };
}
