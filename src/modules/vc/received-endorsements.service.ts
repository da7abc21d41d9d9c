import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import {
  DECISIONS,
  type Decision,
  ENDORSEMENT_ACCEPTED_MAX,
  ENDORSEMENT_PENDING_MAX,
  type EndorsementStatus,
} from '../../core/endorsement-limits.js';
import { errors } from '../../core/errors.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import { forUpdate } from '../../db/dialect.js';
import type { AuditService } from '../audit/audit.service.js';
import { createReceivedEndorsementRepository, type ReceivedRow } from './received-endorsements.repository.js';

/** An endorsement as the endorsed issuer sees it (the API's ReceivedEndorsement). */
export interface ReceivedEndorsementView {
  id: string;
  endorserIssuerId: string;
  endorserName: string;
  endorserProfile: string;
  definitionId: string;
  definitionName: string;
  badgeClass: string;
  claim: string;
  status: EndorsementStatus;
  createdAt: string;
  decidedAt: string | null;
  revokedAt: string | null;
}

/**
 * Locks a definition's row (PostgreSQL) for the surrounding transaction, so that the limits of its
 * endorsements are counted and kept by one decision or gift at a time; SQLite writes one at a time.
 */
export async function lockDefinition(db: Executor, dialect: Core['dialect'], definitionId: string): Promise<void> {
  await forUpdate(dialect, db.selectFrom('definitions').select('id').where('id', '=', definitionId)).execute();
}

/**
 * Refuses a new endorsement of `definitionId` by `endorserIssuerId` (call inside the gift's
 * transaction, with the definition locked): one endorsement not revoked per endorser and
 * definition, and at most ENDORSEMENT_PENDING_MAX awaiting the endorsed issuer's decision.
 */
export async function checkNewEndorsement(db: Executor, endorserIssuerId: string, definitionId: string): Promise<void> {
  const repo = createReceivedEndorsementRepository(db);
  if (await repo.endorses(endorserIssuerId, definitionId)) throw errors.alreadyEndorsed();
  if ((await repo.count(definitionId, 'pending')) >= ENDORSEMENT_PENDING_MAX) {
    throw errors.endorsementLimit(
      `This definition already has ${ENDORSEMENT_PENDING_MAX} endorsements awaiting its issuer's decision.`,
    );
  }
}

/**
 * The endorsements other issuers gave an issuer's definitions, as that issuer sees and decides them
 * (issue 48 §4): each is pending until it accepts it, only accepted ones are embedded in the
 * credentials it signs from then on (at most ENDORSEMENT_ACCEPTED_MAX per definition), a rejected
 * one can still be accepted, and a removed one is final. Every change is audited in the endorsed
 * issuer with its actor; deciding the same thing twice changes nothing more.
 */
export function createReceivedEndorsementService(
  core: Pick<Core, 'config' | 'db' | 'dialect' | 'clock'>,
  deps: { audit: Pick<AuditService, 'append'> },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const view = (row: ReceivedRow): ReceivedEndorsementView => ({
    id: row.id,
    endorserIssuerId: row.endorser_issuer_id,
    endorserName: row.endorser_name,
    endorserProfile: urls.issuerProfile(row.endorser_slug),
    definitionId: row.definition_id,
    definitionName: row.definition_name,
    badgeClass: urls.badgeClass(row.endorsed_issuer_slug, row.definition_slug),
    claim: row.claim,
    status: row.status as EndorsementStatus,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    revokedAt: row.revoked_at,
  });

  return {
    async list(
      issuerId: string,
      filter: { status?: EndorsementStatus; definitionId?: string; limit?: number; offset?: number },
    ): Promise<ReceivedEndorsementView[]> {
      const rows = await createReceivedEndorsementRepository(core.db).list(issuerId, {
        ...filter,
        limit: filter.limit ?? 100,
        offset: filter.offset ?? 0,
      });
      return rows.map(view);
    },

    async decide(issuerId: string, actor: string, id: string, decision: Decision): Promise<ReceivedEndorsementView> {
      const status = DECISIONS[decision];
      return core.db.transaction().execute(async (trx) => {
        const repo = createReceivedEndorsementRepository(trx);
        const found = await repo.find(issuerId, id);
        if (!found) throw errors.notFound('Endorsement');
        await lockDefinition(trx, core.dialect, found.definition_id);
        const row = (await repo.find(issuerId, id)) ?? found;
        if (row.status === status) return view(row);
        if (row.status === 'removed') throw errors.endorsementFinal('A removed endorsement stays removed.');
        if (status === 'accepted') {
          if (row.revoked_at !== null) {
            throw errors.endorsementFinal('The endorser revoked this endorsement; it cannot be accepted.');
          }
          if ((await repo.count(row.definition_id, 'accepted')) >= ENDORSEMENT_ACCEPTED_MAX) {
            throw errors.endorsementLimit(
              `This definition already has ${ENDORSEMENT_ACCEPTED_MAX} accepted endorsements; reject or remove one first.`,
            );
          }
        }
        const at = isoNow(core.clock);
        await repo.decide(issuerId, id, status, at);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: `endorsement.${status}`,
          targetType: 'endorsement',
          targetId: id,
          details: { from: row.status, endorserIssuerId: row.endorser_issuer_id, definitionId: row.definition_id },
        });
        return view({ ...row, status, decided_at: at });
      });
    },
  };
}

export type ReceivedEndorsementService = ReturnType<typeof createReceivedEndorsementService>;
