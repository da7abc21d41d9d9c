import type { Executor } from '../../db/database.js';
import type { CredentialWithSlugs } from './credentials.repository.js';

/** Recipient hashes per query: far below either engine's bound-parameter limit. */
const HASHES_PER_QUERY = 500;

export interface HeldCredential {
  id: string;
  completionKey: string;
}

/** The key a person's credential of a definition is found under. */
export const heldKey = (definitionId: string, recipientHash: string) => `${definitionId}:${recipientHash}`;

/**
 * Valid credentials (not revoked, not expired at `now`) the recipients already hold, whatever key
 * or channel issued them: what a completion without its own key must not duplicate (design.md §4
 * CSV import). Read-only; ingest reaches it through the issuance service.
 */
export function createHeldCredentialRepository(db: Executor) {
  const valid = (now: string) =>
    db
      .selectFrom('credentials')
      .where('credentials.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('credentials.expires_on', 'is', null), eb('credentials.expires_on', '>', now)]));

  return {
    /**
     * The oldest valid credential per (definition, recipient) pair asked for, keyed by heldKey.
     * `between` runs between queries (a yield to the event loop on large imports).
     */
    async held(
      issuerId: string,
      pairs: { definitionId: string; recipientHash: string }[],
      now: string,
      between: () => Promise<void>,
    ): Promise<Map<string, HeldCredential>> {
      const wanted = new Set(pairs.map((pair) => heldKey(pair.definitionId, pair.recipientHash)));
      const hashes = [...new Set(pairs.map((pair) => pair.recipientHash))];
      const definitionIds = [...new Set(pairs.map((pair) => pair.definitionId))];
      const found = new Map<string, HeldCredential>();
      for (let start = 0; start < hashes.length; start += HASHES_PER_QUERY) {
        if (start > 0) await between();
        const rows = await valid(now)
          .select(['id', 'definition_id', 'recipient_hash', 'completion_key'])
          .where('credentials.issuer_id', '=', issuerId)
          .where('credentials.definition_id', 'in', definitionIds)
          .where('credentials.recipient_hash', 'in', hashes.slice(start, start + HASHES_PER_QUERY))
          .orderBy('credentials.created_at')
          .orderBy('credentials.id')
          .execute();
        for (const row of rows) {
          const key = heldKey(row.definition_id, row.recipient_hash);
          if (wanted.has(key) && !found.has(key)) found.set(key, { id: row.id, completionKey: row.completion_key });
        }
      }
      return found;
    },

    /** The oldest valid credential of one definition the recipient holds, with its URL slugs. */
    async heldOne(
      issuerId: string,
      definitionId: string,
      recipientHash: string,
      now: string,
    ): Promise<CredentialWithSlugs | undefined> {
      return valid(now)
        .innerJoin('definitions', 'definitions.id', 'credentials.definition_id')
        .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
        .selectAll('credentials')
        .select(['issuers.slug as issuer_slug', 'definitions.slug as definition_slug'])
        .where('credentials.issuer_id', '=', issuerId)
        .where('credentials.definition_id', '=', definitionId)
        .where('credentials.recipient_hash', '=', recipientHash)
        .orderBy('credentials.created_at')
        .orderBy('credentials.id')
        .limit(1)
        .executeTakeFirst();
    },
  };
}
