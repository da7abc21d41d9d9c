import { Type } from '@sinclair/typebox';
import { DateTime, Email } from '../../core/schemas.js';

export const IssueClrBody = Type.Object({
  recipientEmail: Email,
});

export const IssuedClrSchema = Type.Object(
  {
    id: Type.String(),
    pathwayId: Type.String(),
    credentialUrl: Type.String({ description: 'Where the signed ClrCredential is served (no key needed)' }),
    validFrom: DateTime,
    validUntil: Type.Union([DateTime, Type.Null()], {
      description: 'When the first of its credentials expires; null when none does',
    }),
    credential: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The ClrCredential (CLR 2.0, VC Data Model 2.0) signed with the issuer’s did:web key: Data Integrity eddsa-rdfc-2022, `proof` as an array',
      },
    ),
  },
  { $id: 'IssuedClr', description: 'A CLR 2.0 ClrCredential of a completed pathway' },
);

export const PathwayIncompleteSchema = Type.Object(
  {
    error: Type.Literal('pathway_incomplete'),
    message: Type.String(),
    missingStages: Type.Array(
      Type.Object({ stageId: Type.String(), definitionId: Type.String(), stepOrder: Type.Integer() }),
      { description: 'The required stages the recipient holds no currently valid credential of' },
    ),
  },
  { $id: 'PathwayIncomplete', description: 'The recipient has not completed the pathway' },
);

export const clrSchemas = [IssuedClrSchema, PathwayIncompleteSchema];
