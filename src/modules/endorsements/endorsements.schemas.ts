import { type Static, Type } from '@sinclair/typebox';
import { ENDORSEMENT_CLAIM_MAX, ENDORSEMENT_STATUSES } from '../../core/endorsement-limits.js';
import { DateTime, Name, Nullable, StringEnum, Text, WebUrl } from '../../core/schemas.js';

export const EndorsementTargetType = StringEnum(['definition', 'credential']);
export type EndorsementTargetType = Static<typeof EndorsementTargetType>;

export const EndorsementSchema = Type.Object(
  {
    id: Type.String(),
    issuerId: Type.String(),
    targetType: EndorsementTargetType,
    targetId: Type.String(),
    endorserName: Type.String(),
    endorserUrl: Type.Optional(Nullable(Type.String({ format: 'uri' }))),
    claim: Type.String(),
    createdAt: DateTime,
    signed: Type.Optional(
      Type.Literal(false, {
        description:
          'Always false: a recorded claim of an outside endorser, signed by no one (never by this issuer in the endorser’s name). An issuer of this service endorses with its own key through /api/v1/endorsements/given.',
      }),
    ),
  },
  {
    $id: 'Endorsement',
    description:
      'An endorsement of a definition or credential, also hosted as an Open Badges 2.0 Endorsement at /v1/issuers/{slug}/endorsements/{id}',
  },
);
export type Endorsement = Static<typeof EndorsementSchema>;

/** endorserUrl must be http(s): it becomes the `url` of the endorser's hosted Profile, which must be a URL. */
export const CreateEndorsementBody = Type.Object({
  endorserName: Name(200),
  claim: Text(5000),
  endorserUrl: Type.Optional(WebUrl),
});
export type CreateEndorsementInput = Static<typeof CreateEndorsementBody>;

export const EndorsementStatus = StringEnum(ENDORSEMENT_STATUSES, {
  description:
    'The endorsed issuer’s decision: pending until it accepts; only accepted ones are embedded in its signed credentials. A rejected one can still be accepted; a removed one is final.',
});

export const GivenEndorsementSchema = Type.Object(
  {
    id: Type.String(),
    endorserIssuerId: Type.String(),
    endorsedIssuerId: Type.String(),
    definitionId: Type.String(),
    badgeClass: Type.String({ format: 'uri', description: 'The endorsed BadgeClass (the Achievement id)' }),
    claim: Type.String(),
    createdAt: DateTime,
    revokedAt: Nullable(DateTime),
    status: EndorsementStatus,
    decidedAt: Nullable(DateTime),
    credential: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The OB 3.0 EndorsementCredential: issued by the endorser’s Profile (its did:web), signed with the endorser’s key (Data Integrity eddsa-rdfc-2022), with an entry in the endorser’s status list',
      },
    ),
  },
  {
    $id: 'GivenEndorsement',
    description:
      'An endorsement this issuer gave another issuer’s definition, signed with its own key. Listed in the Achievement of that definition’s credentials signed while the endorsed issuer has accepted it and it is not revoked; revoking flips its status bit.',
  },
);
export type GivenEndorsement = Static<typeof GivenEndorsementSchema>;

export const GiveEndorsementBody = Type.Object({
  badgeClass: Type.String({
    format: 'uri',
    maxLength: 2048,
    description: 'The BadgeClass URL of another issuer’s definition on this service',
  }),
  claim: Text(ENDORSEMENT_CLAIM_MAX),
});

export const ReceivedEndorsementSchema = Type.Object(
  {
    id: Type.String(),
    endorserIssuerId: Type.String(),
    endorserName: Type.String({ description: 'The endorsing issuer’s name as it signed the endorsement' }),
    endorserProfile: Type.String({ format: 'uri', description: 'The endorsing issuer’s hosted Profile' }),
    definitionId: Type.String(),
    definitionName: Type.String(),
    badgeClass: Type.String({ format: 'uri', description: 'The endorsed BadgeClass (the Achievement id)' }),
    claim: Type.String(),
    status: EndorsementStatus,
    createdAt: DateTime,
    decidedAt: Nullable(DateTime),
    revokedAt: Nullable(
      Type.String({ format: 'date-time', description: 'When the endorser revoked it: never embedded again' }),
    ),
  },
  {
    $id: 'ReceivedEndorsement',
    description:
      'An endorsement another issuer of this service gave one of this issuer’s definitions, signed with the endorser’s key. Embedded in this issuer’s signed credentials only once accepted.',
  },
);
export type ReceivedEndorsement = Static<typeof ReceivedEndorsementSchema>;

export const ReceivedEndorsementsQuery = Type.Object(
  {
    status: Type.Optional(EndorsementStatus),
    definitionId: Type.Optional(Type.String({ maxLength: 200, description: 'Only this definition’s' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);

export const endorsementSchemas = [EndorsementSchema, GivenEndorsementSchema, ReceivedEndorsementSchema];
