import type { EndorsementStatus } from '../../core/endorsement-limits.js';
import type { Executor } from '../../db/database.js';
import type { EndorsementCredentialRow } from './vc.repository.js';

/** An endorsement an issuer received, with the endorser's and the definition's names and slugs. */
export type ReceivedRow = Omit<EndorsementCredentialRow, 'credential'> & {
  endorser_name: string;
  endorser_slug: string;
  endorsed_issuer_slug: string;
  definition_name: string;
  definition_slug: string;
};

/**
 * The endorsements given to an issuer's definitions, as the endorsed issuer reads and decides them.
 * Every lookup takes the endorsed issuer first: another issuer's endorsement is not found.
 */
export function createReceivedEndorsementRepository(db: Executor) {
  const received = (endorsedIssuerId: string) =>
    db
      .selectFrom('endorsement_credentials as e')
      .innerJoin('issuers as endorser', 'endorser.id', 'e.endorser_issuer_id')
      .innerJoin('issuers as endorsed', 'endorsed.id', 'e.endorsed_issuer_id')
      .innerJoin('definitions as d', 'd.id', 'e.definition_id')
      .select([
        'e.id',
        'e.endorser_issuer_id',
        'e.endorsed_issuer_id',
        'e.definition_id',
        'e.claim',
        'e.status_position',
        'e.key_version',
        'e.created_at',
        'e.revoked_at',
        'e.status',
        'e.decided_at',
        'endorser.name as endorser_name',
        'endorser.slug as endorser_slug',
        'endorsed.slug as endorsed_issuer_slug',
        'd.name as definition_name',
        'd.slug as definition_slug',
      ])
      .where('e.endorsed_issuer_id', '=', endorsedIssuerId);

  return {
    async list(
      endorsedIssuerId: string,
      filter: { status?: EndorsementStatus; definitionId?: string; limit: number; offset: number },
    ): Promise<ReceivedRow[]> {
      let query = received(endorsedIssuerId);
      if (filter.status) query = query.where('e.status', '=', filter.status);
      if (filter.definitionId) query = query.where('e.definition_id', '=', filter.definitionId);
      return query.orderBy('e.created_at').orderBy('e.id').limit(filter.limit).offset(filter.offset).execute();
    },
    async find(endorsedIssuerId: string, id: string): Promise<ReceivedRow | undefined> {
      return received(endorsedIssuerId).where('e.id', '=', id).executeTakeFirst();
    },
    async decide(endorsedIssuerId: string, id: string, status: EndorsementStatus, at: string): Promise<void> {
      await db
        .updateTable('endorsement_credentials')
        .set({ status, decided_at: at })
        .where('endorsed_issuer_id', '=', endorsedIssuerId)
        .where('id', '=', id)
        .execute();
    },
    /** How many of a definition's endorsements not revoked have this status. */
    async count(definitionId: string, status: EndorsementStatus): Promise<number> {
      const row = await db
        .selectFrom('endorsement_credentials')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('definition_id', '=', definitionId)
        .where('status', '=', status)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /** Whether the endorser holds an endorsement of the definition that it has not revoked. */
    async endorses(endorserIssuerId: string, definitionId: string): Promise<boolean> {
      const row = await db
        .selectFrom('endorsement_credentials')
        .select('id')
        .where('endorser_issuer_id', '=', endorserIssuerId)
        .where('definition_id', '=', definitionId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
