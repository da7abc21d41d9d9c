import { type Static, Type } from '@sinclair/typebox';
import { Email, Nullable, StringEnum } from '../../core/schemas.js';
import { LANGUAGES } from './notifications.messages.js';

const Language = StringEnum(LANGUAGES);
/** A display name for the From header: no control characters, so it can never add a header. */
const SenderName = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]+$' });

export const NotificationSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether this service can send email at all (SMTP_URL is configured).' }),
    notifyByDefault: Type.Boolean({ description: 'Notify earners when an issuing call does not say `notify`.' }),
    senderName: Nullable(Type.String({ description: 'From name; the issuer name when null.' })),
    replyTo: Nullable(Type.String({ description: "Reply-To address; the issuer's contact email when null." })),
    language: Language,
    languages: Type.Array(Language, { description: 'The languages notifications can be written in.' }),
  },
  { $id: 'NotificationSettings', additionalProperties: false },
);

export const UpdateNotificationSettingsBody = Type.Object(
  {
    notifyByDefault: Type.Optional(Type.Boolean()),
    senderName: Type.Optional(Nullable(SenderName)),
    replyTo: Type.Optional(Nullable(Email)),
    language: Type.Optional(Language),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateNotificationSettingsInput = Static<typeof UpdateNotificationSettingsBody>;

export const notificationSchemas = [NotificationSettingsSchema];
