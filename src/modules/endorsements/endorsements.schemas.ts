import { type Static, Type } from '@sinclair/typebox';
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

export const endorsementSchemas = [EndorsementSchema];
