import type { Executor } from '../../db/database.js';
import type { CredentialWithSlugs } from '../credentials/credentials.repository.js';

/** A credential as a subject access request shows it: with its badge's name and description. */
export type ExportedCredentialRow = CredentialWithSlugs & { definition_name: string; definition_description: string };

/** A recipient's rows at one issuer, found by the salted hash (the only form the email has here). */
export function createGdprRepository(db: Executor) {
  return {
    async credentialsOf(issuerId: string, recipientHash: string): Promise<CredentialWithSlugs[]> {
      return db
        .selectFrom('credentials')
        .innerJoin('definitions', 'definitions.id', 'credentials.definition_id')
        .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
        .selectAll('credentials')
        .select(['issuers.slug as issuer_slug', 'definitions.slug as definition_slug'])
        .where('credentials.issuer_id', '=', issuerId)
        .where('credentials.recipient_hash', '=', recipientHash)
        .orderBy('credentials.created_at')
        .orderBy('credentials.id')
        .execute();
    },
    async exportRowsOf(issuerId: string, recipientHash: string): Promise<ExportedCredentialRow[]> {
      return db
        .selectFrom('credentials')
        .innerJoin('definitions', 'definitions.id', 'credentials.definition_id')
        .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
        .selectAll('credentials')
        .select([
          'issuers.slug as issuer_slug',
          'definitions.slug as definition_slug',
          'definitions.name as definition_name',
          'definitions.description as definition_description',
        ])
        .where('credentials.issuer_id', '=', issuerId)
        .where('credentials.recipient_hash', '=', recipientHash)
        .orderBy('credentials.created_at')
        .orderBy('credentials.id')
        .execute();
    },
    /** Revokes every credential not yet revoked; the ids this statement revoked, in no set order. */
    async revokeActive(issuerId: string, recipientHash: string, at: string, reason: string): Promise<string[]> {
      const rows = await db
        .updateTable('credentials')
        .set({ revoked_at: at, revoked_reason: reason })
        .where('issuer_id', '=', issuerId)
        .where('recipient_hash', '=', recipientHash)
        .where('revoked_at', 'is', null)
        .returning('id')
        .execute();
      return rows.map((r) => r.id);
    },
    /** Earner profiles are deleted through the profile service; export only needs to know they exist. */
    async profileCount(issuerId: string, recipientHash: string): Promise<number> {
      const row = await db
        .selectFrom('profiles')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('issuer_id', '=', issuerId)
        .where('recipient_hash', '=', recipientHash)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Replaces one credential's completion key (an erasure's scrub of a key holding an email). */
    async replaceCompletionKey(issuerId: string, id: string, completionKey: string): Promise<void> {
      await db
        .updateTable('credentials')
        .set({ completion_key: completionKey })
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .execute();
    },
    async clearDisplayNames(issuerId: string, recipientHash: string): Promise<void> {
      await db
        .updateTable('credentials')
        .set({ display_name: null })
        .where('issuer_id', '=', issuerId)
        .where('recipient_hash', '=', recipientHash)
        .where('display_name', 'is not', null)
        .execute();
    },
  };
}
