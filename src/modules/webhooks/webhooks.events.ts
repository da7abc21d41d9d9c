import { type Static, Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import { type PublicUrls, publicUrls } from '../../core/urls.js';
import type { CredentialsTable } from '../../db/schema.js';
import type { Envelope, WebhookEvent } from './outbox.service.js';

/*
 * The `data` of every event. It carries ids, URLs, statuses and timestamps only: never an email, a
 * name, a recipient hash or evidence. These builders are the only way modules should shape it.
 * (credential.expiry_reminder_due adds the completion key: the issuer's own id for the record.)
 */

const nullableString = (description: string, format?: 'date-time' | 'uri') =>
  Type.Union([Type.String(format ? { format } : {}), Type.Null()], { description });

export const CredentialEventDataSchema = Type.Object(
  {
    credentialId: Type.String({ description: 'The credential (assertion) id.' }),
    definitionId: Type.String({ description: 'The credential definition (BadgeClass) id.' }),
    assertionUrl: Type.String({ format: 'uri', description: 'Resolvable Open Badges 2.0 Assertion URL.' }),
    badgeClassUrl: Type.String({ format: 'uri', description: 'Resolvable BadgeClass URL.' }),
    verifyUrl: nullableString('Human verification page.', 'uri'),
    status: Type.Union([Type.Literal('valid'), Type.Literal('expired'), Type.Literal('revoked')], {
      description: 'Effective status when the event occurred.',
    }),
    issuedOn: Type.String({ format: 'date-time' }),
    expiresOn: nullableString('When the credential expires; null when it never does.', 'date-time'),
    revokedAt: nullableString('When it was revoked; null when it is not.', 'date-time'),
    revokedReason: nullableString("The reason given at revocation (`reissued`, `gdpr_erasure` or the issuer's text)."),
    source: Type.String({
      description: 'How the credential entered the service (api, csv, ingest, connector:<provider>, reissue).',
    }),
    reissuedFrom: nullableString('The credential this one replaced, when it was reissued.'),
  },
  { additionalProperties: false },
);

export type CredentialEventData = Static<typeof CredentialEventDataSchema>;

export const VERIFICATION_CHANNELS = ['api', 'bulk', 'page'] as const;
export type VerificationChannel = (typeof VERIFICATION_CHANNELS)[number];

export const VerifiedEventDataSchema = Type.Composite(
  [
    CredentialEventDataSchema,
    Type.Object({
      channel: Type.Union(
        VERIFICATION_CHANNELS.map((c) => Type.Literal(c)),
        { description: 'Where the verification came from; premium verification is recorded as `api`.' },
      ),
    }),
  ],
  { additionalProperties: false },
);

export type VerifiedEventData = Static<typeof VerifiedEventDataSchema>;

/** Where a receiver of credential.expiry_reminder_due asks for the reminder email. */
export const REMINDERS_PATH = '/api/v1/notifications/reminders';

export const ReminderDueEventDataSchema = Type.Composite(
  [
    CredentialEventDataSchema,
    Type.Object({
      completionKey: Type.String({
        description:
          "The issuer's key for the completion (the LMS's own id for it, or the one the service made): look the earner up by it.",
      }),
      reminderDays: Type.Integer({
        minimum: 1,
        maximum: 365,
        description:
          "The issuer's expiryReminderDays when the event was sent: expiresOn is at most this many days away.",
      }),
      remindersUrl: Type.String({
        format: 'uri',
        description:
          'POST {"recipientEmails": [<the earner\'s address>]} here with an API key of the issuer to email the reminder (sent once per credential).',
      }),
    }),
  ],
  { additionalProperties: false },
);

export type ReminderDueEventData = Static<typeof ReminderDueEventDataSchema>;

/** The credential columns an event describes, with the slugs its public URLs are made of. */
export type CredentialEventRow = Pick<
  Selectable<CredentialsTable>,
  'id' | 'definition_id' | 'issued_on' | 'expires_on' | 'revoked_at' | 'revoked_reason' | 'source' | 'reissued_from'
> & { issuer_slug: string; definition_slug: string };

/** The credential columns credential.expiry_reminder_due describes. */
export type ReminderDueEventRow = CredentialEventRow &
  Pick<Selectable<CredentialsTable>, 'completion_key'> & { expires_on: string };

/** The URL builders an event needs (src/core/urls.ts publicUrls provides them). */
export type CredentialLinks = Pick<PublicUrls, 'assertion' | 'badgeClass' | 'verifyPage'>;

/**
 * `data` of credential.issued, .revoked, .reissued and .expired: the credential as it is at `now`
 * (the moment of the event), with its effective status then.
 */
export function credentialEventData(links: CredentialLinks, row: CredentialEventRow, now: Date): CredentialEventData {
  const at = now.toISOString();
  const status =
    row.revoked_at !== null ? 'revoked' : row.expires_on !== null && row.expires_on <= at ? 'expired' : 'valid';
  return {
    credentialId: row.id,
    definitionId: row.definition_id,
    assertionUrl: links.assertion(row.issuer_slug, row.id),
    badgeClassUrl: links.badgeClass(row.issuer_slug, row.definition_slug),
    verifyUrl: links.verifyPage(row.issuer_slug, row.id),
    status,
    issuedOn: row.issued_on,
    expiresOn: row.expires_on,
    revokedAt: row.revoked_at,
    revokedReason: row.revoked_reason,
    source: row.source,
    reissuedFrom: row.reissued_from,
  };
}

/** `data` of credential.verified: the credential as the verifier saw it, plus the channel. */
export function verifiedEventData(
  links: CredentialLinks,
  row: CredentialEventRow,
  now: Date,
  channel: VerificationChannel,
): VerifiedEventData {
  return { ...credentialEventData(links, row, now), channel };
}

/**
 * `data` of credential.expiry_reminder_due: the credential at `now`, its completion key, the lead
 * time that made it due and the absolute URL of the reminders call.
 */
export function reminderDueEventData(
  links: CredentialLinks,
  row: ReminderDueEventRow,
  now: Date,
  reminder: { days: number; url: string },
): ReminderDueEventData {
  return {
    ...credentialEventData(links, row, now),
    completionKey: row.completion_key,
    reminderDays: reminder.days,
    remindersUrl: reminder.url,
  };
}

/** The documented schema of each event's `data`. */
export const EVENT_DATA_SCHEMAS = {
  'credential.issued': CredentialEventDataSchema,
  'credential.revoked': CredentialEventDataSchema,
  'credential.reissued': CredentialEventDataSchema,
  'credential.expired': CredentialEventDataSchema,
  'credential.expiry_reminder_due': ReminderDueEventDataSchema,
  'credential.verified': VerifiedEventDataSchema,
} satisfies Record<WebhookEvent, unknown>;

export const EVENT_DESCRIPTIONS: Record<WebhookEvent, string> = {
  'credential.issued':
    'A credential was issued (single issue, ingest, CSV import or connector). Replays of an existing completion key do not emit it.',
  'credential.revoked':
    'A credential was revoked: by the issuer, by a reissue (revokedReason `reissued`) or by a GDPR erasure (`gdpr_erasure`).',
  'credential.reissued':
    'A credential was reissued. The data describes the new credential; reissuedFrom names the one it replaces, which also gets credential.revoked.',
  'credential.expired':
    'A credential reached its expiresOn without being revoked. Sent once per credential by the expiry sweeper, shortly after the moment passes.',
  'credential.expiry_reminder_due':
    'A live credential (not revoked, not replaced) is now expiryReminderDays or fewer from its expiresOn, for an issuer with expiryReminders on. Sent once per credential by the expiry sweeper. The service keeps no addresses: look the earner up by completionKey and POST their address to remindersUrl, which emails the reminder once.',
  'credential.verified':
    'A credential was verified through the API, bulk verification or the verification page. Unknown ids emit nothing.',
};

const SAMPLE_AT = new Date('2026-03-02T09:30:00.000Z');

/** A realistic envelope for each event, built by the same builders the modules use. */
export function sampleEnvelopes(publicBaseUrl: string): Record<WebhookEvent, Envelope> {
  const links = publicUrls(publicBaseUrl);
  const issued: CredentialEventRow = {
    id: '3f6c2a1e-8b4d-4c8e-9a57-1d2e3f4a5b6c',
    definition_id: '9b2e7c44-0f1a-4d3b-8c6e-5a4b3c2d1e0f',
    issuer_slug: 'northwind-academy',
    definition_slug: 'data-literacy-foundations',
    issued_on: '2026-03-02T09:29:58.412Z',
    expires_on: '2027-03-02T09:29:58.412Z',
    revoked_at: null,
    revoked_reason: null,
    source: 'api',
    reissued_from: null,
  };
  const envelope = (
    event: WebhookEvent,
    id: string,
    data: CredentialEventData | VerifiedEventData | ReminderDueEventData,
  ): Envelope => ({
    id,
    event,
    occurredAt: SAMPLE_AT.toISOString(),
    data,
  });
  return {
    'credential.issued': envelope(
      'credential.issued',
      '0d9a8b7c-1e2f-4a3b-9c4d-5e6f7a8b9c0d',
      credentialEventData(links, issued, SAMPLE_AT),
    ),
    'credential.revoked': envelope(
      'credential.revoked',
      '1e0b9c8d-2f3a-4b4c-8d5e-6f7a8b9c0d1e',
      credentialEventData(
        links,
        { ...issued, revoked_at: SAMPLE_AT.toISOString(), revoked_reason: 'Issued to the wrong cohort' },
        SAMPLE_AT,
      ),
    ),
    'credential.reissued': envelope(
      'credential.reissued',
      '2f1c0d9e-3a4b-4c5d-9e6f-7a8b9c0d1e2f',
      credentialEventData(
        links,
        {
          ...issued,
          id: 'c81d4e2f-6a7b-4c9d-8e0f-1a2b3c4d5e6f',
          issued_on: SAMPLE_AT.toISOString(),
          expires_on: '2027-03-02T09:30:00.000Z',
          source: 'reissue',
          reissued_from: issued.id,
        },
        SAMPLE_AT,
      ),
    ),
    'credential.expired': envelope(
      'credential.expired',
      '3a2d1e0f-4b5c-4d6e-8f7a-8b9c0d1e2f3a',
      credentialEventData(
        links,
        { ...issued, issued_on: '2025-03-01T09:00:00.000Z', expires_on: '2026-03-01T09:00:00.000Z' },
        SAMPLE_AT,
      ),
    ),
    'credential.expiry_reminder_due': envelope(
      'credential.expiry_reminder_due',
      '5c4f3a2b-6d7e-4f8a-9b0c-0d1e2f3a4b5c',
      reminderDueEventData(
        links,
        {
          ...issued,
          issued_on: '2025-04-01T09:00:00.000Z',
          expires_on: '2026-04-01T09:00:00.000Z',
          completion_key: 'lms-enrolment-48213',
        },
        SAMPLE_AT,
        { days: 30, url: `${publicBaseUrl}${REMINDERS_PATH}` },
      ),
    ),
    'credential.verified': envelope(
      'credential.verified',
      '4b3e2f1a-5c6d-4e7f-9a8b-9c0d1e2f3a4b',
      verifiedEventData(links, issued, SAMPLE_AT, 'page'),
    ),
  };
}
