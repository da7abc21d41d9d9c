import type { Executor } from '../../db/database.js';

/** Reads only the human page needs, beyond the verification read model. */
export function createPageRepository(db: Executor) {
  return {
    /** The newest credential that reissued `credentialId` at the issuer, if any. */
    async replacementOf(issuerId: string, credentialId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('credentials')
        .select('id')
        .where('issuer_id', '=', issuerId)
        .where('reissued_from', '=', credentialId)
        .orderBy('issued_on', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.id;
    },
  };
}
