import type { AlignmentFields } from './documents.repository.js';

/*
 * The OB 2.0 extension that carries a definition's badge data (issue 45 §3) in its BadgeClass: the
 * OB 3.0 Achievement properties OB 2.0 has no term for. OB 2.0 "Extensions": an extension is a JSON
 * object inside the BadgeClass under a property in the `extensions:` namespace of the OB v2
 * context, with its own `@context` (a hosted JSON-LD context defining its terms) and a `type` that
 * includes `Extension`; the context may link a JSON Schema by TypeValidation (`obi:validation`),
 * which validators run against the extension object. We host both, so nothing names a third party.
 * The terms map to the OB 3.0 vocabulary's IRIs (context-3.0.3.json), so a JSON-LD processor reads
 * the same statements from both versions.
 */

export const ACHIEVEMENT_EXTENSION = 'extensions:AchievementMetadata';
export const ALIGNMENT_EXTENSION = 'extensions:AlignmentTargetType';

const OB3_VOCAB = 'https://purl.imsglobal.org/spec/vc/ob/vocab.html#';

export const extensionUrls = (baseUrl: string) => {
  const root = `${baseUrl}/v1/extensions/achievement-metadata`;
  return { context: `${root}/context.json`, schema: `${root}/schema.json` };
};

/** The extension's JSON-LD context (OB 2.0 "Extensions": "Extension authors define and host a new JSON-LD context"). */
export function extensionContext(baseUrl: string) {
  return {
    '@context': {
      obi: 'https://w3id.org/openbadges#',
      extensions: 'https://w3id.org/openbadges/extensions#',
      achievementType: { '@id': `${OB3_VOCAB}achievementType` },
      creditsAvailable: { '@id': `${OB3_VOCAB}creditsAvailable`, '@type': 'http://www.w3.org/2001/XMLSchema#float' },
      fieldOfStudy: { '@id': `${OB3_VOCAB}fieldOfStudy` },
      specialization: { '@id': `${OB3_VOCAB}specialization` },
      humanCode: { '@id': `${OB3_VOCAB}humanCode` },
      targetType: { '@id': `${OB3_VOCAB}targetType` },
    },
    'obi:validation': [
      {
        'obi:validatesType': ACHIEVEMENT_EXTENSION,
        'obi:validationSchema': extensionUrls(baseUrl).schema,
      },
      {
        'obi:validatesType': ALIGNMENT_EXTENSION,
        'obi:validationSchema': extensionUrls(baseUrl).schema,
      },
    ],
  };
}

/** The JSON Schema both extension objects pass (TypeValidation): the values the definitions API takes. */
export const extensionSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Accolade achievement metadata (Open Badges 2.0 extension)',
  description:
    'OB 3.0 Achievement properties in an OB 2.0 BadgeClass (achievementType, creditsAvailable, fieldOfStudy, specialization, humanCode), and an AlignmentObject’s OB 3.0 targetType.',
  type: 'object',
  properties: {
    '@context': { type: 'string', format: 'uri' },
    type: { type: 'array', items: { type: 'string' }, contains: { const: 'Extension' } },
    achievementType: { type: 'string', maxLength: 100 },
    creditsAvailable: { type: 'number', minimum: 0 },
    fieldOfStudy: { type: 'string', maxLength: 200 },
    specialization: { type: 'string', maxLength: 200 },
    humanCode: { type: 'string', maxLength: 100 },
    targetType: { type: 'string', maxLength: 100 },
  },
  required: ['@context', 'type'],
  additionalProperties: false,
} as const;

/** The §3 fields a BadgeClass shows, as they are stored. */
export interface AchievementFields {
  achievement_type: string | null;
  credits_available: number | null;
  field_of_study: string | null;
  specialization: string | null;
  human_code: string | null;
}

/** The BadgeClass's extension object, or nothing when the definition has none of the fields. */
export function achievementExtension(baseUrl: string, fields: AchievementFields) {
  const values = {
    ...(fields.achievement_type ? { achievementType: fields.achievement_type } : {}),
    ...(fields.credits_available !== null ? { creditsAvailable: fields.credits_available } : {}),
    ...(fields.field_of_study ? { fieldOfStudy: fields.field_of_study } : {}),
    ...(fields.specialization ? { specialization: fields.specialization } : {}),
    ...(fields.human_code ? { humanCode: fields.human_code } : {}),
  };
  if (Object.keys(values).length === 0) return {};
  return {
    [ACHIEVEMENT_EXTENSION]: {
      '@context': extensionUrls(baseUrl).context,
      type: ['Extension', ACHIEVEMENT_EXTENSION],
      ...values,
    },
  };
}

/** An AlignmentObject's extension carrying its OB 3.0 targetType, or nothing. */
export function alignmentExtension(baseUrl: string, row: Pick<AlignmentFields, 'target_type'>) {
  if (!row.target_type) return {};
  return {
    [ALIGNMENT_EXTENSION]: {
      '@context': extensionUrls(baseUrl).context,
      type: ['Extension', ALIGNMENT_EXTENSION],
      targetType: row.target_type,
    },
  };
}
