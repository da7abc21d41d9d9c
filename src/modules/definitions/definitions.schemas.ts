import { type Static, Type } from '@sinclair/typebox';
import { LanguageTag } from '../../core/language.js';
import { ACHIEVEMENT_TYPES, EXTENSION_TERM_PATTERN } from '../../core/ob3-vocabularies.js';
import { DateTime, Name, Nullable, StringEnum, Text, WebUrl } from '../../core/schemas.js';
import { SLUG_PATTERN } from '../../core/slug.js';
import {
  CERTIFICATE_PLACEHOLDERS,
  CERTIFICATE_WORDING_PATTERN,
  MAX_CERTIFICATE_TITLE,
  MAX_CERTIFICATE_WORDING,
} from './definition-translations.js';

export const DefinitionStatus = StringEnum(['active', 'archived']);

const Slug = Type.String({ pattern: SLUG_PATTERN, maxLength: 64 });
const StringList = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 });
const ExpiresAfterDays = Nullable(Type.Integer({ minimum: 1, maximum: 36_500 }));
const ValidForMonths = Nullable(
  Type.Integer({
    minimum: 1,
    maximum: 1200,
    description:
      'Credential lifetime in calendar months (24: the same day two years on). Setting it clears expiresAfterDays, and setting expiresAfterDays clears it; giving both is refused.',
  }),
);

const AchievementType = Type.String({
  pattern: `^(${ACHIEVEMENT_TYPES.join('|')})$|${EXTENSION_TERM_PATTERN}`,
  maxLength: 100,
  description: `OB 3.0 AchievementType: one of ${ACHIEVEMENT_TYPES.join(', ')}, or an extension term such as ext:Apprenticeship.`,
});
const CreditsAvailable = Type.Number({
  minimum: 0,
  maximum: 100_000,
  description: 'Credit hours associated with the achievement, such as 3.0 (OB 3.0 creditsAvailable)',
});
const Metadata = {
  language: Type.Optional(
    LanguageTag("The language of the definition's own text (BCP 47); defaults to the issuer's language"),
  ),
  achievementType: Type.Optional(Nullable(AchievementType)),
  creditsAvailable: Type.Optional(Nullable(CreditsAvailable)),
  fieldOfStudy: Type.Optional(Nullable({ ...Name(200), description: 'Such as Business, Education or Technology' })),
  specialization: Type.Optional(Nullable({ ...Name(200), description: 'Such as Entrepreneurship or Finance' })),
  humanCode: Type.Optional(Nullable({ ...Name(100), description: 'The human-readable code, such as CS-101' })),
  version: Type.Optional(
    Nullable({ ...Name(100), description: "The issuer's own version string of the definition, such as 2026.1" }),
  ),
};

export const DefinitionSchema = Type.Object(
  {
    id: Type.String(),
    issuerId: Type.String(),
    slug: Type.String(),
    name: Type.String(),
    description: Type.String(),
    criteriaNarrative: Type.Optional(Nullable(Type.String())),
    criteriaUrl: Type.Optional(Nullable(Type.String({ format: 'uri' }))),
    imageUrl: Type.Optional(Nullable(Type.String({ format: 'uri' }))),
    tags: Type.Optional(Type.Array(Type.String())),
    skills: Type.Optional(Type.Array(Type.String())),
    expiresAfterDays: Type.Optional(Nullable(Type.Integer({ description: 'Credential lifetime in days' }))),
    validForMonths: Type.Optional(
      Nullable(Type.Integer({ description: 'Credential lifetime in calendar months (null when counted in days)' })),
    ),
    status: Type.Optional(DefinitionStatus),
    language: Type.String({ description: "The language of the definition's own text (BCP 47)" }),
    achievementType: Type.Optional(Nullable(Type.String({ description: 'OB 3.0 AchievementType' }))),
    creditsAvailable: Type.Optional(Nullable(Type.Number())),
    fieldOfStudy: Type.Optional(Nullable(Type.String())),
    specialization: Type.Optional(Nullable(Type.String())),
    humanCode: Type.Optional(Nullable(Type.String())),
    version: Type.Optional(Nullable(Type.String({ description: "The issuer's own version string" }))),
    versionNumber: Type.Integer({
      description:
        "This service's version of the definition: 1, plus one for each edit of what its credentials show made after one was issued (earlier credentials keep the version they were issued under)",
    }),
    createdAt: Type.Optional(DateTime),
    updatedAt: Type.Optional(DateTime),
  },
  { $id: 'Definition', description: 'A credential definition (Open Badges BadgeClass)' },
);
export type Definition = Static<typeof DefinitionSchema>;

