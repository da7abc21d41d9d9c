import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { EndorsementsTable } from '../../db/schema.js';
import type { EndorsementTargetType } from './endorsements.schemas.js';

export type EndorsementRow = Selectable<EndorsementsTable>;

export function createEndorsementRepository(db: Executor) {
  return {
    async insert(row: EndorsementRow): Promise<void> {
      await db.insertInto('endorsements').values(row).execute();
    },
    async getById(issuerId: string, id: string): Promise<EndorsementRow | undefined> {
      return db
        .selectFrom('endorsements')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    /** The newest creation time of a target's endorsements, to keep creation order strict. */
    async lastCreatedAt(issuerId: string, targetType: EndorsementTargetType, targetId: string): Promise<string | null> {
      const row = await db
        .selectFrom('endorsements')
        .select((eb) => eb.fn.max('created_at').as('last'))
        .where('issuer_id', '=', issuerId)
        .where('target_type', '=', targetType)
        .where('target_id', '=', targetId)
        .executeTakeFirst();
      return row?.last ?? null;
    },
    async listByTarget(
      issuerId: string,
      targetType: EndorsementTargetType,
      targetId: string,
    ): Promise<EndorsementRow[]> {
      return db
        .selectFrom('endorsements')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('target_type', '=', targetType)
        .where('target_id', '=', targetId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
  };
}
