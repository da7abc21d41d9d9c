import { REISSUED_REASON } from '../credentials/credentials.service.js';

/** The stored reason of a revocation made by an erasure request (gdpr.service.ts writes it). */
export const GDPR_ERASURE_REASON = 'gdpr_erasure';

/** What the public is told when an issuer revoked without a reason, or on the holder's erasure request. */
export const REVOKED_BY_ISSUER = 'Revoked by the issuer';
export const REPLACED_BY_NEWER = 'Replaced by a newer credential';

/**
 * The one wording of a revocation reason on public surfaces (the verification page and its meta
 * tags, the embed, the open verify API, the OB 2.0 410 stub). An erasure must not tell whoever holds
 * the link that the holder asked to be forgotten, so it reads exactly like a revocation given without
 * a reason; the service's own codes become plain words; an issuer's text is the issuer's to publish.
 * The issuer's API and webhooks keep the stored reason.
 */
export function publicRevocationReason(stored: string | null): string {
  switch (stored) {
    case null:
    case GDPR_ERASURE_REASON:
      return REVOKED_BY_ISSUER;
    case REISSUED_REASON:
      return REPLACED_BY_NEWER;
    default:
      return stored.trim() === '' ? REVOKED_BY_ISSUER : stored;
  }
}
