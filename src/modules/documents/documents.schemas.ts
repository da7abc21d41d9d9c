import { type Static, Type } from '@sinclair/typebox';
import { LANGUAGE_TAG_MAX } from '../../core/language.js';

/** The Open Badges 2.0 JSON-LD context; every property a document carries is a term of it. */
export const OB_CONTEXT = 'https://w3id.org/openbadges/v2';

const Context = Type.Literal(OB_CONTEXT);
const Url = Type.String({ format: 'uri' });
const DateTime = Type.String({ format: 'date-time' });
const IdRef = Type.Object({ id: Url });
const HostedVerification = Type.Object({
  type: Type.Literal('hosted', { description: 'Hosted verification: the document is fetched from its id' }),
});

export const ObIssuerSchema = Type.Object(
  {
    '@context': Context,
    type: Type.Literal('Issuer'),
    id: Url,
    name: Type.String(),
    url: Url,
    email: Type.String(),
    description: Type.Optional(Type.String()),
    image: Type.Optional(Url),
    related: Type.Optional(
      Type.Array(Url, {
        description:
          'The URL of the did.json of the same issuer: the HTTPS form of its did:web, which identifies its Open Badges 3.0 Profile.',
      }),
    ),
  },
  { $id: 'ObIssuerProfile', description: 'Open Badges 2.0 Issuer Profile' },
);
export type ObIssuer = Static<typeof ObIssuerSchema>;

export const ObAlignmentSchema = Type.Object(
  {
    targetName: Type.String(),
    targetUrl: Url,
    targetDescription: Type.Optional(Type.String()),
    targetFramework: Type.Optional(Type.String()),
    targetCode: Type.Optional(Type.String()),
    'extensions:AlignmentTargetType': Type.Optional(
      Type.Object(
        { '@context': Url, type: Type.Array(Type.String()), targetType: Type.String() },
        { description: 'The OB 3.0 targetType of the alignment, as an OB 2.0 extension' },
      ),
    ),
  },
  { $id: 'ObAlignmentObject', description: 'Open Badges 2.0 AlignmentObject' },
);
export type ObAlignment = Static<typeof ObAlignmentSchema>;

/**
 * A BadgeClass this one relates to (OB 2.0 "related": "alternate language editions or previous
 * versions of BadgeClasses"): another language edition with its `@language`, or an earlier version
 * with its `version`, as the specification's examples write them.
 */
export const ObRelatedSchema = Type.Object(
  {
    id: Url,
    '@language': Type.Optional(Type.String({ description: 'The language of that edition (BCP 47)' })),
    version: Type.Optional(Type.String({ description: 'The version label of that earlier version' })),
  },
  { $id: 'ObRelatedBadgeClass', description: 'Another language edition or an earlier version of a BadgeClass' },
);
export type ObRelated = Static<typeof ObRelatedSchema>;

export const ObBadgeClassSchema = Type.Object(
  {
    '@context': Context,
    '@language': Type.String({
      description:
        'The language of the text of this edition (BCP 47), a top-level JSON-LD keyword beside @context (OB 2.0 examples, "Internationalization")',
    }),
    type: Type.Literal('BadgeClass'),
    id: Url,
    name: Type.String(),
    description: Type.String(),
    image: Url,
    criteria: Type.Object({ id: Type.Optional(Url), narrative: Type.Optional(Type.String()) }),
    issuer: Url,
    version: Type.String({
      description: "The version label: the issuer's own version string, else this service's version number",
    }),
    tags: Type.Optional(Type.Array(Type.String())),
    alignment: Type.Optional(Type.Array(Type.Ref(ObAlignmentSchema))),
    related: Type.Optional(
      Type.Array(Type.Ref(ObRelatedSchema), {
        description:
          'The other language editions of the same version; on the current BadgeClass also its earlier versions',
      }),
    ),
    'extensions:AchievementMetadata': Type.Optional(
      Type.Object(
        {
          '@context': Url,
          type: Type.Array(Type.String()),
          achievementType: Type.Optional(Type.String()),
          creditsAvailable: Type.Optional(Type.Number()),
          fieldOfStudy: Type.Optional(Type.String()),
          specialization: Type.Optional(Type.String()),
          humanCode: Type.Optional(Type.String()),
        },
        {
          description:
            "The definition's OB 3.0 Achievement properties as an OB 2.0 extension (its context: /v1/extensions/achievement-metadata/context.json)",
        },
      ),
    ),
    endorsement: Type.Optional(Type.Array(Url, { description: 'Hosted Endorsement URLs' })),
  },
  { $id: 'ObBadgeClass', description: 'Open Badges 2.0 BadgeClass' },
);
export type ObBadgeClass = Static<typeof ObBadgeClassSchema>;

