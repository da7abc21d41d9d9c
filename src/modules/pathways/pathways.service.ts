import type { Updateable } from 'kysely';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { createWithSlug } from '../../core/slug.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { PathwaysTable } from '../../db/schema.js';
import type { AuditService } from '../audit/audit.service.js';
import type { IssuanceService } from '../credentials/issuance.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import { createPathwayRepository, type PathwayRow, type PathwayStageRow } from './pathways.repository.js';
import type {
  AddStageInput,
  CreatePathwayInput,
  Pathway,
  PathwayProgress,
  PathwayStage,
  PathwayStatus,
  UpdatePathwayInput,
} from './pathways.schemas.js';

function toPathway(row: PathwayRow): Pathway {
  return {
    id: row.id,
    issuerId: row.issuer_id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    status: row.status as PathwayStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toStage(row: PathwayStageRow): PathwayStage {
  return {
    id: row.id,
    pathwayId: row.pathway_id,
    definitionId: row.definition_id,
    stepOrder: row.step_order,
    required: row.required === 1,
  };
}

/** Pathways: an issuer's staged sets of definitions, and a recipient's progress along one. */
export function createPathwayService(
  core: Pick<Core, 'db' | 'clock' | 'ids'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    definitions: Pick<DefinitionService, 'findRow'>;
    issuance: Pick<IssuanceService, 'recipientHash'>;
  },
) {
  const repo = createPathwayRepository(core.db);

  async function requireRow(issuerId: string, id: string): Promise<PathwayRow> {
    const row = await repo.getById(issuerId, id);
    if (!row) throw errors.notFound('Pathway');
    return row;
  }

  async function completion(issuerId: string, pathwayId: string, recipientEmail: string) {
    const pathway = await requireRow(issuerId, pathwayId);
    const recipientHash = await deps.issuance.recipientHash(issuerId, recipientEmail);
    const rows = await repo.stageProgress(issuerId, pathwayId, recipientHash, isoNow(core.clock));
    const stages = rows.map((r) => ({
      stageId: r.id,
      definitionId: r.definition_id,
      stepOrder: r.step_order,
      required: r.required === 1,
      earned: r.credential_id !== null,
    }));
    const required = stages.filter((s) => s.required);
    const progress: PathwayProgress = {
      pathwayId: pathway.id,
      name: pathway.name,
      complete: stages.length > 0 && required.every((s) => s.earned),
      earnedStages: stages.filter((s) => s.earned).length,
      totalStages: stages.length,
      requiredStages: required.length,
      stages,
    };
    const earnedBy = rows.map((r) => ({ stageId: r.id, stepOrder: r.step_order, credentialId: r.credential_id }));
    return { pathway: toPathway(pathway), recipientHash, progress, earnedBy };
  }

  return {
    /**
     * A derived slug that a concurrent create took meanwhile is derived again; an explicit slug that
     * is taken is the caller's conflict (409).
     */
    async create(issuerId: string, actor: string, input: CreatePathwayInput): Promise<Pathway> {
      return createWithSlug({
        explicit: input.slug,
        name: input.name,
        taken: (base) => repo.slugsLike(issuerId, base),
        insert: async (slug) => {
          const now = isoNow(core.clock);
          const row: PathwayRow = {
            id: core.ids.uuid(),
            issuer_id: issuerId,
            slug,
            name: input.name,
            description: input.description,
            status: 'active',
            created_at: now,
            updated_at: now,
          };
          await core.db.transaction().execute(async (trx) => {
            await createPathwayRepository(trx).insert(row);
            await deps.audit.append(trx, {
              issuerId,
              actor,
              action: 'pathway.created',
              targetType: 'pathway',
              targetId: row.id,
              details: { slug },
            });
          });
          return toPathway(row);
        },
      });
    },

    async list(issuerId: string): Promise<Pathway[]> {
      return (await repo.list(issuerId)).map(toPathway);
    },

    async get(issuerId: string, id: string) {
      const row = await requireRow(issuerId, id);
      const stages = await repo.listStages(issuerId, id);
      return { ...toPathway(row), stages: stages.map(toStage) };
    },

    async update(issuerId: string, actor: string, id: string, input: UpdatePathwayInput): Promise<Pathway> {
      const existing = await requireRow(issuerId, id);
      const changes: Updateable<PathwaysTable> = { updated_at: isoNow(core.clock) };
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.status !== undefined) changes.status = input.status;
      await core.db.transaction().execute(async (trx) => {
        await createPathwayRepository(trx).update(issuerId, id, changes);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'pathway.updated',
          targetType: 'pathway',
          targetId: id,
          details: { fields: Object.keys(input).sort(), status: changes.status ?? existing.status },
        });
      });
      return toPathway({ ...existing, ...changes } as PathwayRow);
    },

    /** Pathways and definitions are never deleted, so checking both before the insert cannot race. */
    async addStage(issuerId: string, actor: string, pathwayId: string, input: AddStageInput): Promise<PathwayStage> {
      await requireRow(issuerId, pathwayId);
      const definition = await deps.definitions.findRow(issuerId, input.definitionId);
      if (!definition) throw errors.notFound('Definition');
      const row: PathwayStageRow = {
        id: core.ids.uuid(),
        issuer_id: issuerId,
        pathway_id: pathwayId,
        definition_id: definition.id,
        step_order: input.stepOrder,
        required: input.required === false ? 0 : 1,
        created_at: isoNow(core.clock),
      };
      try {
        await core.db.transaction().execute(async (trx) => {
          await createPathwayRepository(trx).insertStage(row);
          await deps.audit.append(trx, {
            issuerId,
            actor,
            action: 'pathway.stage_added',
            targetType: 'pathway',
            targetId: pathwayId,
            details: {
              stageId: row.id,
              definitionId: row.definition_id,
              stepOrder: row.step_order,
              required: row.required === 1,
            },
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw errors.stageExists();
        throw err;
      }
      return toStage(row);
    },

    async progress(issuerId: string, pathwayId: string, recipientEmail: string): Promise<PathwayProgress> {
      return (await completion(issuerId, pathwayId, recipientEmail)).progress;
    },

    /**
     * The recipient's progress with what CLR issuance needs besides: the pathway, the issuer's
     * salted hash of the address (the address itself goes no further) and, per stage in step
     * order, the latest currently valid credential that earned it.
     */
    completion,
  };
}

export type PathwayService = ReturnType<typeof createPathwayService>;
