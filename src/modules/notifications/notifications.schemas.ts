import { type Static, Type } from '@sinclair/typebox';
import { Email, Nullable, StringEnum, WEB_URL_PATTERN } from '../../core/schemas.js';
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
    expiryReminders: Type.Boolean({
      description:
        'Whether expiry reminders can be sent (off until turned on). The addresses come with each POST /api/v1/notifications/reminders: none is stored.',
    }),
    expiryReminderDays: Type.Integer({ description: 'A credential is due its reminder this many days before expiry.' }),
    reminderNote: Nullable(
      Type.String({ description: "The issuer's own text in every expiry reminder, shown as written (plain text)." }),
    ),
    reminderLink: Nullable(
      Type.String({ description: 'The renewal or re-enrolment page (https) every expiry reminder links to.' }),
    ),
  },
  { $id: 'NotificationSettings', additionalProperties: false },
);

/** The reminder's own text: plain text, line breaks kept, no other control characters. */
export const REMINDER_NOTE_MAX = 1000;
const ReminderNote = Type.String({
  maxLength: REMINDER_NOTE_MAX,
  pattern: '^[^\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f]*$',
});

/** Expiry reminder lead time, in days. */
const ReminderDays = Type.Integer({ minimum: 1, maximum: 365 });

export const UpdateNotificationSettingsBody = Type.Object(
  {
    notifyByDefault: Type.Optional(Type.Boolean()),
    senderName: Type.Optional(Nullable(SenderName)),
    replyTo: Type.Optional(Nullable(Email)),
    language: Type.Optional(Language),
    expiryReminders: Type.Optional(Type.Boolean()),
    expiryReminderDays: Type.Optional(ReminderDays),
    reminderNote: Type.Optional(Nullable(ReminderNote)),
    reminderLink: Type.Optional(
      Nullable(
        Type.String({
          format: 'uri',
          pattern: WEB_URL_PATTERN,
          maxLength: 2048,
          description: 'An https URL; http is refused (the earner follows it from an email).',
        }),
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateNotificationSettingsInput = Static<typeof UpdateNotificationSettingsBody>;

export const PreviewQuery = Type.Object(
  {
    kind: Type.Optional(
      StringEnum(['award', 'reminder'], { description: 'The award message (the default) or the expiry reminder' }),
    ),
    definitionId: Type.Optional(
      Type.String({
        maxLength: 100,
        description: "The definition to show; a sample badge when absent (the console's).",
      }),
    ),
  },
  { additionalProperties: false },
);

export const NotificationPreviewSchema = Type.Object(
  {
    subject: Type.String(),
    html: Type.String({ description: 'The HTML part, as sent (links point at an example credential)' }),
    text: Type.String({ description: 'The plain-text part, as sent' }),
  },
  { additionalProperties: false },
);

/** The most addresses one reminders call takes. */
export const REMINDER_RECIPIENTS_MAX = 1000;

export const SendRemindersBody = Type.Object(
  {
    recipientEmails: Type.Array(Email, {
      minItems: 1,
      maxItems: REMINDER_RECIPIENTS_MAX,
      description:
        "Earners' addresses, as in the issuer's roster. Each is hashed for the lookup and held in memory until its reminder is sent; none is stored.",
    }),
  },
  { additionalProperties: false },
);

export const ReminderReportSchema = Type.Object(
  {
    emailOff: Type.Boolean({
      description: 'true when this service has no SMTP server: nothing was claimed or sent, the credentials stay due',
    }),
    recipients: Type.Integer({ description: 'Distinct addresses given' }),
    queued: Type.Integer({ description: 'Reminders queued, one per credential due' }),
    suppressed: Type.Integer({ description: 'Reminders not sent: the earner unsubscribed' }),
    nothingDue: Type.Integer({
      description: 'Addresses with no credential due: none expiring within the lead time, or reminded already',
    }),
  },
  { additionalProperties: false },
);

export const RemindersDueSchema = Type.Object(
  {
    on: Type.Boolean({ description: 'Whether the issuer turned expiry reminders on' }),
    withinDays: Type.Integer({ description: 'The lead time in days' }),
    due: Type.Integer({ description: 'Live credentials expiring within the lead time that were never reminded' }),
  },
  { additionalProperties: false },
);
export const ResendBody = Type.Object(
  {
    recipientEmail: {
      ...Email,
      description:
        "The earner's address (the service keeps none): it must be the credential's recipient, checked by hash, and is held in memory until the message is sent.",
    },
  },
  { additionalProperties: false },
);

export const ResendResultSchema = Type.Object(
  {
    credentialId: Type.String(),
    notification: StringEnum(['queued', 'suppressed', 'off'], {
      description:
        'queued: the email is sent behind this response; suppressed: the earner unsubscribed from this issuer, nothing is sent; off: this service has no SMTP server, nothing is sent',
    }),
  },
  { additionalProperties: false },
);

export const notificationSchemas = [NotificationSettingsSchema];
