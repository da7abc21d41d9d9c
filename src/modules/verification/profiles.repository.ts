import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ProfilesTable } from '../../db/schema.js';

export type ProfileRow = Selectable<ProfilesTable>;

/** Earner profiles: an unguessable public handle on one recipient's credentials at one issuer. */
export function createProfileRepository(db: Executor) {
  return {
    async insert(row: ProfileRow): Promise<void> {
      await db.insertInto('profiles').values(row).execute();
    },
    async findForRecipient(issuerId: string, recipientHash: string): Promise<ProfileRow | undefined> {
      return db
        .selectFrom('profiles')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('recipient_hash', '=', recipientHash)
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
    },
    async delete(issuerId: string, id: string): Promise<number> {
      const result = await db
        .deleteFrom('profiles')
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async deleteForRecipient(issuerId: string, recipientHash: string): Promise<number> {
      const result = await db
        .deleteFrom('profiles')
        .where('issuer_id', '=', issuerId)
        .where('recipient_hash', '=', recipientHash)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /**
     * The public read of a profile: by its unguessable id alone, since whoever holds the link may
     * see it. Everything it shows is then read within the profile's own issuer.
     */
    async findPublic(id: string): Promise<ProfileRow | undefined> {
      return db.selectFrom('profiles').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** The recipient's non-revoked credentials at the issuer, newest first, with what their URLs need. */
    async listedCredentials(issuerId: string, recipientHash: string, limit: number) {
      return db
        .selectFrom('credentials')
        .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
        .select(['credentials.id', 'credentials.display_name', 'issuers.slug as issuer_slug'])
        .where('credentials.issuer_id', '=', issuerId)
        .where('credentials.recipient_hash', '=', recipientHash)
        .where('credentials.revoked_at', 'is', null)
        .orderBy('credentials.issued_on', 'desc')
        .orderBy('credentials.id', 'desc')
        .limit(limit)
        .execute();
    },
  };
}
