import type { PublicUrls } from '../../core/urls.js';
import { effectiveStatus } from '../credentials/credentials.views.js';
import { partialName } from './partial-name.js';
import { publicRevocationReason } from './revocation-reason.js';
import type { VerifiableRow } from './verification.repository.js';
import type { VerificationResult } from './verification.schemas.js';

/** Where a credential points: the credential id, and the issuer slug when it came as an assertion URL. */
export interface AssertionRef {
  credentialId: string;
  issuerSlug: string | null;
}

/** A bare credential id: what core.ids produces (UUIDs) and anything shaped like an id, nothing more. */
const BARE_ID = /^[A-Za-z0-9._~-]{1,200}$/;
/** An assertion, or its Open Badges 3.0 credential (`.jwt` form included), under an issuer. */
const ASSERTION_PATH = /^([^/?#]+)\/(?:assertions\/([^/?#]+)|credentials\/([^/?#]+?)(?:\.jwt)?)\/?$/;

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * Reads an id given to verification: exactly `<PUBLIC_BASE_URL>/v1/issuers/<slug>/assertions/<id>`
 * or `.../credentials/<id>[.jwt]` (a trailing slash tolerated) or a bare credential id. Anything else (another host, a query
 * string, another document) is null: the caller answers `unknown` without touching the database.
 */
export function assertionRefParser(publicBaseUrl: string): (raw: string) => AssertionRef | null {
  const prefix = `${publicBaseUrl}/v1/issuers/`;
  return (raw) => {
    const value = raw.trim();
    if (value.startsWith(prefix)) {
      const match = ASSERTION_PATH.exec(value.slice(prefix.length));
      const issuerSlug = match?.[1] === undefined ? null : decoded(match[1]);
      const id = match?.[2] ?? match?.[3];
      const credentialId = id === undefined ? null : decoded(id);
      return issuerSlug && credentialId ? { credentialId, issuerSlug } : null;
    }
    return BARE_ID.test(value) ? { credentialId: value, issuerSlug: null } : null;
  };
}

/** A found row answers for the ref only when the URL named the credential's own issuer. */
export function rowMatches(ref: AssertionRef, row: VerifiableRow | undefined): row is VerifiableRow {
  return row !== undefined && (ref.issuerSlug === null || ref.issuerSlug === row.issuer_slug);
}

export function unknownResult(id: string): VerificationResult {
  return { id, authentic: false, status: 'unknown', valid: false };
}

/** The BadgeClass image: the definition's own, else the SVG generated beside the BadgeClass. */
export function badgeImageUrl(urls: PublicUrls, row: VerifiableRow): string {
  return row.image_url ?? `${urls.badgeClass(row.issuer_slug, row.definition_slug)}/image.svg`;
}

/** The result for an id that resolves: every descriptive field is present. */
export type AuthenticResult = VerificationResult &
  Required<Pick<VerificationResult, 'issuer' | 'credential' | 'issuedOn' | 'verifyPageUrl'>>;

export function toResult(urls: PublicUrls, id: string, row: VerifiableRow, now: Date): AuthenticResult {
  const status = effectiveStatus(row, now);
  const recipientName = partialName(row.display_name);
  return {
    id,
    authentic: true,
    status,
    valid: status === 'valid',
    issuer: {
      name: row.issuer_name,
      slug: row.issuer_slug,
      profileUrl: urls.issuerProfile(row.issuer_slug),
      brandPrimaryColor: row.brand_primary_color,
      brandLogoUrl: row.brand_logo_url,
    },
    credential: {
      name: row.definition_name,
      badgeClassUrl: urls.badgeClass(row.issuer_slug, row.definition_slug),
      imageUrl: badgeImageUrl(urls, row),
    },
    ...(recipientName === undefined ? {} : { recipientName }),
    issuedOn: row.issued_on,
    expiresOn: row.expires_on,
    revokedReason: row.revoked_at === null ? null : publicRevocationReason(row.revoked_reason),
    verifyPageUrl: urls.verifyPage(row.issuer_slug, row.id),
  };
}
