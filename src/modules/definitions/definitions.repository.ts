import type { Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { DefinitionsTable } from '../../db/schema.js';

export type DefinitionRow = Selectable<DefinitionsTable>;

export function createDefinitionRepository(db: Executor) {
  return {
    async insert(row: DefinitionRow): Promise<void> {
      await db.insertInto('definitions').values(row).execute();
    },
    async getById(issuerId: string, id: string): Promise<DefinitionRow | undefined> {
      return db
        .selectFrom('definitions')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    async list(issuerId: string): Promise<DefinitionRow[]> {
      return db
        .selectFrom('definitions')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
    async listByIds(issuerId: string, ids: string[]): Promise<DefinitionRow[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('definitions')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('id', 'in', ids)
        .execute();
    },
    async slugsLike(issuerId: string, base: string): Promise<Set<string>> {
      const rows = await db
        .selectFrom('definitions')
        .select('slug')
        .where('issuer_id', '=', issuerId)
        .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
        .execute();
      return new Set(rows.map((r) => r.slug));
    },
    /** The issuer's default language: a new definition's, unless it names its own. */
    async issuerLanguage(issuerId: string): Promise<string> {
      const row = await db.selectFrom('issuers').select('language').where('id', '=', issuerId).executeTakeFirst();
      return row?.language ?? 'en';
    },
    async update(issuerId: string, id: string, changes: Updateable<DefinitionsTable>): Promise<void> {
      await db.updateTable('definitions').set(changes).where('issuer_id', '=', issuerId).where('id', '=', id).execute();
    },
  };
}
