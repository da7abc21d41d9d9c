import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Name, Nullable, StringEnum, Text, WebUrl } from '../../core/schemas.js';
import { SLUG_PATTERN } from '../../core/slug.js';

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
  },
  { minProperties: 1 },
);
export type UpdateDefinitionInput = Static<typeof UpdateDefinitionBody>;
