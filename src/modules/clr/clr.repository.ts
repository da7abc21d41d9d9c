import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import { type ClrCredentialsTable, withClr } from './clr.tables.js';

export type ClrRow = Selectable<ClrCredentialsTable>;
/** A CLR as an earner's lists show it: its signed text, its issuer's slug and its pathway's name. */
export type EarnerClrRow = Pick<ClrRow, 'id' | 'issuer_id' | 'credential' | 'valid_from' | 'valid_until'> & {
  issuer_slug: string;
  issuer_name: string;
  pathway_name: string;
};

/** The CLR module's SQL; every lookup of an issuer's data takes the issuer id first. */
export function createClrRepository(root: Kysely<DB>) {
  const db = withClr(root);
  return {
    async insert(row: ClrRow): Promise<void> {
      await db.insertInto('clr_credentials').values(row).execute();
    },

    /** The issuer's latest CLR of the pathway for the recipient, if any. */
    latestFor(issuerId: string, pathwayId: string, recipientHash: string): Promise<ClrRow | undefined> {
      return db
        .selectFrom('clr_credentials')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('recipient_hash', '=', recipientHash)
        .where('pathway_id', '=', pathwayId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirst();
    },

    /** One CLR of the issuer whose slug is `issuerSlug` (the public URL names both). */
    bySlug(issuerSlug: string, id: string): Promise<Pick<ClrRow, 'credential'> | undefined> {
      return db
        .selectFrom('clr_credentials as k')
        .innerJoin('issuers as i', 'i.id', 'k.issuer_id')
        .select('k.credential')
        .where('i.slug', '=', issuerSlug)
        .where('k.id', '=', id)
        .executeTakeFirst();
    },

    /**
     * The CLRs of an earner account, oldest first: those of an issuer and recipient hash that one of
     * the account's linked credentials carries (the link the backpack made with the earner present).
     * Issued after `since` when given.
     */
    forAccount(accountId: string, since: string | null = null): Promise<EarnerClrRow[]> {
      const recipients = db
        .selectFrom('earner_credentials as e')
        .innerJoin('credentials as c', 'c.id', 'e.credential_id')
        .select(['c.issuer_id', 'c.recipient_hash'])
        .distinct()
        .where('e.account_id', '=', accountId)
        .as('r');
      let query = db
        .selectFrom(recipients)
        .innerJoin('clr_credentials as k', (join) =>
          join.onRef('k.issuer_id', '=', 'r.issuer_id').onRef('k.recipient_hash', '=', 'r.recipient_hash'),
        )
        .innerJoin('issuers as i', 'i.id', 'k.issuer_id')
        .innerJoin('pathways as p', (join) =>
          join.onRef('p.id', '=', 'k.pathway_id').onRef('p.issuer_id', '=', 'k.issuer_id'),
        )
        .select([
          'k.id',
          'k.issuer_id',
          'k.credential',
          'k.valid_from',
          'k.valid_until',
          'i.slug as issuer_slug',
          'i.name as issuer_name',
          'p.name as pathway_name',
        ]);
      if (since !== null) query = query.where('k.valid_from', '>', since);
      return query.orderBy('k.valid_from').orderBy('k.id').execute();
    },
  };
}
