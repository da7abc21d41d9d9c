import type { Kysely } from 'kysely';

/**
 * A pathway's distinct recipients over a million credentials, from a summary rather than a count
 * of 300,000 hashes per request (issue 25). `report_pathway_recipients` holds each recipient of a
 * credential of the pathway's stage definitions created before `rolled_before` (the end of the last
 * rolled-up day), and `report_pathway_rollups` what that set stands for: the stage definitions it
 * was built for, that bound, and its size. A credential's definition, recipient and creation time
 * never change and credentials are not deleted, so the set only grows, by each newly closed day; a
 * change of the stage definitions rebuilds it. Answers add the recipients of the credentials
 * created since `rolled_before` that are not in the set.
 */
export function pathwayRecipientsRollupMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('report_pathway_rollups')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('pathway_id', 'text', (c) => c.notNull())
        .addColumn('definitions', 'text', (c) => c.notNull())
        .addColumn('rolled_before', 'text', (c) => c.notNull())
        .addColumn('recipients', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_pathway_rollups_pk', ['issuer_id', 'pathway_id'])
        .execute();
      await db.schema
        .createTable('report_pathway_recipients')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('pathway_id', 'text', (c) => c.notNull())
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_pathway_recipients_pk', ['issuer_id', 'pathway_id', 'recipient_hash'])
        .execute();
    },
  };
}
