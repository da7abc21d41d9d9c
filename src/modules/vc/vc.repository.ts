import { ENDORSEMENT_ACCEPTED_MAX } from '../../core/endorsement-limits.js';
import { credentialsByIds } from '../../db/credential-reads.js';
import type { Dialect, Executor } from '../../db/database.js';
import type { EndorsementCredentialsTable, VcCredentialsTable, VcStatusListsTable } from '../../db/schema.js';

export type VcCredentialRow = VcCredentialsTable;
export type StatusListRow = VcStatusListsTable;
export type EndorsementCredentialRow = EndorsementCredentialsTable;

/** A credential with its issuer and its stored signed form (null until the first fetch signs it). */
export interface SignedRow {
  id: string;
  issuer_id: string;
  issuer_slug: string;
  definition_id: string;
  data_integrity: string | null;
}

/**
 * Credentials with their issuer and stored signed forms (null until signed) by credential id,
 * set-based as the other public reads by id are (`credentialsByIds`: prepared, and concurrent
 * fetches go together).
 */
export function signedByIds(db: Executor, dialect: Dialect) {
  return credentialsByIds<SignedRow>(db, dialect, () =>
    db
      .selectFrom('credentials')
      .innerJoin('issuers', 'issuers.id', 'credentials.issuer_id')
      .innerJoin('definitions', 'definitions.id', 'credentials.definition_id')
      .select((eb) => [
        'credentials.id as id',
        'issuers.id as issuer_id',
        'issuers.slug as issuer_slug',
        'credentials.definition_id as definition_id',
        eb
          .selectFrom('vc_credentials')
          .select('vc_credentials.data_integrity')
          .whereRef('vc_credentials.credential_id', '=', 'credentials.id')
          .as('data_integrity'),
      ]),
  );
}

export function createVcRepository(db: Executor) {
  return {
    async find(issuerId: string, credentialId: string): Promise<VcCredentialRow | undefined> {
      return db
        .selectFrom('vc_credentials')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
    },
    /**
     * The next free status position of the issuer (call with the issuer's allocation lock held):
     * its credentials and the endorsements it signed share one sequence.
     */
    async nextPosition(issuerId: string): Promise<number> {
      const [credentials, endorsements] = await Promise.all([
        db
          .selectFrom('vc_credentials')
          .select((eb) => eb.fn.max('status_position').as('last'))
          .where('issuer_id', '=', issuerId)
          .executeTakeFirst(),
        db
          .selectFrom('endorsement_credentials')
          .select((eb) => eb.fn.max('status_position').as('last'))
          .where('endorser_issuer_id', '=', issuerId)
          .executeTakeFirst(),
      ]);
      const last = [credentials?.last, endorsements?.last].filter((n) => n !== null && n !== undefined).map(Number);
      return last.length === 0 ? 0 : Math.max(...last) + 1;
    },
    async insertPosition(issuerId: string, credentialId: string, position: number): Promise<void> {
      await db
        .insertInto('vc_credentials')
        .values({
          credential_id: credentialId,
          issuer_id: issuerId,
          status_position: position,
          key_version: null,
          data_integrity: null,
          jwt: null,
          signed_at: null,
        })
        .onConflict((oc) => oc.column('credential_id').doNothing())
        .execute();
    },
    /** Stores the signed forms unless another request stored its own first (both are valid; the first stays). */
    async storeSigned(
      issuerId: string,
      credentialId: string,
      signed: { keyVersion: number; dataIntegrity: string; signedAt: string },
    ): Promise<void> {
      await db
        .updateTable('vc_credentials')
        .set({
          key_version: signed.keyVersion,
          data_integrity: signed.dataIntegrity,
          signed_at: signed.signedAt,
        })
        .where('issuer_id', '=', issuerId)
        .where('credential_id', '=', credentialId)
        .where('data_integrity', 'is', null)
        .execute();
    },
    /**
     * Positions in [from, to) whose credential is revoked (revocation, GDPR erasure and reissue all
     * revoke), or whose endorsement the issuer signed and revoked.
     */
    async revokedPositions(issuerId: string, from: number, to: number): Promise<number[]> {
      const endorsements = await db
        .selectFrom('endorsement_credentials')
        .select('status_position')
        .where('endorser_issuer_id', '=', issuerId)
        .where('status_position', '>=', from)
        .where('status_position', '<', to)
        .where('revoked_at', 'is not', null)
        .execute();
      const rows = await db
        .selectFrom('vc_credentials')
        .innerJoin('credentials', 'credentials.id', 'vc_credentials.credential_id')
        .select('vc_credentials.status_position')
        .where('vc_credentials.issuer_id', '=', issuerId)
        .where('vc_credentials.status_position', '>=', from)
        .where('vc_credentials.status_position', '<', to)
        .where('credentials.revoked_at', 'is not', null)
        .orderBy('vc_credentials.status_position')
        .execute();
      return [...rows, ...endorsements].map((r) => r.status_position).sort((x, y) => x - y);
    },
    async definitionBySlug(issuerId: string, slug: string) {
      return db
        .selectFrom('definitions')
        .select(['id', 'slug', 'name'])
        .where('issuer_id', '=', issuerId)
        .where('slug', '=', slug)
        .executeTakeFirst();
    },
    async insertEndorsementCredential(row: EndorsementCredentialRow): Promise<void> {
      await db.insertInto('endorsement_credentials').values(row).execute();
    },
    /** The endorsements the issuer signed, oldest first. */
    async endorsementsBy(endorserIssuerId: string): Promise<EndorsementCredentialRow[]> {
      return db
        .selectFrom('endorsement_credentials')
        .selectAll()
        .where('endorser_issuer_id', '=', endorserIssuerId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
    async endorsementBy(endorserIssuerId: string, id: string): Promise<EndorsementCredentialRow | undefined> {
      return db
        .selectFrom('endorsement_credentials')
        .selectAll()
        .where('endorser_issuer_id', '=', endorserIssuerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    async revokeEndorsement(endorserIssuerId: string, id: string, at: string): Promise<void> {
      await db
        .updateTable('endorsement_credentials')
        .set({ revoked_at: at })
        .where('endorser_issuer_id', '=', endorserIssuerId)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute();
    },
    /**
     * A definition's endorsements that its issuer accepted and their endorsers did not revoke, as
     * signed, in the order they were given: at most ENDORSEMENT_ACCEPTED_MAX (accepting more is
     * refused; the limit here holds whatever rows exist), and pending or rejected ones are not read,
     * so signing a credential costs the same however many others were given.
     */
    async activeEndorsementsOf(definitionId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('endorsement_credentials')
        .select('credential')
        .where('definition_id', '=', definitionId)
        .where('status', '=', 'accepted')
        .where('revoked_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .limit(ENDORSEMENT_ACCEPTED_MAX)
        .execute();
      return rows.map((r) => r.credential);
    },
    async findStatusList(issuerId: string, list: number): Promise<StatusListRow | undefined> {
      return db
        .selectFrom('vc_status_lists')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('list', '=', list)
        .executeTakeFirst();
    },
    async saveStatusList(row: StatusListRow): Promise<void> {
      await db
        .insertInto('vc_status_lists')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['issuer_id', 'list']).doUpdateSet({
            revoked_digest: row.revoked_digest,
            credential: row.credential,
            signed_at: row.signed_at,
          }),
        )
        .execute();
    },
  };
}
