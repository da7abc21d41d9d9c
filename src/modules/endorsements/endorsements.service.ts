import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import { createEndorsementRepository, type EndorsementRow } from './endorsements.repository.js';
import type { CreateEndorsementInput, Endorsement, EndorsementTargetType } from './endorsements.schemas.js';

export function toEndorsement(row: EndorsementRow): Endorsement {
  return {
    id: row.id,
    issuerId: row.issuer_id,
    targetType: row.target_type as EndorsementTargetType,
    targetId: row.target_id,
    endorserName: row.endorser_name,
    endorserUrl: row.endorser_url,
    claim: row.claim,
    createdAt: row.created_at,
    signed: false,
  };
}

/**
 * Endorsements of an issuer's definitions and credentials. Each is public: hosted as an Open Badges
 * Endorsement and listed in the endorsed BadgeClass or Assertion.
 */
export function createEndorsementService(
  core: Pick<Core, 'db' | 'clock' | 'ids'>,
  deps: {
    definitions: Pick<DefinitionService, 'findRow'>;
    credentials: Pick<CredentialService, 'findRow'>;
    audit: Pick<AuditService, 'append'>;
  },
) {
  const repo = createEndorsementRepository(core.db);

  async function requireTarget(issuerId: string, targetType: EndorsementTargetType, targetId: string) {
    const found =
      targetType === 'definition'
        ? await deps.definitions.findRow(issuerId, targetId)
        : await deps.credentials.findRow(issuerId, targetId);
    if (!found) throw errors.notFound(targetType === 'definition' ? 'Definition' : 'Credential');
    return found.id;
  }

  return {
    async create(
      issuerId: string,
      actor: string,
      targetType: EndorsementTargetType,
      targetId: string,
      input: CreateEndorsementInput,
    ): Promise<Endorsement> {
      const target = await requireTarget(issuerId, targetType, targetId);
      const row = await core.db.transaction().execute(async (trx) => {
        const txRepo = createEndorsementRepository(trx);
        const now = isoNow(core.clock);
        const last = await txRepo.lastCreatedAt(issuerId, targetType, target);
        // Lists are in creation order; two endorsements made within one millisecond must not tie.
        const createdAt = last !== null && last >= now ? new Date(Date.parse(last) + 1).toISOString() : now;
        const created: EndorsementRow = {
          id: core.ids.uuid(),
          issuer_id: issuerId,
          target_type: targetType,
          target_id: target,
          endorser_name: input.endorserName,
          endorser_url: input.endorserUrl ?? null,
          claim: input.claim,
          created_at: createdAt,
        };
        await txRepo.insert(created);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'endorsement.created',
          targetType: 'endorsement',
          targetId: created.id,
          details: { endorsedType: targetType, endorsedId: target },
        });
        return created;
      });
      return toEndorsement(row);
    },

    /** In creation order; an unknown or foreign target simply has none. */
    async list(issuerId: string, targetType: EndorsementTargetType, targetId: string): Promise<Endorsement[]> {
      return (await repo.listByTarget(issuerId, targetType, targetId)).map(toEndorsement);
    },

    /** A target's endorsement rows in creation order, for the signed Open Badges 3.0 forms. */
    async listRows(issuerId: string, targetType: EndorsementTargetType, targetId: string): Promise<EndorsementRow[]> {
      return repo.listByTarget(issuerId, targetType, targetId);
    },

    async findRow(issuerId: string, id: string): Promise<EndorsementRow | undefined> {
      return repo.getById(issuerId, id);
    },
  };
}

export type EndorsementService = ReturnType<typeof createEndorsementService>;
