import type { PublicUrls } from '../../core/urls.js';
import type { CredentialWithSlugs } from './credentials.repository.js';
import type { CredentialStatus } from './credentials.schemas.js';

/** Status at serve time: revoked, else expired once expiresOn has passed, else valid. */
export function effectiveStatus(
  row: { revoked_at: string | null; expires_on: string | null },
  now: Date,
): CredentialStatus {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_on !== null && Date.parse(row.expires_on) <= now.getTime()) return 'expired';
  return 'valid';
}

export function credentialUrls(urls: PublicUrls, row: CredentialWithSlugs) {
  return {
    assertionUrl: urls.assertion(row.issuer_slug, row.id),
    badgeClassUrl: urls.badgeClass(row.issuer_slug, row.definition_slug),
    verifyUrl: urls.verifyPage(row.issuer_slug, row.id),
  };
}

export function toSummary(urls: PublicUrls, row: CredentialWithSlugs, now: Date) {
  return {
    id: row.id,
    status: effectiveStatus(row, now),
    definitionId: row.definition_id,
    ...credentialUrls(urls, row),
    issuedOn: row.issued_on,
    expiresOn: row.expires_on,
    revokedAt: row.revoked_at,
    completionKey: row.completion_key,
    recipientName: row.display_name,
  };
}

export function toDetail(urls: PublicUrls, row: CredentialWithSlugs, now: Date) {
  return {
    id: row.id,
    status: effectiveStatus(row, now),
    ...credentialUrls(urls, row),
    issuedOn: row.issued_on,
    expiresOn: row.expires_on,
    revokedAt: row.revoked_at,
    revokedReason: row.revoked_reason,
    completionKey: row.completion_key,
    recipientName: row.display_name,
    openBadgeCredentialUrl: urls.openBadgeCredential(row.issuer_slug, row.id),
    language: row.language,
  };
}

export function toIssued(urls: PublicUrls, row: CredentialWithSlugs, created: boolean, now: Date, nameDropped = false) {
  const { assertionUrl, badgeClassUrl, verifyUrl } = credentialUrls(urls, row);
  return {
    credentialId: row.id,
    assertionUrl,
    badgeClassUrl,
    created,
    verifyUrl,
    status: effectiveStatus(row, now),
    ...(nameDropped ? { recipientNameDropped: true } : {}),
    openBadgeCredentialUrl: urls.openBadgeCredential(row.issuer_slug, row.id),
  };
}
