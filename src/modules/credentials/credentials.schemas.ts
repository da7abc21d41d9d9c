import { type Static, Type } from '@sinclair/typebox';
import { LanguageTag } from '../../core/language.js';
import { DateTime, Email, Name, Nullable, PageOffset, StringEnum, Text, Uuid, WebUrl } from '../../core/schemas.js';

export const CredentialStatus = StringEnum(['valid', 'expired', 'revoked']);
export type CredentialStatus = Static<typeof CredentialStatus>;

const Uri = Type.String({ format: 'uri' });
export const CompletionKey = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Opaque: an LMS enrolment id or a random id. A key containing an email address is refused (400).',
});
/** Present (true) only when the recipientName given was not stored. */
export const RecipientNameDropped = Type.Boolean({
  description: 'true when the recipientName given was not stored because it contains an email address',
});

export const NotifyFlag = Type.Boolean({
  description: "Email the earner a link to the badge (the issuer's default when absent). Replays never notify.",
});
export const NotificationOutcomeSchema = StringEnum(['queued', 'suppressed', 'off'], {
  description:
    'queued: the earner is emailed behind this response; suppressed: the earner unsubscribed from this issuer, nothing is sent; off: this service has no SMTP server, nothing is sent',
});
const NotificationStatusSchema = Type.Object(
  {
    status: StringEnum(['queued', 'sent', 'failed', 'suppressed']),
    detail: Nullable(Type.String({ description: 'SMTP reply code or error code of a failure; never an address' })),
    reason: Nullable(
      Type.String({ description: 'Why a failed or suppressed message was not delivered, in a sentence; else null' }),
    ),
    updatedAt: DateTime,
  },
  { description: "What became of the earner's notification (absent when none was asked for)" },
);

/** Names are staff data within an issuer (design.md §4, Added 2026-11-27): the key holder sees them. */
const RecipientNameShown = Nullable(
  Type.String({ description: "The recipient's name as stored (null when none was given); never the email" }),
);

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
    recipientName: Type.Optional(RecipientNameShown),
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
    recipientName: Type.Optional(RecipientNameShown),
    notification: Type.Optional(NotificationStatusSchema),
    replacedBy: Type.Optional(
      Nullable(Type.String({ description: 'The credential that replaced this one (its newest reissue), if any' })),
    ),
    replaces: Type.Optional(
      Nullable(Type.String({ description: 'The credential this one was reissued from, if it is a replacement' })),
    ),
    openBadgeCredentialUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'The same credential as a signed Open Badges 3.0 Verifiable Credential.',
      }),
    ),
    language: Type.Optional(
      Nullable(
        Type.String({
          description:
            "The BCP 47 tag the credential was issued in (its documents, pages and emails use that translation); null: the definition's own language",
        }),
      ),
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
    recipientNameDropped: Type.Optional(RecipientNameDropped),
    notification: Type.Optional(NotificationOutcomeSchema),
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
  recipientName: Type.Optional(Name(200)),
  evidenceUrl: Type.Optional(WebUrl),
  language: Type.Optional(
    LanguageTag(
      "The language it is issued in (BCP 47, such as fr or de-CH): its documents carry the definition's translation into it, the definition's own text for any field not translated. Absent: the definition's own language.",
    ),
  ),
  notify: Type.Optional(NotifyFlag),
  expiresOn: Type.Optional({
    ...DateTime,
    description: "This credential's expiry, after its time of issue; without it the definition's validity gives one",
  }),
  ifAlreadyHeld: Type.Optional(
    StringEnum(['issue', 'refuse'], {
      description:
        'When the recipient already holds a valid credential of the definition under another completion key: issue (the default) issues another; refuse answers 409 already_held naming it. A known completionKey replays either way.',
    }),
  ),
});

export const ListCredentialsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: PageOffset,
  status: Type.Optional(CredentialStatus),
  definitionId: Type.Optional(Type.String({ maxLength: 200 })),
});

export const SearchCredentialsBody = Type.Object(
  {
    recipientEmail: Type.Optional({
      ...Email,
      description: "The earner's address: hashed with the issuer's salt for the lookup, never stored.",
    }),
    completionKey: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    recipientName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Part of the recipient\'s stored name, ignoring case and accents ("sean" finds Seán; the email search stays a hash lookup)',
      }),
    ),
    definitionId: Type.Optional(Type.String({ maxLength: 200 })),
    status: Type.Optional(CredentialStatus),
    issuedFrom: Type.Optional({ ...DateTime, description: 'Issued at or after this time' }),
    issuedTo: Type.Optional({ ...DateTime, description: 'Issued before this time' }),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    offset: PageOffset,
  },
  { additionalProperties: false },
);
export type CredentialSearch = Static<typeof SearchCredentialsBody>;

