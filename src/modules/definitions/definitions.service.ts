import type { Updateable } from 'kysely';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { createWithSlug } from '../../core/slug.js';
import type { DefinitionsTable } from '../../db/schema.js';
import type { AuditService } from '../audit/audit.service.js';
import { createDefinitionRepository, type DefinitionRow } from './definitions.repository.js';
import type { CreateDefinitionInput, Definition, UpdateDefinitionInput } from './definitions.schemas.js';

export function toDefinition(row: DefinitionRow): Definition {
  return {
    id: row.id,
    issuerId: row.issuer_id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    criteriaNarrative: row.criteria_narrative,
    criteriaUrl: row.criteria_url,
    imageUrl: row.image_url,
    tags: JSON.parse(row.tags) as string[],
    skills: JSON.parse(row.skills) as string[],
    expiresAfterDays: row.expires_after_days,
    validForMonths: row.expires_after_months,
    status: row.status as 'active' | 'archived',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A definition counts its validity in days or in months, never both (which would win is no one's guess). */
function refuseTwoValidities(input: { expiresAfterDays?: number | null; validForMonths?: number | null }): void {
  if (input.expiresAfterDays == null || input.validForMonths == null) return;
  const message = 'Give expiresAfterDays or validForMonths, not both.';
  throw errors.validation(message, [{ path: '/validForMonths', message, code: 'validity' }]);
}

/**
 * Credential definitions (Open Badges BadgeClasses) of one issuer. Creating, changing and archiving
 * one is audited with its actor in the same transaction as the change.
 */
export function createDefinitionService(
  core: Pick<Core, 'db' | 'clock' | 'ids'>,
  deps: { audit: Pick<AuditService, 'append'> },
) {
  const repo = createDefinitionRepository(core.db);

  return {
    async create(issuerId: string, actor: string, input: CreateDefinitionInput): Promise<Definition> {
      refuseTwoValidities(input);
      const now = isoNow(core.clock);
      return createWithSlug({
        explicit: input.slug,
        name: input.name,
        taken: (base) => repo.slugsLike(issuerId, base),
        insert: async (slug) => {
          const row: DefinitionRow = {
            id: core.ids.uuid(),
            issuer_id: issuerId,
            slug,
            name: input.name,
            description: input.description,
            criteria_narrative: input.criteriaNarrative ?? null,
            criteria_url: input.criteriaUrl ?? null,
            image_url: input.imageUrl ?? null,
            tags: JSON.stringify(input.tags ?? []),
            skills: JSON.stringify(input.skills ?? []),
            expires_after_days: input.expiresAfterDays ?? null,
            expires_after_months: input.validForMonths ?? null,
            status: 'active',
            created_at: now,
            updated_at: now,
          };
          // One transaction per attempt: a slug taken meanwhile aborts it, and the next slug is tried anew.
          await core.db.transaction().execute(async (trx) => {
            await createDefinitionRepository(trx).insert(row);
            await deps.audit.append(trx, {
              issuerId,
              actor,
              action: 'definition.created',
              targetType: 'definition',
              targetId: row.id,
              details: { slug },
            });
          });
          return toDefinition(row);
        },
      });
    },

    async list(issuerId: string): Promise<Definition[]> {
      return (await repo.list(issuerId)).map(toDefinition);
    },

    async get(issuerId: string, id: string): Promise<Definition> {
      const row = await repo.getById(issuerId, id);
      if (!row) throw errors.notFound('Definition');
      return toDefinition(row);
    },

    /** The stored row, for services that issue against it; undefined when missing or another issuer's. */
    async findRow(issuerId: string, id: string): Promise<DefinitionRow | undefined> {
      return repo.getById(issuerId, id);
    },

    async listRows(issuerId: string): Promise<DefinitionRow[]> {
      return repo.list(issuerId);
    },

    async listRowsByIds(issuerId: string, ids: string[]): Promise<DefinitionRow[]> {
      return repo.listByIds(issuerId, ids);
    },

    /** `definition.archived` or `definition.reactivated` when the status changes, else `definition.updated`. */
    async update(issuerId: string, actor: string, id: string, input: UpdateDefinitionInput): Promise<Definition> {
      return core.db.transaction().execute(async (trx) => {
        const definitions = createDefinitionRepository(trx);
        const existing = await definitions.getById(issuerId, id);
        if (!existing) throw errors.notFound('Definition');
        const changes: Updateable<DefinitionsTable> = { updated_at: isoNow(core.clock) };
        if (input.name !== undefined) changes.name = input.name;
        if (input.description !== undefined) changes.description = input.description;
        if (input.criteriaNarrative !== undefined) changes.criteria_narrative = input.criteriaNarrative;
        if (input.criteriaUrl !== undefined) changes.criteria_url = input.criteriaUrl;
        if (input.imageUrl !== undefined) changes.image_url = input.imageUrl;
        if (input.tags !== undefined) changes.tags = JSON.stringify(input.tags);
        if (input.skills !== undefined) changes.skills = JSON.stringify(input.skills);
        refuseTwoValidities(input);
        if (input.expiresAfterDays !== undefined) {
          changes.expires_after_days = input.expiresAfterDays;
          if (input.expiresAfterDays !== null) changes.expires_after_months = null;
        }
        if (input.validForMonths !== undefined) {
          changes.expires_after_months = input.validForMonths;
          if (input.validForMonths !== null) changes.expires_after_days = null;
        }
        if (input.status !== undefined) changes.status = input.status;
        await definitions.update(issuerId, id, changes);
        const statusChanged = input.status !== undefined && input.status !== existing.status;
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: !statusChanged
            ? 'definition.updated'
            : input.status === 'archived'
              ? 'definition.archived'
              : 'definition.reactivated',
          targetType: 'definition',
          targetId: id,
          details: { fields: Object.keys(input).sort() },
        });
        return toDefinition({ ...existing, ...changes } as DefinitionRow);
      });
    },
  };
}

export type DefinitionService = ReturnType<typeof createDefinitionService>;
