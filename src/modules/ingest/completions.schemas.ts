import { type Static, Type } from '@sinclair/typebox';
import { LanguageTag } from '../../core/language.js';
import { DateTime, Email, Name, Nullable, Uuid, WebUrl } from '../../core/schemas.js';
import {
  CompletionKey,
  CredentialStatus,
  NotificationOutcomeSchema,
  NotifyFlag,
  RecipientNameDropped,
} from '../credentials/credentials.schemas.js';

const Uri = Type.String({ format: 'uri' });

export const IngestCompletionBody = Type.Object({
  recipientEmail: Email,
  definitionId: Type.Optional(Uuid),
  definitionRef: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The credential type by slug, else by case-insensitive name; used when there is no definitionId.',
    }),
  ),
  recipientName: Type.Optional(Name(200)),
  completionKey: Type.Optional(CompletionKey),
  issuedOn: Type.Optional(DateTime),
  evidenceUrl: Type.Optional(WebUrl),
  language: Type.Optional(
    LanguageTag("The language the credential is issued in (BCP 47); absent: the definition's own language."),
  ),
  notify: Type.Optional(NotifyFlag),
});
export type IngestCompletionBody = Static<typeof IngestCompletionBody>;

export const IngestResultSchema = Type.Object(
  {
    credentialId: Type.String(),
    assertionUrl: Uri,
    badgeClassUrl: Uri,
    created: Type.Boolean({ description: 'true when newly issued, false on idempotent replay' }),
    verifyUrl: Type.Optional(Nullable(Uri)),
    status: Type.Optional(CredentialStatus),
    recipientNameDropped: Type.Optional(RecipientNameDropped),
    notification: Type.Optional(NotificationOutcomeSchema),
    completionKey: Type.String({ description: 'As given, else the default auto: key.' }),
    outcome: Type.Unsafe<'issued' | 'skipped' | 'error'>({ type: 'string', enum: ['issued', 'skipped', 'error'] }),
  },
  { $id: 'IngestResult' },
);
export type IngestResult = Static<typeof IngestResultSchema>;
