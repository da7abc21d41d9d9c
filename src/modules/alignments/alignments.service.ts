import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import { type AlignmentRow, createAlignmentRepository } from './alignments.repository.js';
import type { Alignment, CreateAlignmentInput } from './alignments.schemas.js';

export function toAlignment(row: AlignmentRow): Alignment {
  return {
    id: row.id,
    issuerId: row.issuer_id,
    definitionId: row.definition_id,
    targetName: row.target_name,
    targetUrl: row.target_url,
    targetFramework: row.target_framework,
    targetCode: row.target_code,
    targetDescription: row.target_description,
    targetType: row.target_type,
    createdAt: row.created_at,
  };
}

/** Framework alignments of an issuer's definitions; they appear in the BadgeClass `alignment` array. */
export function createAlignmentService(
  core: Pick<Core, 'db' | 'clock' | 'ids'>,
  deps: { definitions: Pick<DefinitionService, 'findRow'>; audit: Pick<AuditService, 'append'> },
) {
  const repo = createAlignmentRepository(core.db);

  return {
    async create(issuerId: string, actor: string, definitionId: string, input: CreateAlignmentInput) {
      const definition = await deps.definitions.findRow(issuerId, definitionId);
      if (!definition) throw errors.notFound('Definition');
      const row = await core.db.transaction().execute(async (trx) => {
        const txRepo = createAlignmentRepository(trx);
        const now = isoNow(core.clock);
        const last = await txRepo.lastCreatedAt(issuerId, definition.id);
        // Lists are in creation order; two alignments made within one millisecond must not tie.
        const createdAt = last !== null && last >= now ? new Date(Date.parse(last) + 1).toISOString() : now;
        const created: AlignmentRow = {
          id: core.ids.uuid(),
          issuer_id: issuerId,
          definition_id: definition.id,
          target_name: input.targetName,
          target_url: input.targetUrl,
          target_framework: input.targetFramework ?? null,
          target_code: input.targetCode ?? null,
          target_description: input.targetDescription ?? null,
          target_type: input.targetType ?? null,
          created_at: createdAt,
        };
        await txRepo.insert(created);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'alignment.created',
          targetType: 'alignment',
          targetId: created.id,
          details: { definitionId: definition.id },
        });
        return created;
      });
      return toAlignment(row);
    },

    /** In creation order; an unknown or foreign definition simply has none. */
    async list(issuerId: string, definitionId: string): Promise<Alignment[]> {
      return (await repo.listByDefinition(issuerId, definitionId)).map(toAlignment);
    },

    async listRows(issuerId: string, definitionId: string): Promise<AlignmentRow[]> {
      return repo.listByDefinition(issuerId, definitionId);
    },
  };
}

export type AlignmentService = ReturnType<typeof createAlignmentService>;
