import { Type } from '@sinclair/typebox';
import { DateTime, Email, Nullable } from '../../core/schemas.js';
import { CredentialStatus } from '../credentials/credentials.schemas.js';

export const RecipientBody = Type.Object({
  recipientEmail: Email,
});

export const RecipientExportSchema = Type.Object(
  {
    found: Type.Boolean({ description: 'The recipient has a credential or an earner profile at this issuer' }),
    recipientHash: Type.String({ description: "Salted SHA-256 (hex) of the normalised email with the issuer's salt" }),
    displayName: Type.Optional(Nullable(Type.String({ description: 'The most recently stored name, if any' }))),
    credentials: Type.Array(
      Type.Object({
        id: Type.String(),
        status: CredentialStatus,
        definitionId: Type.String(),
        assertionUrl: Type.String({ format: 'uri' }),
        issuedOn: DateTime,
        expiresOn: Nullable(DateTime),
        revokedAt: Nullable(DateTime),
        completionKey: Type.String(),
      }),
    ),
  },
  { $id: 'RecipientExport' },
);

export const RecipientErasureSchema = Type.Object(
  {
    found: Type.Boolean({ description: 'The recipient had a credential or an earner profile at this issuer' }),
    revoked: Type.Integer({ description: 'Credentials this request revoked (0 when repeated)' }),
    credentialIds: Type.Array(Type.String(), {
      description: 'Every credential of the recipient at this issuer: all now revoked and without a name',
    }),
  },
  { $id: 'RecipientErasure' },
);

export const gdprSchemas = [RecipientExportSchema, RecipientErasureSchema];
