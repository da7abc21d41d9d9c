import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Email, Nullable, PageOffset, StringEnum, Text, Uuid, WebUrl } from '../../core/schemas.js';

export const CredentialStatus = StringEnum(['valid', 'expired', 'revoked']);
export type CredentialStatus = Static<typeof CredentialStatus>;

const Uri = Type.String({ format: 'uri' });
export const CompletionKey = Type.String({ minLength: 1, maxLength: 255 });

export const CredentialSummarySchema = Type.Object(
  {
    id: Type.String(),
    status: CredentialStatus,
    definitionId: Type.String(),
    assertionUrl: Uri,
    badgeClassUrl: Uri,
    verifyUrl: Type.Optional(Nullable(Uri)),
    issuedOn: DateTime,
    expiresOn: Type.Optional(Nullable(DateTime)),
    revokedAt: Type.Optional(Nullable(DateTime)),
    completionKey: Type.String(),
  },
  { $id: 'CredentialSummary' },
);

export const CredentialDetailSchema = Type.Object(
  {
    id: Type.String(),
    status: CredentialStatus,
    assertionUrl: Uri,
    badgeClassUrl: Uri,
    verifyUrl: Type.Optional(Nullable(Uri)),
    issuedOn: DateTime,
    expiresOn: Type.Optional(Nullable(DateTime)),
    revokedAt: Type.Optional(Nullable(DateTime)),
    revokedReason: Type.Optional(Nullable(Type.String())),
    completionKey: Type.String(),
    openBadgeCredentialUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'The same credential as a signed Open Badges 3.0 Verifiable Credential.',
      }),
    ),
  },
  { $id: 'CredentialDetail' },
);

export const CredentialPageSchema = Type.Object(
  {
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
    items: Type.Array(Type.Ref(CredentialSummarySchema)),
  },
  { $id: 'CredentialPage' },
);

export const IssuedCredentialSchema = Type.Object(
  {
    credentialId: Type.String(),
    assertionUrl: Uri,
    badgeClassUrl: Uri,
    created: Type.Boolean({ description: 'true when newly issued, false on idempotent replay' }),
    verifyUrl: Type.Optional(Nullable(Uri)),
    status: Type.Optional(CredentialStatus),
    openBadgeCredentialUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'The same credential as a signed Open Badges 3.0 Verifiable Credential.',
      }),
    ),
  },
  { $id: 'IssuedCredential' },
);
export type IssuedCredential = Static<typeof IssuedCredentialSchema>;

export const RevokeResultSchema = Type.Object(
  {
    credentialId: Type.String(),
    status: Type.Literal('revoked'),
    revokedAt: DateTime,
    revokedReason: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'RevokeResult' },
);

export const IssueCredentialBody = Type.Object({
  definitionId: Uuid,
  recipientEmail: Email,
  completionKey: CompletionKey,
  recipientName: Type.Optional(Text(200)),
  evidenceUrl: Type.Optional(WebUrl),
});

export const ListCredentialsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: PageOffset,
  status: Type.Optional(CredentialStatus),
  definitionId: Type.Optional(Type.String({ maxLength: 200 })),
});

export const RevokeBody = Type.Object({ reason: Type.Optional(Text(500)) });
export const ReissueBody = Type.Object({
  completionKey: Type.Optional(CompletionKey),
  evidenceUrl: Type.Optional(WebUrl),
});

export const credentialSchemas = [
  CredentialSummarySchema,
  CredentialDetailSchema,
  CredentialPageSchema,
  IssuedCredentialSchema,
  RevokeResultSchema,
];