export const CreateDefinitionBody = Type.Object({
  name: Name(200),
  description: Text(5000),
  slug: Type.Optional(Slug),
  criteriaNarrative: Type.Optional(Text(10_000)),
  criteriaUrl: Type.Optional(WebUrl),
  imageUrl: Type.Optional(WebUrl),
  tags: Type.Optional(StringList),
  skills: Type.Optional(StringList),
  expiresAfterDays: Type.Optional(ExpiresAfterDays),
  validForMonths: Type.Optional(ValidForMonths),
  ...Metadata,
});
export type CreateDefinitionInput = Static<typeof CreateDefinitionBody>;

export const UpdateDefinitionBody = Type.Object(
  {
    name: Type.Optional(Name(200)),
    description: Type.Optional(Text(5000)),
    criteriaNarrative: Type.Optional(Nullable(Text(10_000))),
    criteriaUrl: Type.Optional(Nullable(WebUrl)),
    imageUrl: Type.Optional(Nullable(WebUrl)),
    tags: Type.Optional(StringList),
    skills: Type.Optional(StringList),
    expiresAfterDays: Type.Optional(ExpiresAfterDays),
    validForMonths: Type.Optional(ValidForMonths),
    status: Type.Optional(DefinitionStatus),
    ...Metadata,
  },
  { minProperties: 1 },
);
export type UpdateDefinitionInput = Static<typeof UpdateDefinitionBody>;

export const DefinitionTranslationSchema = Type.Object(
  {
    language: Type.String({ description: 'The canonical BCP 47 tag of this translation' }),
    name: Type.String(),
    description: Type.String(),
    criteriaNarrative: Nullable(Type.String()),
    certificateTitle: Nullable(Type.String({ description: "The certificate's title in this language" })),
    certificateWording: Nullable(Type.String({ description: "The certificate's wording in this language" })),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    $id: 'DefinitionTranslation',
    description:
      "A definition's text in one language. A field it leaves out shows the definition's own text in that language's edition.",
  },
);
export type DefinitionTranslation = Static<typeof DefinitionTranslationSchema>;

export const PutTranslationBody = Type.Object(
  {
    name: Name(200),
    description: Text(5000),
    criteriaNarrative: Type.Optional(Nullable(Text(10_000))),
    certificateTitle: Type.Optional(
      Nullable({ ...Name(MAX_CERTIFICATE_TITLE), description: "The certificate's title in this language" }),
    ),
    certificateWording: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: MAX_CERTIFICATE_WORDING,
          pattern: CERTIFICATE_WORDING_PATTERN,
          description: `The certificate's wording in this language, printed under the earner's name; placeholders as the design's: ${CERTIFICATE_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}. A certificate of a credential issued in this language prints it (and the title) in place of the design's.`,
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type PutTranslationInput = Static<typeof PutTranslationBody>;

export const TranslationParams = Type.Object({
  id: Type.String({ maxLength: 200 }),
  // No pattern: a malformed tag is refused by the service with its own message (400, path /lang).
  lang: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'A BCP 47 language tag (RFC 5646), such as fr, de-CH or zh-Hant-TW; any letter case',
  }),
});
