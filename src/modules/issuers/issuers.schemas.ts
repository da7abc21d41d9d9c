import { Type } from '@sinclair/typebox';
import { LanguageTag } from '../../core/language.js';
import { DateTime, Email, Name, Nullable, Text, WebUrl } from '../../core/schemas.js';
import { SLUG_PATTERN } from '../../core/slug.js';

const HexColor = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'A hex colour such as #1f5fbf.' });

export const IssuerSchema = Type.Object(
  {
    id: Type.String(),
    slug: Type.String(),
    name: Type.String(),
    profileUrl: Type.String({ format: 'uri', description: 'Resolvable Open Badges 2.0 Issuer Profile id' }),
    url: Type.String({ description: "The issuer's website" }),
    email: Type.String({ description: "The issuer's public contact email (in its Open Badges profile)" }),
    description: Nullable(Type.String()),
    imageUrl: Nullable(Type.String({ description: "The issuer's logo or image" })),
    brandColor: Nullable(Type.String({ description: 'Brand colour of its pages and badge images' })),
    language: Type.String({
      description:
        "The issuer's default language (BCP 47): its new definitions' and its pages' when nothing else decides",
    }),
    linkedinOrganizationId: Nullable(
      Type.String({ description: 'Its LinkedIn organization id, in the add-to-profile link of its credentials' }),
    ),
  },
  { $id: 'Issuer' },
);

export const UpdateIssuerBody = Type.Object(
  {
    name: Type.Optional(Name(200)),
    url: Type.Optional(WebUrl),
    email: Type.Optional(Email),
    description: Type.Optional(Nullable(Text(5000))),
    imageUrl: Type.Optional(Nullable(WebUrl)),
    brandColor: Type.Optional(Nullable(HexColor)),
    language: Type.Optional(LanguageTag("The issuer's default language, such as fr or de-CH (BCP 47)")),
    linkedinOrganizationId: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[0-9]{1,20}$',
          description:
            'The number in its LinkedIn company page admin URL (linkedin.com/company/<number>/admin): LinkedIn then shows the certification under that organization',
        }),
      ),
    ),
    slug: Type.Optional(
      Type.String({
        pattern: SLUG_PATTERN,
        maxLength: 64,
        description:
          'Only while the issuer has neither issued a credential nor given an endorsement (409 slug_locked after): their URLs and the did:web carry it.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKeySchema = Type.Object(
  {
    id: Type.String(),
    prefix: Type.String({ description: 'The first 8 characters, to recognise the key by' }),
    name: Nullable(Type.String()),
    createdAt: DateTime,
    revokedAt: Nullable(DateTime),
    expiresAt: Nullable({
      ...DateTime,
      description: 'When the key stops working (in the future during a rotation grace)',
    }),
    rotatedFrom: Type.Optional(
      Type.String({ description: 'The key this one replaced by a rotation (it was made at createdAt)' }),
    ),
  },
  { $id: 'ApiKey' },
);

export const CreatedApiKey = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'The key itself: shown only in this answer' }),
  prefix: Type.String(),
  createdAt: DateTime,
});

export const CreateKeyBody = Type.Object({ name: Type.Optional(Name(100)) }, { additionalProperties: false });

export const RotateKeyBody = Type.Object(
  {
    graceSeconds: Type.Integer({
      minimum: 0,
      maximum: 30 * 86_400,
      default: 86_400,
      description: 'How long the rotated key keeps working',
    }),
  },
  { additionalProperties: false },
);

export const RotatedApiKey = Type.Object({
  ...CreatedApiKey.properties,
  name: Type.Optional(Nullable(Type.String({ description: "The rotated key's label, which the new key keeps" }))),
  rotatedFrom: Type.Optional(Type.String({ description: 'The rotated key' })),
  previousKeyExpiresAt: { ...DateTime, description: 'When the rotated key stops working' },
});
