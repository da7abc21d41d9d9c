import type { Generated } from 'kysely';

/*
 * Table types shared by both dialects. Timestamps are ISO 8601 UTC strings with milliseconds
 * ("2026-11-21T10:00:00.000Z") on both engines: they sort as text, and a UTC day is substr(ts, 1, 10).
 * Booleans are integers 0/1 and JSON columns are text, so rows look the same on SQLite and PostgreSQL.
 */

export interface PlansTable {
  code: string;
  name: string;
  issuance_quota: number | null;
  premium_verification: number;
  requests_per_minute: number;
}

export interface IssuersTable {
  id: string;
  slug: string;
  name: string;
  url: string;
  email: string;
  description: string | null;
  image_url: string | null;
  brand_primary_color: string | null;
  brand_logo_url: string | null;
  plan_code: string;
  recipient_salt: string;
  created_at: string;
  updated_at: string;
  /** The issuer's default language, a canonical BCP 47 tag (migration 0100). */
  language: Generated<string>;
  /** The issuer's LinkedIn organization id (add-to-profile link, OB 3.0 otherIdentifier). */
  linkedin_organization_id: string | null;
}

export interface ApiKeysTable {
  id: string;
  issuer_id: string;
  key_hash: string;
  prefix: string;
  label: string | null;
  created_at: string;
  /** Set when revoked; a time in the future is a rotation grace period. */
  revoked_at: string | null;
  /** The key this one was made to replace by a rotation (migration 0061); null for a fresh key. */
  rotated_from: string | null;
}

export interface DefinitionsTable {
  id: string;
  issuer_id: string;
  slug: string;
  name: string;
  description: string;
  criteria_narrative: string | null;
  criteria_url: string | null;
  image_url: string | null;
  tags: string;
  skills: string;
  expires_after_days: number | null;
  /** Calendar months; at most one of this and expires_after_days is set. */
  expires_after_months: number | null;
  status: string;
  created_at: string;
  updated_at: string;
  /** The language of the definition's own text, a canonical BCP 47 tag (migration 0100). */
  language: Generated<string>;
  /** OB 3.0 AchievementType: a term of its vocabulary or an `ext:` value. */
  achievement_type: string | null;
  credits_available: number | null;
  field_of_study: string | null;
  specialization: string | null;
  human_code: string | null;
  /** The issuer's own version string. */
  version: string | null;
  /** This service's version count: 1, plus one per edit of shown text after a credential was issued. */
  version_number: Generated<number>;
}

/** One definition's text in one language (migration 0100). */
export interface DefinitionTranslationsTable {
  issuer_id: string;
  definition_id: string;
  lang: string;
  name: string;
  description: string;
  criteria_narrative: string | null;
  certificate_title: string | null;
  certificate_wording: string | null;
  created_at: string;
  updated_at: string;
}

/** What a definition showed while `version_number` was current, until `superseded_at` (migration 0100). */
export interface DefinitionVersionsTable {
  issuer_id: string;
  definition_id: string;
  version_number: number;
  /** JSON: a DefinitionSnapshot (src/modules/definitions/definition-versions.ts). */
  snapshot: string;
  superseded_at: string;
}

export interface CredentialsTable {
  id: string;
  issuer_id: string;
  definition_id: string;
  recipient_hash: string;
  display_name: string | null;
  completion_key: string;
  issued_on: string;
  expires_on: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
  evidence_url: string | null;
  reissued_from: string | null;
  source: string;
  expiry_announced_at: string | null;
  created_at: string;
  /** The language the credential was issued in (migration 0100); null: the definition's own. */
  language: string | null;
  /** The import batch that issued it (migration 0145); null for every other channel. */
  import_batch_id: string | null;
}

export interface UsageCountersTable {
  issuer_id: string;
  period: string;
  /** Unlimited plans spread their count over stripes so concurrent issuance never queues on one row. */
  stripe: number;
  issuance: number;
  premium_verification: number;
}

export interface ImportBatchesTable {
  id: string;
  issuer_id: string;
  source: string;
  filename: string | null;
  total: number;
  issued: number;
  skipped: number;
  errored: number;
  created_at: string;
  /** JSON: the entries not issued cleanly (ImportBatchEntry[]); null for batches kept before 0050. */
  report: string | null;
}

export interface AuditLogTable {
  id: string;
  issuer_id: string;
  /** Which of the issuer's hash chains the record belongs to (chosen by target id). */
  stripe: number;
  seq: number;
  occurred_at: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  details: string;
  prev_hash: string;
  hash: string;
}

export interface AuditHeadsTable {
  issuer_id: string;
  stripe: number;
  seq: number;
  hash: string;
}

