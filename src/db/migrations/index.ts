import type { Migration } from 'kysely';
import type { Dialect } from '../types.js';
import { initialMigration } from './0001_initial.js';
import { webhooksMigration } from './0006_webhooks.js';
import { reportsMigration } from './0008_reports.js';
import { reportSummariesMigration } from './0009_report_summaries.js';
import { credentialCountsMigration } from './0010_credential_counts.js';
import { verifiedCredentialDaysMigration } from './0011_verified_credential_days.js';
import { credentialCountDeltasMigration } from './0012_credential_count_deltas.js';
import { namesWithoutEmailsMigration } from './0015_names_without_emails.js';
import { signingKeysMigration } from './0020_signing_keys.js';
import { notificationsMigration } from './0021_notifications.js';
import { reissuedFromIndexMigration } from './0022_reissued_from_index.js';
import { consoleAccountsMigration } from './0023_console_accounts.js';
import { imagesMigration } from './0025_images.js';
import { vcEndorsementsMigration } from './0026_vc_endorsements.js';
import { auditTargetMigration } from './0028_audit_target.js';
import { issueFunctionMigration } from './0029_issue_function.js';
import { pathwayRecipientsIndexMigration } from './0030_pathway_recipients_index.js';
import { pathwayRecipientsRollupMigration } from './0031_pathway_recipients_rollup.js';
import { importReportsMigration } from './0050_import_reports.js';
import { replacementOrderIndexMigration } from './0051_replacement_order_index.js';
import { issueInOneStatementMigration } from './0052_issue_in_one_statement.js';
import { readCacheNotifyMigration } from './0053_read_cache_notify.js';
import { signedCredentialNotifyMigration } from './0054_signed_credential_notify.js';
import { keyCacheNotifyMigration } from './0055_key_cache_notify.js';
import { issueInsertFirstMigration } from './0056_issue_insert_first.js';
import { endorsementCredentialsMigration } from './0057_endorsement_credentials.js';
import { walletOffersMigration } from './0058_wallet_offers.js';
import { walletOffersLcwMigration } from './0058_wallet_offers_lcw.js';
import { consoleEmailPerIssuerMigration } from './0059_console_email_per_issuer.js';
import { apiKeyRotatedFromMigration } from './0061_api_key_rotated_from.js';
import { expiryRemindersMigration } from './0062_expiry_reminders.js';
import { definitionValidityMonthsMigration } from './0063_definition_validity_months.js';
import { consoleSsoMigration } from './0064_console_sso.js';
import { issueDefinitionMonthsMigration } from './0065_issue_definition_months.js';
import { reminderDueAnnouncementsMigration } from './0066_reminder_due_announcements.js';
import { walletLcwAttemptsMigration } from './0067_wallet_lcw_attempts.js';
import { endorsementConsentMigration } from './0070_endorsement_consent.js';
import { consoleSessionHardeningMigration } from './0071_console_session_hardening.js';
import { ltiMigration } from './0080_lti.js';
import { certificatesMigration } from './0085_certificates.js';
import { earnerAccountsMigration } from './0090_earner_accounts.js';
import { obApiMigration } from './0091_ob_api.js';
import { translationsAndMetadataMigration } from './0100_translations_and_metadata.js';
import { reminderExtrasMigration } from './0110_reminder_extras.js';
import { notificationResendsMigration } from './0111_notification_resends.js';
import { certificateLinksMigration } from './0120_certificate_links.js';
import { earnerImportsMigration } from './0125_earner_imports.js';
import { clrCredentialsMigration } from './0130_clr_credentials.js';
import { ltiIssuerToolKeysMigration } from './0135_lti_issuer_tool_keys.js';
import { credentialImportBatchMigration } from './0145_credential_import_batch.js';
import { upsertedChecksMigration } from './0150_upserted_checks.js';
import { earnerCollectionsMigration } from './0151_earner_collections.js';
import { resendKindMigration } from './0155_resend_kind.js';
import { earnerSendMigration } from './0160_earner_send.js';

/** Every forward-only migration, by name, in the order they run. A new migration is added here. */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': initialMigration(dialect),
    '0006_webhooks': webhooksMigration(),
    '0008_reports': reportsMigration(),
    '0009_report_summaries': reportSummariesMigration(),
    '0010_credential_counts': credentialCountsMigration(dialect),
    '0011_verified_credential_days': verifiedCredentialDaysMigration(),
    '0012_credential_count_deltas': credentialCountDeltasMigration(dialect),
    '0015_names_without_emails': namesWithoutEmailsMigration(),
    '0020_signing_keys': signingKeysMigration(),
    '0021_notifications': notificationsMigration(),
    '0022_reissued_from_index': reissuedFromIndexMigration(),
    '0023_console_accounts': consoleAccountsMigration(),
    '0025_images': imagesMigration(dialect),
    '0026_vc_endorsements': vcEndorsementsMigration(),
    '0028_audit_target': auditTargetMigration(),
    '0029_issue_function': issueFunctionMigration(dialect),
    '0030_pathway_recipients_index': pathwayRecipientsIndexMigration(),
    '0031_pathway_recipients_rollup': pathwayRecipientsRollupMigration(),
    '0050_import_reports': importReportsMigration(),
    '0051_replacement_order_index': replacementOrderIndexMigration(),
    '0052_issue_in_one_statement': issueInOneStatementMigration(dialect),
    '0053_read_cache_notify': readCacheNotifyMigration(dialect),
    '0054_signed_credential_notify': signedCredentialNotifyMigration(dialect),
    '0055_key_cache_notify': keyCacheNotifyMigration(dialect),
    '0056_issue_insert_first': issueInsertFirstMigration(dialect),
    '0057_endorsement_credentials': endorsementCredentialsMigration(),
    '0058_wallet_offers': walletOffersMigration(),
    '0058_wallet_offers_lcw': walletOffersLcwMigration(),
    '0059_console_email_per_issuer': consoleEmailPerIssuerMigration(dialect),
    '0061_api_key_rotated_from': apiKeyRotatedFromMigration(),
    '0062_expiry_reminders': expiryRemindersMigration(),
    '0063_definition_validity_months': definitionValidityMonthsMigration(),
    '0064_console_sso': consoleSsoMigration(),
    '0065_issue_definition_months': issueDefinitionMonthsMigration(dialect),
    '0066_reminder_due_announcements': reminderDueAnnouncementsMigration(),
    '0067_wallet_lcw_attempts': walletLcwAttemptsMigration(),
    '0070_endorsement_consent': endorsementConsentMigration(),
    '0071_console_session_hardening': consoleSessionHardeningMigration(),
    '0080_lti': ltiMigration(),
    '0085_certificates': certificatesMigration(),
    '0090_earner_accounts': earnerAccountsMigration(),
    '0091_ob_api': obApiMigration(),
    '0100_translations_and_metadata': translationsAndMetadataMigration(),
    '0110_reminder_extras': reminderExtrasMigration(),
    '0111_notification_resends': notificationResendsMigration(),
    '0120_certificate_links': certificateLinksMigration(),
    '0125_earner_imports': earnerImportsMigration(),
    '0130_clr_credentials': clrCredentialsMigration(),
    '0135_lti_issuer_tool_keys': ltiIssuerToolKeysMigration(),
    '0145_credential_import_batch': credentialImportBatchMigration(),
    '0150_upserted_checks': upsertedChecksMigration(),
    '0151_earner_collections': earnerCollectionsMigration(),
    '0155_resend_kind': resendKindMigration(),
    '0160_earner_send': earnerSendMigration(),
  };
}
