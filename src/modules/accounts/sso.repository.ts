import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ConsoleSsoTable } from '../../db/schema.js';

export type SsoRow = Selectable<ConsoleSsoTable>;

/** The issuers' OpenID Connect providers for console sign-in: one row per issuer. */
export function createSsoRepository(db: Executor) {
  return {
    async get(issuerId: string): Promise<SsoRow | undefined> {
      return db.selectFrom('console_sso').selectAll().where('issuer_id', '=', issuerId).executeTakeFirst();
    },
    async upsert(row: SsoRow): Promise<void> {
      const { issuer_id: _, ...changes } = row;
      await db
        .insertInto('console_sso')
        .values(row)
        .onConflict((oc) => oc.column('issuer_id').doUpdateSet(changes))
        .execute();
    },
    async remove(issuerId: string): Promise<boolean> {
      const result = await db.deleteFrom('console_sso').where('issuer_id', '=', issuerId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Ends the sessions of the issuer's console users opened with a password; how many there were. */
    async endPasswordSessions(issuerId: string): Promise<number> {
      const result = await db
        .deleteFrom('console_sessions')
        .where('method', '=', 'password')
        .where('user_id', 'in', (eb) => eb.selectFrom('console_users').select('id').where('issuer_id', '=', issuerId))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /** Which of these issuers have turned password sign-in off. */
    async passwordSignInOff(issuerIds: string[]): Promise<Set<string>> {
      if (issuerIds.length === 0) return new Set();
      const rows = await db
        .selectFrom('console_sso')
        .select('issuer_id')
        .where('issuer_id', 'in', issuerIds)
        .where('password_sign_in', '=', 0)
        .execute();
      return new Set(rows.map((row) => row.issuer_id));
    },
  };
}
