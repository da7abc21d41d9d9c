import type { ExpressionBuilder, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { DB, PathwayStagesTable, PathwaysTable } from '../../db/schema.js';
import { statusCondition } from '../credentials/credentials.repository.js';

export type PathwayRow = Selectable<PathwaysTable>;
export type PathwayStageRow = Selectable<PathwayStagesTable>;
export type StageProgressRow = Pick<PathwayStageRow, 'id' | 'definition_id' | 'step_order' | 'required'> & {
  /** The recipient's latest currently valid credential of the stage's definition; null when none. */
  credential_id: string | null;
};

export function createPathwayRepository(db: Executor) {
  return {
    async insert(row: PathwayRow): Promise<void> {
      await db.insertInto('pathways').values(row).execute();
    },
    async getById(issuerId: string, id: string): Promise<PathwayRow | undefined> {
      return db
        .selectFrom('pathways')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    async list(issuerId: string): Promise<PathwayRow[]> {
      return db
        .selectFrom('pathways')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
    async slugsLike(issuerId: string, base: string): Promise<Set<string>> {
      const rows = await db
        .selectFrom('pathways')
        .select('slug')
        .where('issuer_id', '=', issuerId)
        .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
        .execute();
      return new Set(rows.map((r) => r.slug));
    },
    async update(issuerId: string, id: string, changes: Updateable<PathwaysTable>): Promise<void> {
      await db.updateTable('pathways').set(changes).where('issuer_id', '=', issuerId).where('id', '=', id).execute();
    },
    async insertStage(row: PathwayStageRow): Promise<void> {
      await db.insertInto('pathway_stages').values(row).execute();
    },
    /** Stages in step order; stages sharing a step keep the order they were added in. */
    async listStages(issuerId: string, pathwayId: string): Promise<PathwayStageRow[]> {
      return db
        .selectFrom('pathway_stages')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('pathway_id', '=', pathwayId)
        .orderBy('step_order')
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
    /**
     * Every stage with the recipient's latest credential of its definition that is valid at `now`
     * (not revoked, not expired), if any, in one statement over the (issuer, recipient) index.
     */
    async stageProgress(
      issuerId: string,
      pathwayId: string,
      recipientHash: string,
      now: string,
    ): Promise<StageProgressRow[]> {
      return db
        .selectFrom('pathway_stages')
        .select([
          'pathway_stages.id',
          'pathway_stages.definition_id',
          'pathway_stages.step_order',
          'pathway_stages.required',
        ])
        .select((eb) =>
          eb
            .selectFrom('credentials')
            .select('credentials.id')
            .where('credentials.issuer_id', '=', issuerId)
            .where('credentials.recipient_hash', '=', recipientHash)
            .whereRef('credentials.definition_id', '=', 'pathway_stages.definition_id')
            .where((c) => statusCondition(c as unknown as ExpressionBuilder<DB, 'credentials'>, 'valid', now))
            .orderBy('credentials.issued_on', 'desc')
            .orderBy('credentials.id')
            .limit(1)
            .as('credential_id'),
        )
        .where('pathway_stages.issuer_id', '=', issuerId)
        .where('pathway_stages.pathway_id', '=', pathwayId)
        .orderBy('pathway_stages.step_order')
        .orderBy('pathway_stages.created_at')
        .orderBy('pathway_stages.id')
        .execute();
    },
  };
}
