import type { PublicUrls } from '../../core/urls.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { EndorsementRow } from '../endorsements/endorsements.repository.js';
import type { IssuerRow } from '../issuers/issuers.repository.js';
import { publicRevocationReason } from '../verification/revocation-reason.js';
import type { AlignmentFields, AssertionRow } from './documents.repository.js';
import {
  OB_CONTEXT,
  type ObAlignment,
  type ObAssertion,
  type ObBadgeClass,
  type ObEndorsement,
  type ObEndorserProfile,
  type ObIssuer,
  type ObRevokedAssertion,
} from './documents.schemas.js';

/*
 * Pure builders of the Open Badges 2.0 documents. Every id is the exact URL the document is served
 * from (publicUrls), and only terms of the OB v2 context are emitted, so validators neither refetch
 * nor drop anything.
 */

export const imageUrlOf = (documentUrl: string) => `${documentUrl}/image.svg`;
export const endorserProfileUrl = (urls: PublicUrls, issuerSlug: string, endorsementId: string) =>
  `${urls.endorsement(issuerSlug, endorsementId)}/issuer`;

export function issuerDocument(urls: PublicUrls, issuer: IssuerRow): ObIssuer {
  const image = issuer.image_url ?? issuer.brand_logo_url;
  return {
    '@context': OB_CONTEXT,
    type: 'Issuer',
    id: urls.issuerProfile(issuer.slug),
    name: issuer.name,
    url: issuer.url,
    email: issuer.email,
    ...(issuer.description ? { description: issuer.description } : {}),
    ...(image ? { image } : {}),
    related: [urls.issuerDidDocument(issuer.slug)],
  };
}

/** Tags then skills, trimmed, first spelling kept when two differ only in case. */
/**
 * A definition's criteria as both Open Badges versions write them: its URL and narrative. The OB 2.0
 * validator needs an id or a narrative, so the description is the honest fallback.
 */
export function criteriaOf(definition: DefinitionRow): { id?: string; narrative?: string } {
  if (!definition.criteria_url && !definition.criteria_narrative) return { narrative: definition.description };
  return {
    ...(definition.criteria_url ? { id: definition.criteria_url } : {}),
    ...(definition.criteria_narrative ? { narrative: definition.criteria_narrative } : {}),
  };
}

export function keywords(definition: DefinitionRow): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const word of [...(JSON.parse(definition.tags) as string[]), ...(JSON.parse(definition.skills) as string[])]) {
    const trimmed = word.trim();
    const key = trimmed.toLowerCase();
    if (trimmed === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(trimmed);
  }
  return out;
}

function alignmentObject(row: AlignmentFields): ObAlignment {
  return {
    targetName: row.target_name,
    targetUrl: row.target_url,
    ...(row.target_description ? { targetDescription: row.target_description } : {}),
    ...(row.target_framework ? { targetFramework: row.target_framework } : {}),
    ...(row.target_code ? { targetCode: row.target_code } : {}),
  };
}

export function badgeClassDocument(
  urls: PublicUrls,
  issuerSlug: string,
  definition: DefinitionRow,
  alignments: AlignmentFields[],
  endorsementIds: string[],
): ObBadgeClass {
  const id = urls.badgeClass(issuerSlug, definition.slug);
  const tags = keywords(definition);
  const criteria = criteriaOf(definition);
  return {
    '@context': OB_CONTEXT,
    type: 'BadgeClass',
    id,
    name: definition.name,
    description: definition.description,
    image: definition.image_url ?? imageUrlOf(id),
    criteria,
    issuer: urls.issuerProfile(issuerSlug),
    ...(tags.length > 0 ? { tags } : {}),
    ...(alignments.length > 0 ? { alignment: alignments.map(alignmentObject) } : {}),
    ...(endorsementIds.length > 0 ? { endorsement: endorsementIds.map((e) => urls.endorsement(issuerSlug, e)) } : {}),
  };
}

export function assertionDocument(urls: PublicUrls, credential: AssertionRow, endorsementIds: string[]): ObAssertion {
  const id = urls.assertion(credential.issuer_slug, credential.id);
  return {
    '@context': OB_CONTEXT,
    type: 'Assertion',
    id,
    recipient: {
      type: 'email',
      hashed: true,
      salt: credential.recipient_salt,
      identity: `sha256$${credential.recipient_hash}`,
    },
    badge: urls.badgeClass(credential.issuer_slug, credential.definition_slug),
    verification: { type: 'hosted' },
    issuedOn: credential.issued_on,
    ...(credential.expires_on ? { expires: credential.expires_on } : {}),
    ...(credential.evidence_url ? { evidence: [{ id: credential.evidence_url }] } : {}),
    // Only the generated badge is baked per assertion. A definition's own image is the BadgeClass's,
    // unbaked: repeating it here would point at a file with no assertion in it (docs/decisions.md).
    ...(credential.image_url ? {} : { image: imageUrlOf(id) }),
    ...(credential.reissued_from
      ? { related: [{ id: urls.assertion(credential.issuer_slug, credential.reissued_from) }] }
      : {}),
    ...(endorsementIds.length > 0
      ? { endorsement: endorsementIds.map((e) => urls.endorsement(credential.issuer_slug, e)) }
      : {}),
  };
}

/** The 410 body of a revoked hosted assertion (OB 2.0 "Revoking Hosted Assertions"), its reason in public words. */
export function revokedAssertionDocument(
  urls: PublicUrls,
  credential: Pick<AssertionRow, 'id' | 'issuer_slug' | 'revoked_reason'>,
): ObRevokedAssertion {
  return {
    '@context': OB_CONTEXT,
    id: urls.assertion(credential.issuer_slug, credential.id),
    type: 'Assertion',
    revoked: true,
    revocationReason: publicRevocationReason(credential.revoked_reason),
  };
}

export function endorsementDocument(
  urls: PublicUrls,
  issuerSlug: string,
  endorsement: EndorsementRow,
  endorsedUrl: string,
): ObEndorsement {
  return {
    '@context': OB_CONTEXT,
    type: 'Endorsement',
    id: urls.endorsement(issuerSlug, endorsement.id),
    claim: { id: endorsedUrl, endorsementComment: endorsement.claim },
    issuer: endorserProfileUrl(urls, issuerSlug, endorsement.id),
    issuedOn: endorsement.created_at,
    verification: { type: 'hosted' },
  };
}

/**
 * The endorser as an OB 2.0 Profile on our origin. The validator requires a url and an email on every
 * Profile; no endorser email is collected (it would be personal data), so the issuer that recorded
 * and hosts the endorsement is the contact, and the description says so.
 */
export function endorserProfileDocument(
  urls: PublicUrls,
  issuer: IssuerRow,
  endorsement: EndorsementRow,
): ObEndorserProfile {
  return {
    '@context': OB_CONTEXT,
    type: 'Profile',
    id: endorserProfileUrl(urls, issuer.slug, endorsement.id),
    name: endorsement.endorser_name,
    url: endorsement.endorser_url ?? issuer.url,
    email: issuer.email,
    description: `Endorser whose endorsement is recorded and hosted by ${issuer.name}, the contact for it.`,
  };
}
