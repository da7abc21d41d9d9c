import type { Updateable } from 'kysely';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { requireLanguage } from '../../core/language.js';
import { createWithSlug } from '../../core/slug.js';
import type { Executor } from '../../db/database.js';
import type { DefinitionsTable } from '../../db/schema.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  certificateWordingIssues,
  createTranslationRepository,
  type DefinitionText,
  definitionText,
  type TranslationRow,
} from './definition-translations.js';
import { cutVersionIfIssued, SHOWN_FIELDS } from './definition-versions.js';
import { createDefinitionRepository, type DefinitionRow } from './definitions.repository.js';
import type {
  CreateDefinitionInput,
  Definition,
  DefinitionTranslation,
  PutTranslationInput,
  UpdateDefinitionInput,
} from './definitions.schemas.js';

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
    language: row.language,
    achievementType: row.achievement_type,
    creditsAvailable: row.credits_available,
    fieldOfStudy: row.field_of_study,
    specialization: row.specialization,
    humanCode: row.human_code,
    version: row.version,
    versionNumber: row.version_number,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toTranslation(row: TranslationRow): DefinitionTranslation {
  return {
    language: row.lang,
    name: row.name,
    description: row.description,
    criteriaNarrative: row.criteria_narrative,
    certificateTitle: row.certificate_title,
    certificateWording: row.certificate_wording,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

type MetadataInput = Pick<
  UpdateDefinitionInput,
  'achievementType' | 'creditsAvailable' | 'fieldOfStudy' | 'specialization' | 'humanCode' | 'version'
>;

/** The §3 metadata of a create or update body as columns; absent fields are left out. */
function metadataColumns(input: MetadataInput): Updateable<DefinitionsTable> {
  const columns: Updateable<DefinitionsTable> = {};
  if (input.achievementType !== undefined) columns.achievement_type = input.achievementType;
  if (input.creditsAvailable !== undefined) columns.credits_available = input.creditsAvailable;
  if (input.fieldOfStudy !== undefined) columns.field_of_study = input.fieldOfStudy;
  if (input.specialization !== undefined) columns.specialization = input.specialization;
  if (input.humanCode !== undefined) columns.human_code = input.humanCode;
  if (input.version !== undefined) columns.version = input.version;
  return columns;
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
      const language =
        input.language !== undefined
          ? requireLanguage(input.language, '/language')
          : await repo.issuerLanguage(issuerId);
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
            language,
            achievement_type: input.achievementType ?? null,
            credits_available: input.creditsAvailable ?? null,
            field_of_study: input.fieldOfStudy ?? null,
            specialization: input.specialization ?? null,
            human_code: input.humanCode ?? null,
            version: input.version ?? null,
            version_number: 1,
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
        if (input.language !== undefined) changes.language = requireLanguage(input.language, '/language');
        Object.assign(changes, metadataColumns(input));
        const shownChange = SHOWN_FIELDS.some((field) => field in changes && changes[field] !== existing[field]);
        const next = shownChange ? await cutVersionIfIssued(trx, existing, changes.updated_at as string) : undefined;
        if (next !== undefined) changes.version_number = next;
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
          details: {
            fields: Object.keys(input).sort(),
            ...(next !== undefined ? { versionNumber: next } : {}),
          },
        });
        return toDefinition({ ...existing, ...changes } as DefinitionRow);
      });
    },

    /** The text to show of the definition in the language asked for (definition-translations.ts). */
    async textFor(
      issuerId: string,
      definitionId: string,
      requested: string | readonly string[] | null | undefined,
      options: { asOf?: string | null } = {},
    ): Promise<DefinitionText> {
      return definitionText(core.db, { issuerId, definitionId }, requested, options);
    },

    async listTranslations(issuerId: string, definitionId: string): Promise<DefinitionTranslation[]> {
      if (!(await repo.getById(issuerId, definitionId))) throw errors.notFound('Definition');
      return (await createTranslationRepository(core.db).list(issuerId, definitionId)).map(toTranslation);
    },

    async getTranslation(issuerId: string, definitionId: string, lang: string): Promise<DefinitionTranslation> {
      const language = requireLanguage(lang, '/lang');
      if (!(await repo.getById(issuerId, definitionId))) throw errors.notFound('Definition');
      const row = await createTranslationRepository(core.db).get(issuerId, definitionId, language);
      if (!row) throw errors.notFound('Translation');
      return toTranslation(row);
    },

    /**
     * Creates or replaces the definition's text in `lang` (canonicalised). A change once a credential
     * was issued under the current version cuts a new version first, as an edit of the definition's
     * own text does. Audited as `definition.translation_saved`.
     */
    async putTranslation(
      issuerId: string,
      actor: string,
      definitionId: string,
      lang: string,
      input: PutTranslationInput,
    ): Promise<DefinitionTranslation> {
      const language = requireLanguage(lang, '/lang');
      const wordingIssues = certificateWordingIssues(input.certificateWording ?? '', '/certificateWording');
      if (wordingIssues.length > 0) throw errors.validation('The certificate wording is not valid.', wordingIssues);
      return core.db.transaction().execute(async (trx) => {
        const definition = await createDefinitionRepository(trx).getById(issuerId, definitionId);
        if (!definition) throw errors.notFound('Definition');
        if (language === definition.language) {
          const message = "That is the definition's own language: change its text with PATCH /api/v1/definitions/{id}.";
          throw errors.validation(message, [{ path: '/lang', message, code: 'language' }]);
        }
        const translations = createTranslationRepository(trx);
        const existing = await translations.get(issuerId, definitionId, language);
        const now = isoNow(core.clock);
        const row: TranslationRow = {
          issuer_id: issuerId,
          definition_id: definitionId,
          lang: language,
          name: input.name,
          description: input.description,
          criteria_narrative: input.criteriaNarrative ?? null,
          certificate_title: input.certificateTitle ?? null,
          certificate_wording: input.certificateWording ?? null,
          created_at: existing?.created_at ?? now,
          updated_at: now,
        };
        const changed =
          !existing ||
          (['name', 'description', 'criteria_narrative', 'certificate_title', 'certificate_wording'] as const).some(
            (field) => existing[field] !== row[field],
          );
        if (changed) await touchDefinition(trx, definition, now);
        await translations.upsert(row);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'definition.translation_saved',
          targetType: 'definition',
          targetId: definitionId,
          details: { language, created: !existing },
        });
        return toTranslation(row);
      });
    },

    /** Removes the definition's text in `lang`; 404 when it has none. Audited as `definition.translation_deleted`. */
    async deleteTranslation(issuerId: string, actor: string, definitionId: string, lang: string): Promise<void> {
      const language = requireLanguage(lang, '/lang');
      await core.db.transaction().execute(async (trx) => {
        const definition = await createDefinitionRepository(trx).getById(issuerId, definitionId);
        if (!definition) throw errors.notFound('Definition');
        const translations = createTranslationRepository(trx);
        if (!(await translations.get(issuerId, definitionId, language))) throw errors.notFound('Translation');
        await touchDefinition(trx, definition, isoNow(core.clock));
        await translations.delete(issuerId, definitionId, language);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'definition.translation_deleted',
          targetType: 'definition',
          targetId: definitionId,
          details: { language },
        });
      });
    },
  };

  /**
   * Before a translation changes: cuts a version when a credential shows the current one, and
   * touches the definition, so every cached public read of it is dropped (migration 0053's trigger).
   */
  async function touchDefinition(trx: Executor, definition: DefinitionRow, now: string): Promise<void> {
    const next = await cutVersionIfIssued(trx, definition, now);
    await createDefinitionRepository(trx).update(definition.issuer_id, definition.id, {
      updated_at: now,
      ...(next !== undefined ? { version_number: next } : {}),
    });
  }
}

export type DefinitionService = ReturnType<typeof createDefinitionService>;