export const ExportCredentialsQuery = Type.Object(
  {
    status: Type.Optional(CredentialStatus),
    definitionId: Type.Optional(Type.String({ maxLength: 200 })),
    recipientName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "Part of the recipient's stored name, ignoring case and accents",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CredentialExportQuery = Static<typeof ExportCredentialsQuery>;

const WithinDays = Type.Integer({
  minimum: 1,
  maximum: 366,
  default: 30,
  description: 'Credentials expiring from now to this many days on (the console offers 30, 60 and 90)',
});

export const ExpiringCredentialsQuery = Type.Object(
  {
    withinDays: WithinDays,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    offset: PageOffset,
  },
  { additionalProperties: false },
);
export type ExpiringCredentialsQuery = Static<typeof ExpiringCredentialsQuery>;

export const ExportExpiringQuery = Type.Object({ withinDays: WithinDays }, { additionalProperties: false });
export type ExportExpiringQuery = Static<typeof ExportExpiringQuery>;

/** The most completion keys one renewal call takes, as a list or as CSV lines. */
export const RENEWALS_MAX = 1000;

export const RenewalsBody = Type.Object(
  {
    completionKeys: Type.Optional(Type.Array(CompletionKey, { minItems: 1, maxItems: RENEWALS_MAX })),
    csv: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1_000_000,
        description: `CSV with a header naming a completionKey column (also completion_key, "completion key" or key), as the expiring export writes it (the ' the export puts before a key starting with =, +, - or @ is taken off); at most ${RENEWALS_MAX} lines. An email column (email, recipientEmail, "Email Address") tells each earner of the renewal when the issuer notifies by default; an address that is not the credential's recipient is that line's error, and nothing is renewed for it.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    description: 'The completion keys to renew: completionKeys or csv, one of the two.',
  },
);
export type RenewalsInput = Static<typeof RenewalsBody>;

export const RenewalOutcome = StringEnum(['renewed', 'already_renewed', 'error']);
export const RenewalReportSchema = Type.Object(
  {
    renewed: Type.Integer(),
    alreadyRenewed: Type.Integer(),
    errors: Type.Integer(),
    rows: Type.Array(
      Type.Object({
        row: Type.Integer({ description: 'Position in the list, or the CSV line number' }),
        completionKey: Type.String(),
        outcome: RenewalOutcome,
        credentialId: Type.Optional(Type.String({ description: 'The renewed credential (the replacement)' })),
        replacedId: Type.Optional(Type.String({ description: 'The credential it replaces' })),
        expiresOn: Type.Optional(Nullable(DateTime)),
        message: Type.Optional(Type.String()),
      }),
    ),
  },
  { $id: 'RenewalReport' },
);
export type RenewalReport = Static<typeof RenewalReportSchema>;

export const RevokeBody = Type.Object({
  reason: Type.Optional({
    ...Text(500),
    description:
      'Published in the revoked assertion and kept on the credential and in the audit log after a GDPR erasure: a reason containing an email address is refused (400).',
  }),
});
export const ReissueBody = Type.Object({
  completionKey: Type.Optional(CompletionKey),
  evidenceUrl: Type.Optional(WebUrl),
  notify: Type.Optional(
    Type.Boolean({ description: 'Email the earner about the replacement; needs recipientEmail, which is not stored.' }),
  ),
  recipientEmail: Type.Optional({
    ...Email,
    description: "The earner's address, for notify only: it must hash to the credential's recipient.",
  }),
});

export const CorrectNameBody = Type.Object({
  recipientName: { ...Name(200), description: 'The name as it should be; the replacement carries it.' },
  completionKey: Type.Optional(CompletionKey),
  notify: Type.Optional(
    Type.Boolean({
      description: 'Email the earner the corrected credential; needs recipientEmail, which is not stored.',
    }),
  ),
  recipientEmail: Type.Optional({
    ...Email,
    description: "The earner's address, for notify only: it must hash to the credential's recipient.",
  }),
});

export const CredentialConflictSchema = Type.Object(
  {
    error: StringEnum(['already_held', 'credential_replaced', 'credential_revoked']),
    message: Type.String(),
    credentialId: Type.String({
      description: 'already_held: the credential the recipient holds; credential_replaced: the newest replacement.',
    }),
  },
  { $id: 'CredentialConflict', description: 'Refused: the credential named is in the way' },
);

export const credentialSchemas = [
  CredentialConflictSchema,
  CredentialSummarySchema,
  CredentialDetailSchema,
  CredentialPageSchema,
  IssuedCredentialSchema,
  RevokeResultSchema,
  RenewalReportSchema,
];