export interface VerificationEventsTable {
  id: Generated<number>;
  issuer_id: string;
  credential_id: string;
  channel: string;
  country: string;
  occurred_at: string;
}

export interface EngagementEventsTable {
  id: Generated<number>;
  issuer_id: string;
  credential_id: string;
  action: string;
  country: string;
  occurred_at: string;
}

export interface ProfilesTable {
  id: string;
  issuer_id: string;
  recipient_hash: string;
  created_at: string;
}

export interface PathwaysTable {
  id: string;
  issuer_id: string;
  slug: string;
  name: string;
  description: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface PathwayStagesTable {
  id: string;
  issuer_id: string;
  pathway_id: string;
  definition_id: string;
  step_order: number;
  required: number;
  created_at: string;
}

export interface EndorsementsTable {
  id: string;
  issuer_id: string;
  target_type: string;
  target_id: string;
  endorser_name: string;
  endorser_url: string | null;
  claim: string;
  created_at: string;
}

export interface AlignmentsTable {
  id: string;
  issuer_id: string;
  definition_id: string;
  target_name: string;
  target_url: string;
  target_framework: string | null;
  target_code: string | null;
  target_description: string | null;
  created_at: string;
  /** OB 3.0 AlignmentTargetType (migration 0100). */
  target_type: string | null;
}

export interface WebhookSubscriptionsTable {
  id: string;
  issuer_id: string;
  url: string;
  events: string;
  secret: string;
  created_at: string;
  deleted_at: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  issuer_id: string;
  subscription_id: string;
  event: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface NotificationSettingsTable {
  issuer_id: string;
  notify_by_default: number;
  sender_name: string | null;
  reply_to: string | null;
  language: string;
  updated_at: string;
  /** 1 when the issuer sends expiry reminders (migration 0062). */
  expiry_reminders: number;
  /** Days before expiry a reminder is due, 1..365. */
  expiry_reminder_days: number;
  /** The issuer's own text in each expiry reminder (migration 0110). */
  reminder_note: string | null;
  /** The https renewal or re-enrolment link of each expiry reminder (migration 0110). */
  reminder_link: string | null;
}

/** The expiry reminder of a credential, claimed once (migration 0062); no address. */
export interface CredentialRemindersTable {
  credential_id: string;
  issuer_id: string;
  recipient_hash: string;
  /** queued | sent | failed | suppressed */
  status: string;
  detail: string | null;
  unsubscribe_token_hash: string | null;
  created_at: string;
  updated_at: string;
}

/** An earner email sent again on the issuer's request (migration 0111); no address. */
export interface CredentialResendsTable {
  id: string;
  issuer_id: string;
  credential_id: string;
  recipient_hash: string;
  /** queued | sent | failed | suppressed */
  status: string;
  detail: string | null;
  /** The message repeated: award, renewal, reissue, correction or reminder; null: an award (migration 0155). */
  kind: string | null;
  unsubscribe_token_hash: string | null;
  created_at: string;
  updated_at: string;
}

/** A credential whose `credential.expiry_reminder_due` webhook was announced, once (migration 0066). */
export interface CredentialReminderAnnouncementsTable {
  credential_id: string;
  issuer_id: string;
  announced_at: string;
}

/** What happened to a credential's notification; the address itself is never stored. */
export interface CredentialNotificationsTable {
  credential_id: string;
  issuer_id: string;
  recipient_hash: string;
  /** queued | sent | failed | suppressed */
  status: string;
  detail: string | null;
  attempts: number;
  unsubscribe_token_hash: string | null;
  created_at: string;
  updated_at: string;
}

export interface NotificationSuppressionsTable {
  issuer_id: string;
  recipient_hash: string;
  /** unsubscribed | gdpr_erasure */
  reason: string;
  created_at: string;
}

/** An issuer's Ed25519 signing key (Open Badges 3.0); the private key only sealed. */
export interface SigningKeysTable {
  issuer_id: string;
  version: number;
  public_key_multibase: string;
  private_key_sealed: string;
  created_at: string;
}

/** A credential's status list position and, once first fetched, its signed OB 3.0 forms. */
export interface VcCredentialsTable {
  credential_id: string;
  issuer_id: string;
  status_position: number;
  key_version: number | null;
  data_integrity: string | null;
  jwt: string | null;
  signed_at: string | null;
}

/** An EndorsementCredential an issuer of this service signed for another issuer's definition (0057). */
export interface EndorsementCredentialsTable {
  id: string;
  endorser_issuer_id: string;
  endorsed_issuer_id: string;
  definition_id: string;
  claim: string;
  status_position: number;
  key_version: number;
  credential: string;
  created_at: string;
  revoked_at: string | null;
  /** The endorsed issuer's decision (0070): pending, accepted, rejected or removed. */
  status: string;
  decided_at: string | null;
}

export interface VcEndorsementsTable {
  endorsement_id: string;
  issuer_id: string;
  key_version: number;
  credential: string;
  signed_at: string;
}

export interface VcStatusListsTable {
  issuer_id: string;
  list: number;
  revoked_digest: string;
  credential: string;
  signed_at: string;
}

/** An issuer's OpenID Connect provider for console sign-in (migration 0064). */
export interface ConsoleSsoTable {
  issuer_id: string;
  provider_name: string;
  issuer_url: string;
  client_id: string;
  /** AES-256-GCM under the signing keys' key-encryption key, bound to the issuer. */
  client_secret_sealed: string;
  allowed_domain: string | null;
  /** 1: the issuer's users may also sign in with a password; 0: only through the provider. */
  password_sign_in: number;
  updated_at: string;
}

/** A console user: an issuer's staff member. `password_hash` is null until the invite is accepted. */
export interface ConsoleUsersTable {
  id: string;
  issuer_id: string;
  email: string;
  role: string;
  password_hash: string | null;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

export interface ConsoleInvitesTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ConsoleSessionsTable {
  token_hash: string;
  user_id: string;
  /** The SHA-256 (hex) of the session's CSRF token (0071); the token itself is never stored. */
  csrf_token: string;
  /** How the session was opened: `password` or `sso` (0071). */
  method: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute end; the idle end is last_seen_at plus the idle timeout. */
  expires_at: string;
}

/** An uploaded image: a PNG as uploaded or a sanitised SVG. */
export interface ImagesTable {
  id: string;
  issuer_id: string;
  content_type: string;
  bytes: Buffer;
  created_at: string;
}

export interface CertificateDesignsTable {
  issuer_id: string;
  /** 'issuer' for the issuer's default, else the definition's id. */
  target: string;
  design: string;
  version: number;
  updated_at: string;
  updated_by: string;
}

export interface WalletOffersTable {
  id: string;
  issuer_id: string;
  credential_id: string;
  /** `api` (an LMS shows it) or `email` (the notification carries it). */
  channel: string;
  code_hash: string;
  tx_code_hash: string | null;
  /** Transaction codes checked against the offer, each counted before it is compared (OpenID4VCI). */
  tx_code_failures: Generated<number>;
  /** Presentations checked against the LCW challenge, each counted before its proof is (0067). */
  lcw_attempts: Generated<number>;
  /** The Learner Credential Wallet exchange's challenge (migration 0058_wallet_offers_lcw). */
  challenge_hash: string | null;
  created_at: string;
  expires_at: string;
  redeemed_at: string | null;
  access_token_hash: string | null;
  access_token_expires_at: string | null;
  /** The credential configuration ids already issued with the access token, comma-separated. */
  issued_formats: Generated<string>;
}

export interface WalletNoncesTable {
  nonce_hash: string;
  expires_at: string;
}

export interface DB {
  plans: PlansTable;
  issuers: IssuersTable;
  api_keys: ApiKeysTable;
  definitions: DefinitionsTable;
  definition_translations: DefinitionTranslationsTable;
  definition_versions: DefinitionVersionsTable;
  credentials: CredentialsTable;
  usage_counters: UsageCountersTable;
  import_batches: ImportBatchesTable;
  audit_log: AuditLogTable;
  audit_heads: AuditHeadsTable;
  verification_events: VerificationEventsTable;
  engagement_events: EngagementEventsTable;
  profiles: ProfilesTable;
  pathways: PathwaysTable;
  pathway_stages: PathwayStagesTable;
  endorsements: EndorsementsTable;
  alignments: AlignmentsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  notification_settings: NotificationSettingsTable;
  credential_notifications: CredentialNotificationsTable;
  credential_reminders: CredentialRemindersTable;
  credential_resends: CredentialResendsTable;
  credential_reminder_announcements: CredentialReminderAnnouncementsTable;
  notification_suppressions: NotificationSuppressionsTable;
  signing_keys: SigningKeysTable;
  vc_credentials: VcCredentialsTable;
  vc_status_lists: VcStatusListsTable;
  console_users: ConsoleUsersTable;
  console_invites: ConsoleInvitesTable;
  console_sessions: ConsoleSessionsTable;
  console_sso: ConsoleSsoTable;
  images: ImagesTable;
  vc_endorsements: VcEndorsementsTable;
  endorsement_credentials: EndorsementCredentialsTable;
  wallet_offers: WalletOffersTable;
  wallet_nonces: WalletNoncesTable;
  certificate_designs: CertificateDesignsTable;
}