export const ObAssertionSchema = Type.Object(
  {
    '@context': Context,
    type: Type.Literal('Assertion'),
    id: Url,
    recipient: Type.Object({
      type: Type.Literal('email'),
      hashed: Type.Literal(true),
      salt: Type.String(),
      identity: Type.String({ description: "'sha256$' + sha256(lower-cased email + salt), hex" }),
    }),
    badge: Url,
    verification: HostedVerification,
    issuedOn: DateTime,
    expires: Type.Optional(DateTime),
    evidence: Type.Optional(Type.Array(IdRef)),
    image: Type.Optional(Url),
    related: Type.Optional(Type.Array(IdRef, { description: 'The assertion this one reissues' })),
    endorsement: Type.Optional(Type.Array(Url, { description: 'Hosted Endorsement URLs' })),
  },
  { $id: 'ObAssertion', description: 'Open Badges 2.0 Assertion (hosted verification)' },
);
export type ObAssertion = Static<typeof ObAssertionSchema>;

export const ObRevokedAssertionSchema = Type.Object(
  {
    '@context': Context,
    id: Url,
    type: Type.Literal('Assertion'),
    revoked: Type.Literal(true),
    revocationReason: Type.String({ description: 'In public words: an erasure reads "Revoked by the issuer"' }),
  },
  { $id: 'ObRevokedAssertion', description: 'Served with 410 Gone for a revoked hosted assertion' },
);
export type ObRevokedAssertion = Static<typeof ObRevokedAssertionSchema>;

export const ObEndorsementSchema = Type.Object(
  {
    '@context': Context,
    type: Type.Literal('Endorsement'),
    id: Url,
    claim: Type.Object({ id: Url, endorsementComment: Type.String() }),
    issuer: Url,
    issuedOn: DateTime,
    verification: HostedVerification,
  },
  { $id: 'ObEndorsement', description: 'Open Badges 2.0 Endorsement' },
);
export type ObEndorsement = Static<typeof ObEndorsementSchema>;

export const ObEndorserProfileSchema = Type.Object(
  {
    '@context': Context,
    type: Type.Literal('Profile'),
    id: Url,
    name: Type.String(),
    url: Url,
    email: Type.String(),
    description: Type.String(),
  },
  { $id: 'ObEndorserProfile', description: 'Open Badges 2.0 Profile of an endorser, hosted by the endorsed issuer' },
);
export type ObEndorserProfile = Static<typeof ObEndorserProfileSchema>;

export const documentSchemas = [
  ObIssuerSchema,
  ObAlignmentSchema,
  ObRelatedSchema,
  ObBadgeClassSchema,
  ObAssertionSchema,
  ObRevokedAssertionSchema,
  ObEndorsementSchema,
  ObEndorserProfileSchema,
];

// The router refuses longer path parameters itself (414), before validation.
const Slug = Type.String({ maxLength: 100 });
const Id = Type.String({ maxLength: 100 });
export const IssuerParams = Type.Object({ slug: Slug });
export const BadgeParams = Type.Object({ slug: Slug, defSlug: Slug });
/** A version number of a definition: this service counts them from 1. */
const VersionNumber = Type.Integer({ minimum: 1, maximum: 1_000_000 });
/** An edition's language tag as its URL writes it: the canonical form only (others are not found). */
const EditionLanguage = Type.String({ maxLength: LANGUAGE_TAG_MAX });
export const BadgeEditionParams = Type.Object({ slug: Slug, defSlug: Slug, lang: EditionLanguage });
export const BadgeVersionParams = Type.Object({ slug: Slug, defSlug: Slug, version: VersionNumber });
export const BadgeVersionEditionParams = Type.Object({
  slug: Slug,
  defSlug: Slug,
  version: VersionNumber,
  lang: EditionLanguage,
});
export const DocumentParams = Type.Object({ slug: Slug, id: Id });
