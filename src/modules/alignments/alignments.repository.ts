import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { AlignmentsTable } from '../../db/schema.js';

export type AlignmentRow = Selectable<AlignmentsTable>;

export function createAlignmentRepository(db: Executor) {
  return {
    async insert(row: AlignmentRow): Promise<void> {
      await db.insertInto('alignments').values(row).execute();
    },
    /** The newest creation time of a definition's alignments, to keep creation order strict. */
    async lastCreatedAt(issuerId: string, definitionId: string): Promise<string | null> {
      const row = await db
        .selectFrom('alignments')
        .select((eb) => eb.fn.max('created_at').as('last'))
        .where('issuer_id', '=', issuerId)
        .where('definition_id', '=', definitionId)
        .executeTakeFirst();
      return row?.last ?? null;
    },
    async listByDefinition(issuerId: string, definitionId: string): Promise<AlignmentRow[]> {
      return db
        .selectFrom('alignments')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('definition_id', '=', definitionId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
  };
}
