import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { DefinitionTranslationsTable } from '../../db/schema.js';
import type { DefinitionRow } from './definitions.repository.js';

/*
 * Definition versions (issue 45 §3, docs/decisions.md "Definition versions"): what an earner was
 * awarded never changes after award. An edit of what a credential shows, made once a credential was
 * issued under the current version, first stores that version whole (`definition_versions`) and
 * then counts a new one. A credential belongs to the version current when it was created: the first
 * stored version superseded after its `created_at`, else the definition as it is now.
 */

/** The fields of a definition its credentials show (OB 2.0 BadgeClass, OB 3.0 Achievement, pages). */
export const SHOWN_FIELDS = [
  'name',
  'description',
  'criteria_narrative',
  'criteria_url',
  'image_url',
  'tags',
  'skills',
  'language',
  'achievement_type',
  'credits_available',
  'field_of_study',
  'specialization',
  'human_code',
  'version',
] as const satisfies readonly (keyof DefinitionRow)[];

type TranslationRow = Selectable<DefinitionTranslationsTable>;

/** A stored version: the shown fields and the translations as they were. */
export type DefinitionSnapshot = Pick<DefinitionRow, (typeof SHOWN_FIELDS)[number]> & {
  translations: TranslationRow[];
};

/** A definition as one of its versions showed it. */
export interface DefinitionAsOf {
  /** The definition row with that version's shown fields and `version_number`. */
  definition: DefinitionRow;
  translations: TranslationRow[];
  /** False for a stored earlier version, true for the definition as it is now. */
  current: boolean;
}

function translationsOf(db: Executor, issuerId: string, definitionId: string): Promise<TranslationRow[]> {
  return db
    .selectFrom('definition_translations')
    .selectAll()
    .where('issuer_id', '=', issuerId)
    .where('definition_id', '=', definitionId)
    .orderBy('lang')
    .execute();
}

function fromSnapshot(current: DefinitionRow, versionNumber: number, snapshot: string): DefinitionAsOf {
  const { translations, ...fields } = JSON.parse(snapshot) as DefinitionSnapshot;
  return { definition: { ...current, ...fields, version_number: versionNumber }, translations, current: false };
}

/** The definition as it was when a credential created at `asOf` was issued; as it is now for null. */
export async function definitionAsOf(
  db: Executor,
  definition: DefinitionRow,
  asOf: string | null,
): Promise<DefinitionAsOf> {
  if (asOf !== null) {
    const version = await db
      .selectFrom('definition_versions')
      .select(['version_number', 'snapshot'])
      .where('issuer_id', '=', definition.issuer_id)
      .where('definition_id', '=', definition.id)
      .where('superseded_at', '>', asOf)
      .orderBy('version_number')
      .limit(1)
      .executeTakeFirst();
    if (version) return fromSnapshot(definition, version.version_number, version.snapshot);
  }
  return { definition, translations: await translationsOf(db, definition.issuer_id, definition.id), current: true };
}

/** The definition as version `versionNumber` showed it; undefined for a version that never was. */
export async function definitionVersion(
  db: Executor,
  definition: DefinitionRow,
  versionNumber: number,
): Promise<DefinitionAsOf | undefined> {
  if (versionNumber === definition.version_number) return definitionAsOf(db, definition, null);
  const version = await db
    .selectFrom('definition_versions')
    .select(['version_number', 'snapshot'])
    .where('issuer_id', '=', definition.issuer_id)
    .where('definition_id', '=', definition.id)
    .where('version_number', '=', versionNumber)
    .executeTakeFirst();
  return version ? fromSnapshot(definition, version.version_number, version.snapshot) : undefined;
}

/** The stored earlier versions of a definition, oldest first, each with its issuer's version string. */
export async function earlierVersions(
  db: Executor,
  definition: Pick<DefinitionRow, 'issuer_id' | 'id'>,
): Promise<{ versionNumber: number; version: string | null }[]> {
  const rows = await db
    .selectFrom('definition_versions')
    .select(['version_number', 'snapshot'])
    .where('issuer_id', '=', definition.issuer_id)
    .where('definition_id', '=', definition.id)
    .orderBy('version_number')
    .execute();
  return rows.map((r) => ({
    versionNumber: r.version_number,
    version: (JSON.parse(r.snapshot) as DefinitionSnapshot).version,
  }));
}

/**
 * The version a credential created at `createdAt` belongs to: the first stored version superseded
 * after it, else the current one.
 */
export async function versionAt(
  db: Executor,
  definition: Pick<DefinitionRow, 'issuer_id' | 'id' | 'version_number'>,
  createdAt: string,
): Promise<number> {
  const version = await db
    .selectFrom('definition_versions')
    .select('version_number')
    .where('issuer_id', '=', definition.issuer_id)
    .where('definition_id', '=', definition.id)
    .where('superseded_at', '>', createdAt)
    .orderBy('version_number')
    .limit(1)
    .executeTakeFirst();
  return version?.version_number ?? definition.version_number;
}

/**
 * Inside the transaction of an edit of shown text: when a credential was created under the current
 * version, stores that version whole and answers the next version number; undefined when no
 * credential shows the current version yet, so the edit changes it in place.
 */
export async function cutVersionIfIssued(
  trx: Executor,
  definition: DefinitionRow,
  now: string,
): Promise<number | undefined> {
  const previous = await trx
    .selectFrom('definition_versions')
    .select('superseded_at')
    .where('issuer_id', '=', definition.issuer_id)
    .where('definition_id', '=', definition.id)
    .orderBy('version_number', 'desc')
    .limit(1)
    .executeTakeFirst();
  let issued = trx
    .selectFrom('credentials')
    .select('id')
    .where('issuer_id', '=', definition.issuer_id)
    .where('definition_id', '=', definition.id);
  if (previous) issued = issued.where('created_at', '>=', previous.superseded_at);
  if (!(await issued.limit(1).executeTakeFirst())) return undefined;
  const snapshot: DefinitionSnapshot = {
    ...(Object.fromEntries(SHOWN_FIELDS.map((field) => [field, definition[field]])) as Pick<
      DefinitionRow,
      (typeof SHOWN_FIELDS)[number]
    >),
    translations: await translationsOf(trx, definition.issuer_id, definition.id),
  };
  await trx
    .insertInto('definition_versions')
    .values({
      issuer_id: definition.issuer_id,
      definition_id: definition.id,
      version_number: definition.version_number,
      snapshot: JSON.stringify(snapshot),
      superseded_at: now,
    })
    .execute();
  return definition.version_number + 1;
}
