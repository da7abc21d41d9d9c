import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Email, Nullable, StringEnum } from '../../core/schemas.js';
import { CredentialStatus } from '../credentials/credentials.schemas.js';

export const RecipientBody = Type.Object({
  recipientEmail: Email,
});

const Message = Type.Object({
  credentialId: Type.String(),
  kind: StringEnum(['award', 'reminder'], {
    description: 'award: the email telling them of the credential; reminder: the expiry reminder',
  }),
  status: Type.String({ description: 'queued | sent | failed | suppressed' }),
  reason: Nullable(Type.String({ description: 'Why a failed or suppressed message was not delivered' })),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const RecipientExportSchema = Type.Object(
  {
    found: Type.Boolean({ description: 'The recipient has a credential or an earner profile at this issuer' }),
    recipientHash: Type.String({ description: "Salted SHA-256 (hex) of the normalised email with the issuer's salt" }),
    displayName: Type.Optional(Nullable(Type.String({ description: 'The most recently stored name, if any' }))),
    exportedAt: DateTime,
    issuer: Type.Object(
      { name: Type.String(), url: Type.String(), email: Type.String() },
      { description: 'Who holds the data: the issuer and its contact address' },
    ),
    profiles: Type.Integer({ description: 'Earner profiles (public badge pages) held for the recipient' }),
    notificationsSuppressed: Nullable(
      Type.Object(
        { reason: Type.String({ description: 'unsubscribed | gdpr_erasure' }), since: DateTime },
        { description: 'The recipient asked for no more emails from this issuer' },
      ),
    ),
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
        badge: Type.Object({ name: Type.String(), description: Type.String() }),
        recipientName: Nullable(Type.String({ description: 'The name as stored on this credential' })),
        verifyUrl: Type.String({ format: 'uri', description: 'The public verification page' }),
        openBadgeCredentialUrl: Type.String({ format: 'uri', description: 'The Open Badges 3.0 credential' }),
        revokedReason: Nullable(Type.String()),
        evidenceUrl: Nullable(Type.String()),
        reissuedFrom: Nullable(Type.String({ description: 'The credential this one replaced' })),
        replacedBy: Nullable(Type.String({ description: 'The credential that replaced this one' })),
        source: Type.String({ description: 'How it was issued: api, csv, connector, ...' }),
        recordedAt: DateTime,
        notifications: Type.Array(Message, { description: 'Every email about this credential, oldest first' }),
      }),
    ),
    audit: Type.Array(
      Type.Object({
        occurredAt: DateTime,
        action: Type.String(),
        actor: Type.String({ description: "The kind of actor; staff members' addresses and key labels are left out" }),
        targetType: Type.String(),
        targetId: Type.String(),
        details: Type.Object({}, { additionalProperties: true }),
      }),
      { description: "The audit records about the recipient's credentials, oldest first" },
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

export type RecipientExport = Static<typeof RecipientExportSchema>;
