import type { Kysely } from 'kysely';

/**
 * Issue 45 §1 and §3: translated definitions and badge data machines can read.
 * - `issuers.language`: the issuer's default language (a canonical BCP 47 tag), 'en' for every issuer
 *   so far; `issuers.linkedin_organization_id`: its LinkedIn organization id, for the add-to-profile
 *   link and the OB 3.0 Profile's `otherIdentifier`.
 * - `definitions.language`: the language of a definition's own text (set from the issuer's at
 *   creation); `achievement_type` ... `human_code`: the OB 3.0 Achievement properties of §3;
 *   `version`: the issuer's own version string; `version_number`: this service's count of the
 *   definition's versions, 1 until an edit of what a credential shows cuts a new one.
 * - `definition_translations`: one row per definition and language, its text in that language.
 * - `definition_versions`: what a definition showed while a version was current (`snapshot`, JSON of
 *   the definition's shown fields and its translations), and when that version stopped being current.
 *   A credential belongs to the version current when it was created (`credentials.created_at` before
 *   `superseded_at`), so issuance itself records nothing (docs/decisions.md, "Definition versions").
 * - `credentials.language`: the language an issuance was made in; null for the definition's own.
 * - `alignments.target_type`: the OB 3.0 AlignmentTargetType (CFItem, ceasn:Competency, ...).
 */
export function translationsAndMetadataMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('issuers')
        .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
        .execute();
      await db.schema.alterTable('issuers').addColumn('linkedin_organization_id', 'text').execute();
      await db.schema
        .alterTable('definitions')
        .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
        .execute();
      for (const column of ['achievement_type', 'field_of_study', 'specialization', 'human_code', 'version']) {
        await db.schema.alterTable('definitions').addColumn(column, 'text').execute();
      }
      await db.schema.alterTable('definitions').addColumn('credits_available', 'real').execute();
      await db.schema
        .alterTable('definitions')
        .addColumn('version_number', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('credentials').addColumn('language', 'text').execute();
      await db.schema.alterTable('alignments').addColumn('target_type', 'text').execute();
      await db.schema
        .createTable('definition_translations')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('lang', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('criteria_narrative', 'text')
        .addColumn('certificate_title', 'text')
        .addColumn('certificate_wording', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('definition_translations_pk', ['definition_id', 'lang'])
        .execute();
      await db.schema
        .createTable('definition_versions')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('definition_id', 'text', (c) => c.notNull())
        .addColumn('version_number', 'integer', (c) => c.notNull())
        .addColumn('snapshot', 'text', (c) => c.notNull())
        .addColumn('superseded_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('definition_versions_pk', ['definition_id', 'version_number'])
        .execute();
    },
  };
}
